"""Restaurant in two real browser windows (two Chromium browsers, one server), driven as a person
with a screen reader would: through what Chromium gives assistive technology (the accessibility
tree: roles, names, descriptions), never through the renderer's classes or node ids. A control is
found by its role and accessible name ("the tab named Order", "the button named Add to Order"),
what a row says is its name and description, and a click is a real click on that control.

The menu is the server's own (Examples/Restaurant/Sources/Restaurant/Resources/menu.json); the
kitchen runs fast (`--kitchen-minute`) where a test waits for an order to be ready.
"""
import json
import os
import re
import time
import urllib.request

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import chromium, save_screenshots

TIMEOUT = 15

# Dishes of the default menu: name → (category, price as shown, estimated minutes).
SUNDAE = "Ice Cream Sundae"          # desserts, $6.00, 4 min
CAKE = "Chocolate Layer Cake"        # desserts, $7.50, 5 min
CHEESECAKE = "Strawberry Cheesecake"  # desserts, $7.25, 5 min
SOUP = "Tomato Basil Soup"           # soups, $6.50, 5 min
IDS = {SUNDAE: 18, CAKE: 16, CHEESECAKE: 17, SOUP: 9}


# MARK: - The accessibility tree


class Node:
    """One node of the accessibility tree that is exposed (ignored nodes are left out, their
    children kept in their place), in document order."""

    def __init__(self, raw):
        self.role = raw.get("role", {}).get("value", "")
        self.name = raw.get("name", {}).get("value", "") or ""
        self.description = raw.get("description", {}).get("value", "") or ""
        self.properties = {p["name"]: p.get("value", {}).get("value") for p in raw.get("properties", [])}
        self.backend = raw.get("backendDOMNodeId")
        self.kids = []

    def __repr__(self):
        return f"<{self.role} {self.name!r}{' — ' + repr(self.description) if self.description else ''}>"

    def walk(self):
        yield self
        for kid in self.kids:
            yield from kid.walk()

    def find_all(self, role, name=None):
        return [n for n in self.walk() if n.role == role and (name is None or n.name == name)]

    def find(self, role, name=None):
        found = self.find_all(role, name)
        return found[0] if found else None

    def texts(self):
        """The text a reader goes through, piece by piece."""
        return [n.name for n in self.walk() if n.role == "StaticText" and n.name.strip()]


def tree(driver):
    """The window's accessibility tree, as Chromium computes it now."""
    raw = driver.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    by_id = {n["nodeId"]: n for n in raw}

    def build(n):
        kids = [k for c in n.get("childIds", []) if c in by_id for k in build(by_id[c])]
        if n.get("ignored") or n.get("role", {}).get("value") == "InlineTextBox":
            return kids
        node = Node(n)
        node.kids = kids
        return [node]
    roots = [n for n in raw if "parentId" not in n]
    return build(roots[0])[0]


def until(driver, probe, message):
    """Waits until `probe(tree)` is truthy; returns it. On timeout, the failure says what the tree
    held last."""
    last = {}

    def attempt(d):
        last["tree"] = tree(d)
        return probe(last["tree"])
    try:
        return WebDriverWait(driver, TIMEOUT, poll_frequency=0.05).until(attempt)
    except TimeoutException:
        raise AssertionError(f"timed out waiting for {message}; the window reads: {outline(last.get('tree'))}") from None


def outline(root, limit=1500):
    if root is None:
        return "(nothing)"
    main = root.find("main") or root
    text = " | ".join(f"{n.role}:{n.name}" + (f" ({n.description})" if n.description else "")
                      for n in main.walk() if n.role in ("heading", "button", "StaticText", "image", "img", "alertdialog"))
    return text[:limit]


def element(driver, node):
    """The DOM element behind `node`, to act on it as a person does (click, type)."""
    obj = driver.execute_cdp_cmd("DOM.resolveNode", {"backendNodeId": node.backend})["object"]["objectId"]
    driver.execute_cdp_cmd("Runtime.callFunctionOn", {
        "objectId": obj, "functionDeclaration": "function () { window.__axElement = this; }"})
    return driver.execute_script("const e = window.__axElement; delete window.__axElement; return e;")


_RUNNING = """
return document.getAnimations().filter((a) => {
  const end = a.effect ? a.effect.getComputedTiming().endTime : 0;
  return a.playState === "running" && Number.isFinite(end);
}).length;
"""


def settled(driver):
    """Waits until nothing slides or fades: a click aimed at a screen that is still pushing in can
    land beside its target."""
    WebDriverWait(driver, TIMEOUT, poll_frequency=0.05).until(lambda d: d.execute_script(_RUNNING) == 0, "animations to finish")


def press(driver, role, name, within=None):
    """Clicks the control with `role` and accessible `name` (in the node `within` picks from the
    tree, if given), once it is there."""
    def probe(root):
        scope = within(root) if within else root
        return scope.find(role, name) if scope else None
    node = until(driver, probe, f"a {role} named {name!r}")
    settled(driver)
    element(driver, node).click()


# MARK: - What a person sees


def title(root):
    """The screen's title: the navigation bar's heading; in a split whose panes have bars of their
    own (Chat), the last pane's title shown (the detail's, beside the list)."""
    banner = root.find("banner")
    heading = banner.find("heading") if banner else None
    if heading is None and root.find("main"):
        titles = [h for h in root.find("main").find_all("heading") if h.properties.get("level") == 1 and h.name]
        heading = titles[-1] if titles else None
    return heading.name if heading else None


def main(root):
    return root.find("main")


def image(scope, name=None):
    """An image (role `image` in ARIA 1.3, `img` before)."""
    return scope.find("image", name) or scope.find("img", name)


def alert(root):
    return root.find("alertdialog")


def tab_label(node):
    """A tab's label: its accessible name less what its badge adds ("Order, 2 items" → "Order")."""
    return node.name.split(", ")[0]


def find_tab(root, label):
    """The tab labelled `label`, whatever its badge."""
    return next((t for t in root.find_all("tab") if tab_label(t) == label), None)


def badge(root):
    """What the Order tab's badge says, as its accessible name reads it ("Order, 2 items" → "2"),
    or None without one."""
    tab = find_tab(root, "Order")
    if tab is None or tab.name == "Order":
        return None
    count = re.fullmatch(r"Order, (\d+) items?", tab.name)
    return count.group(1) if count else f"(the tab is named {tab.name!r})"


def selected_tab(root):
    return next((tab_label(t) for t in root.find_all("tab") if t.properties.get("selected")), None)


def notices(root):
    """The texts of the notices shown in the window."""
    region = root.find("region", "Notices")
    return [" ".join(s.texts()) for s in region.find_all("status")] if region else []


CONTROLS = {"Delete…", "Delete", "Reorder", "More actions"}


def row_button(item):
    """A row's own button (the one named by the row), not its Delete or Reorder control."""
    return next((b for b in item.find_all("button") if b.name not in CONTROLS), None)


def rows(scope):
    """(name, description) of each row in `scope`, in order. The description is what assistive
    technology reads after the name; it must also be what the row shows (its texts after the
    title), or the pair says both, so that it compares unequal to what a test expects. A still
    row (nothing happens when it is pressed, so it is no button) is (its first text, the rest)."""
    found = []
    for item in scope.find_all("listitem"):
        button = row_button(item)
        if button is None:
            texts = item.texts()
            if texts:
                found.append((texts[0], " ".join(texts[1:])))
            continue
        texts = button.texts()
        shown = " ".join(texts[1:]) if texts[:1] == [button.name] else f"(shows {texts})"
        found.append((button.name, button.description if shown == button.description
                      else f"{button.description!r}, but shows {shown!r}"))
    return found


def order_section(root):
    """The Order tab's list, split at its section headings: (the order's part, the kitchen's part),
    each a Node holding that part's nodes, or None if the list is not there."""
    table = root.find("list", "Order") or root.find("group", "Order")
    if table is None:
        return None
    # Section headers are drawn in capitals (CSS), which Chromium passes on in their names.
    parts = {"your order": Node({}), "in the kitchen": Node({})}
    current = None
    for node in _flatten(table):
        if node.role == "heading" and node.name.casefold() in parts:
            current = parts[node.name.casefold()]
        elif current is not None:
            current.kids.append(node)
    return parts["your order"], parts["in the kitchen"]


def _flatten(table):
    """The list's headings, list items (each whole) and loose texts, in reading order."""
    out = []

    def visit(node):
        for kid in node.kids:
            if kid.role in ("listitem", "heading", "StaticText"):
                out.append(kid)
            else:
                visit(kid)
    visit(table)
    return out


def order_lines(root):
    parts = order_section(root)
    return rows(parts[0]) if parts else None


def kitchen(root):
    parts = order_section(root)
    return rows(parts[1]) if parts else None


def order_texts(root):
    """The order part's loose texts (its empty state, its footer)."""
    parts = order_section(root)
    return [n.name for n in parts[0].kids if n.role in ("StaticText", "heading")] if parts else None


def order_texts_kitchen(root):
    """The kitchen part's loose texts (its empty state)."""
    parts = order_section(root)
    return [n.name for n in parts[1].kids if n.role in ("StaticText", "heading")] if parts else []


def total(root):
    texts = order_texts(root) or []
    found = [t for t in texts if t.startswith("Total")]
    assert len(found) <= 1, found
    return found[0] if found else None


# MARK: - Windows


def open_restaurant(driver, server):
    driver.get(server.url + "/restaurant")
    until(driver, lambda r: find_tab(r, "Menu") and title(r) == "Menu" and main(r) and main(r).find("list", "Categories"),
          "the categories")
    wait_connected(driver)


def wait_connected(driver):
    until(driver, lambda r: "Connected" in (r.find("complementary", "Connection") or Node({})).texts(), "connected")


def open_dish(driver, category, dish):
    """Menu → `category` → `dish`, by the rows' names, from the categories."""
    press(driver, "button", category, within=main)
    until(driver, lambda r: title(r) == category and main(r).find("button", dish), f"the {category} list")
    press(driver, "button", dish, within=main)
    until(driver, lambda r: title(r) == dish and main(r).find("button", "Add to Order"), f"the detail of {dish}")


def back(driver, to):
    press(driver, "button", "Back", within=lambda r: r.find("banner"))
    until(driver, lambda r: title(r) == to, f"back on {to}")


def add(driver, dish):
    """Presses Add to Order on the dish's detail and waits for this window's notice."""
    press(driver, "button", "Add to Order", within=main)
    until(driver, lambda r: f"Added {dish} to your order." in notices(r), f"the notice for {dish}")


def show_tab(driver, name):
    tab = until(driver, lambda r: find_tab(r, name), f"the tab {name!r}")
    settled(driver)
    element(driver, tab).click()
    until(driver, lambda r: selected_tab(r) == name and title(r) == name, f"the {name} tab")


def show_order(driver):
    show_tab(driver, "Order")
    until(driver, lambda r: order_section(r) is not None, "the order list")


@pytest.fixture(scope="module")
def browsers():
    """Two browsers, as two people (or one person's two windows) side by side; each test opens
    Restaurant in both on its own server."""
    a, b = chromium(), chromium()
    for d in (a, b):
        d.implicitly_wait(0)
    yield a, b
    a.quit()
    b.quit()


@pytest.fixture
def pair(browsers, start_server):
    """Starts a server with the given options and opens Restaurant in both windows."""
    def start(*args):
        server = start_server(*args)
        for d in browsers:
            d.get_log("browser")  # drains what earlier tests left
            open_restaurant(d, server)
        return (server, *browsers)
    yield start
    # Leave the server before it stops, so the windows do not go on trying to reconnect to it.
    for d in browsers:
        d.get("about:blank")
        d.get_log("browser")


def no_console_errors(*drivers):
    for d in drivers:
        errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == [], errors


def post_order(server, ids):
    """The menu API's `POST /order`, as the course's iOS client sends it (no Origin)."""
    request = urllib.request.Request(server.url + "/order", data=json.dumps({"menuIds": ids}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


# MARK: - Tests


def test_a_dish_added_in_one_window_is_in_the_order_of_both(pair):
    server, a, b = pair()
    assert badge(tree(a)) is None and badge(tree(b)) is None
    open_dish(a, "Desserts", SUNDAE)
    root = tree(a)
    # The dish's name is its heading; the price is text under it, not a heading of its own.
    assert main(root).find("heading", SUNDAE) and not main(root).find("heading", "$6.00"), outline(root)
    assert "$6.00" in main(root).texts(), outline(root)
    add(a, SUNDAE)
    until(a, lambda r: badge(r) == "1", "the badge 1 in the window that added")
    until(b, lambda r: badge(r) == "1", "the badge 1 in the other window")
    # The notice is the adding window's alone; the other window has seen the change (its badge).
    assert notices(tree(b)) == []
    assert title(tree(a)) == SUNDAE, "adding keeps the window on the dish"
    show_order(b)
    until(b, lambda r: order_lines(r) == [(SUNDAE, "$6.00")], "the dish in the other window's order")
    assert total(tree(b)) == "Total $6.00"
    # A second dish, added while the other window shows the order: row and total change there live.
    back(a, "Desserts")
    press(a, "button", CAKE, within=main)
    until(a, lambda r: title(r) == CAKE, "the cake's detail")
    add(a, CAKE)
    until(b, lambda r: order_lines(r) == [(SUNDAE, "$6.00"), (CAKE, "$7.50")] and total(r) == "Total $13.50",
          "both dishes and their total in the other window")
    until(a, lambda r: badge(r) == "2", "the badge 2")
    until(b, lambda r: badge(r) == "2", "the badge 2 in the other window")
    assert notices(tree(b)) == []
    no_console_errors(a, b)


def test_edit_mode_deletes_and_reorders_in_both_windows(pair):
    server, a, b = pair()
    open_dish(a, "Desserts", CAKE)
    add(a, CAKE)
    back(a, "Desserts")
    press(a, "button", CHEESECAKE, within=main)
    until(a, lambda r: title(r) == CHEESECAKE, "the cheesecake")
    add(a, CHEESECAKE)
    back(a, "Desserts")
    press(a, "button", SUNDAE, within=main)
    until(a, lambda r: title(r) == SUNDAE, "the sundae")
    add(a, SUNDAE)
    show_order(a)
    show_order(b)
    start = [(CAKE, "$7.50"), (CHEESECAKE, "$7.25"), (SUNDAE, "$6.00")]
    until(b, lambda r: order_lines(r) == start and total(r) == "Total $20.75", "three dishes in the other window")

    # Edit in B only: A stays as it is.
    press(b, "button", "Edit", within=lambda r: r.find("banner"))
    until(b, lambda r: r.find("banner").find("button", "Done") and main(r).find("button", "Reorder"), "edit mode")
    root = tree(a)
    assert root.find("banner").find("button", "Edit") and not main(root).find("button", "Delete…"), "edit mode is per window"

    # Alt+Down in a row moves it one place down, from the keyboard. An order line does nothing when
    # pressed, so it is no button: the keys go to a control of its own, its Reorder handle.
    cake_handle = until(b, lambda r: next((n for n in main(r).find_all("button", "Reorder") if n.description == CAKE), None),
                        "the cake row's Reorder")
    element(b, cake_handle).send_keys(Keys.ALT, Keys.ARROW_DOWN)
    moved = [(CHEESECAKE, "$7.25"), (CAKE, "$7.50"), (SUNDAE, "$6.00")]
    until(b, lambda r: order_lines(r) == moved, "the cake moved down")
    until(b, lambda r: "Moved to position 2 of 3" in " ".join(r.find("region", "Messages").texts()), "the move announced")
    until(a, lambda r: order_lines(r) == moved, "the move in the other window")

    # Dragging the sundae's Reorder handle (the one that says it is the sundae's) to the top.
    parts = order_section(tree(b))
    items = parts[0].find_all("listitem")
    sundae = next(i for i in items if i.texts()[:1] == [SUNDAE])
    assert [h.description for h in parts[0].find_all("button", "Reorder")] == [CHEESECAKE, CAKE, SUNDAE]
    handle = element(b, sundae.find("button", "Reorder"))
    settled(b)
    # Up by two rows and a little more: the row's middle must pass the top row's.
    dy = element(b, items[0]).rect["y"] - element(b, sundae).rect["y"] - 10
    drag = ActionChains(b, duration=50).click_and_hold(handle)
    for _ in range(5):
        drag.move_by_offset(0, round(dy / 5))
    drag.release().perform()
    dragged = [(SUNDAE, "$6.00"), (CHEESECAKE, "$7.25"), (CAKE, "$7.50")]
    until(b, lambda r: order_lines(r) == dragged, "the sundae dragged to the top")
    until(a, lambda r: order_lines(r) == dragged, "the drag in the other window")

    # Delete the cheesecake: gone in both, with the total and the badges.
    # In two steps, as in UIKit: the minus shows the row's own Delete, which deletes.
    show_delete = until(b, lambda r: next((n for n in main(r).find_all("button", "Delete…") if n.description == CHEESECAKE), None),
                        "the minus for the cheesecake")
    settled(b)
    element(b, show_delete).click()
    delete = until(b, lambda r: next((n for n in main(r).find_all("button", "Delete") if n.description == CHEESECAKE), None),
                   "the cheesecake's own Delete")
    element(b, delete).click()
    left = [(SUNDAE, "$6.00"), (CAKE, "$7.50")]
    for d in (a, b):
        until(d, lambda r: order_lines(r) == left and total(r) == "Total $13.50" and badge(r) == "2",
              "the cheesecake deleted, the total and badge after it")
    press(b, "button", "Done", within=lambda r: r.find("banner"))
    until(b, lambda r: r.find("banner").find("button", "Edit") and not main(r).find("button", "Delete…"), "edit mode ended")
    no_console_errors(a, b)


def countdown_text(driver, order):
    """The time left the kitchen's row of `order` shows (its <time>, as drawn), or None."""
    node = next((i for i in main(tree(driver)).find_all("listitem") if i.texts()[:1] == [order]), None)
    if node is None:
        return None
    # The digits are for the eye (the words beside them, for assistive technology, are hidden).
    return driver.execute_script("""
      const time = arguments[0].querySelector('time');
      return time ? [...time.children].filter((c) => c.getAttribute('aria-hidden') === 'true')
        .map((c) => c.textContent).join('') : null;
    """, element(driver, node))


def test_submitting_confirms_the_total_and_the_kitchen_counts_down_to_ready(pair):
    # 6 minutes for the two dishes (5 for the slower, 1 to plate the other): 6 s at 1 s a minute.
    server, a, b = pair("--kitchen-minute", "1")
    open_dish(a, "Desserts", SUNDAE)
    add(a, SUNDAE)
    back(a, "Desserts")
    back(a, "Menu")
    open_dish(a, "Soups", SOUP)
    add(a, SOUP)
    show_order(a)
    show_order(b)
    lines = [(SUNDAE, "$6.00"), (SOUP, "$6.50")]
    until(b, lambda r: order_lines(r) == lines and total(r) == "Total $12.50", "the order in the other window")

    # The confirmation says what will be sent; Cancel sends nothing.
    press(a, "button", "Submit", within=lambda r: r.find("banner"))
    dialog = until(a, alert, "the confirmation")
    assert dialog.name == "Submit Order?"
    assert dialog.description == "2 dishes for a total of $12.50."
    assert dialog.texts() == ["Submit Order?", "2 dishes for a total of $12.50.", "Cancel", "Submit"], dialog.texts()
    assert [n.name for n in dialog.find_all("button")] == ["Cancel", "Submit"]
    assert alert(tree(b)) is None, "the confirmation is the submitting window's alone"
    press(a, "button", "Cancel", within=alert)
    until(a, lambda r: alert(r) is None, "the confirmation gone")
    time.sleep(0.3)  # anything Cancel wrongly did would have reached the windows by now
    for d in (a, b):
        root = tree(d)
        assert order_lines(root) == lines and total(root) == "Total $12.50" and badge(root) == "2", outline(root)
        assert kitchen(root) == [] and "No orders yet" in order_texts_kitchen(root), outline(root)

    press(a, "button", "Submit", within=lambda r: r.find("banner"))
    until(a, alert, "the confirmation again")
    press(a, "button", "Submit", within=alert)
    until(a, lambda r: alert(r) is None, "the confirmation gone")
    until(a, lambda r: "Order #1 is in the kitchen: ready in 6 minutes." in notices(r), "the submitted notice")
    for d in (a, b):
        until(d, lambda r: order_lines(r) == [] and total(r) is None and badge(r) is None
              and "Your order is empty" in order_texts(r), "the order emptied")
        row = until(d, lambda r: (kitchen(r) or [None])[0], "the kitchen's row")
        assert row[0] == "Order #1", row
        assert re.fullmatch(r"2 dishes · \$12\.50 \d seconds? left", row[1]), row
    first = {d: countdown_text(d, "Order #1") for d in (a, b)}
    for d in (a, b):
        # Six seconds, to a deadline the kitchen puts on the whole second before: at most 0:06.
        assert re.fullmatch(r"0:0[1-6]", first[d]), first[d]
    # It ticks in the browser (the server sends nothing until the order is ready).
    for d in (a, b):
        WebDriverWait(d, 2.5, poll_frequency=0.05).until(lambda _: countdown_text(d, "Order #1") not in (first[d], None),
                                    f"the countdown to tick from {first[d]}")
        assert re.fullmatch(r"0:0[0-6]", countdown_text(d, "Order #1"))
    for d in (a, b):
        until(d, lambda r: kitchen(r) == [("Order #1", "2 dishes · $12.50 Ready")], "the order ready")
        assert countdown_text(d, "Order #1") is None, "the countdown gives way to Ready"
    # The submitted notice is the submitting window's alone; that the order is ready is every window's.
    until(b, lambda r: notices(r) == ["Order #1 is ready"], "the ready notice in the other window")
    no_console_errors(a, b)


def test_an_order_posted_to_the_menu_api_shows_in_every_window_kitchen(pair):
    server, a, b = pair()
    show_order(a)
    show_order(b)
    for d in (a, b):
        until(d, lambda r: "No orders yet" in order_texts_kitchen(r), "the empty kitchen")
    status, body = post_order(server, [IDS[SUNDAE], IDS[SOUP]])
    assert (status, body) == (200, {"preparation_time": 6})
    for d in (a, b):
        row = until(d, lambda r: (kitchen(r) or [None])[0], "the posted order in the kitchen")
        assert row[0] == "Order #1"
        # Six minutes, to a deadline the kitchen puts on the whole second before: never above 6:00.
        assert re.fullmatch(r"2 dishes · \$12\.50 (5 minutes \d+ seconds?|6 minutes) left", row[1]), row
        shown = countdown_text(d, "Order #1")
        minutes, seconds = map(int, shown.split(":"))
        assert 5 * 60 + 45 <= minutes * 60 + seconds <= 6 * 60, shown
        root = tree(d)
        # The API's order is not the windows' shared order.
        assert order_lines(root) == [] and badge(root) is None
    # A second one goes on top.
    assert post_order(server, [IDS[CAKE]]) == (200, {"preparation_time": 7})  # 5 + 2 for the order ahead
    for d in (a, b):
        until(d, lambda r: [n for n, _ in kitchen(r)] == ["Order #2", "Order #1"], "the newest order on top")
    no_console_errors(a, b)


def test_a_reload_keeps_the_window_where_it_was_and_the_order(pair):
    server, a, b = pair()
    open_dish(a, "Desserts", SUNDAE)
    add(a, SUNDAE)
    a.refresh()
    until(a, lambda r: title(r) == SUNDAE and main(r).find("heading", SUNDAE) and main(r).find("button", "Add to Order")
          and selected_tab(r) == "Menu", "the dish's detail after the reload")
    wait_connected(a)
    until(a, lambda r: badge(r) == "1", "the badge after the reload")
    # The path came back too, not just the top screen.
    back(a, "Desserts")
    back(a, "Menu")
    # On the Order tab, a reload stays there, with the order.
    show_order(a)
    a.refresh()
    until(a, lambda r: selected_tab(r) == "Order" and order_lines(r) == [(SUNDAE, "$6.00")] and total(r) == "Total $6.00",
          "the Order tab and its dish after the reload")
    # Each window keeps its own place: B, still on the categories, reloads onto them.
    b.refresh()
    until(b, lambda r: title(r) == "Menu" and selected_tab(r) == "Menu" and badge(r) == "1", "B on the categories")
    no_console_errors(a, b)


_PICTURES = """
return [...arguments[0].querySelectorAll('img')].filter((img) => img.checkVisibility()).map((img) => ({
  src: img.getAttribute('src'), complete: img.complete, width: img.naturalWidth,
  shown: img.getBoundingClientRect().width, alt: img.alt}));
"""


def pictures(driver, node):
    return driver.execute_script(_PICTURES, element(driver, node))


def loaded(driver, node, count):
    """Waits until `node` holds `count` pictures, every one loaded; returns them."""
    def probe(_):
        found = pictures(driver, node)
        return found if len(found) == count and all(p["complete"] and p["width"] > 0 for p in found) else None
    try:
        return WebDriverWait(driver, TIMEOUT, poll_frequency=0.05).until(probe)
    except TimeoutException:
        raise AssertionError(f"pictures not loaded: {pictures(driver, node)}") from None


def test_the_dish_pictures_load_in_the_list_the_detail_and_the_order(pair):
    server, a, _ = pair()
    press(a, "button", "Desserts", within=main)
    listing = until(a, lambda r: title(r) == "Desserts" and main(r).find("list", "Desserts"), "the desserts")
    shown = loaded(a, listing, 3)
    assert len({p["src"] for p in shown}) == 3, "each dish its own picture"
    assert all(p["alt"] == "" for p in shown), "a row's picture is decoration: the row is named by the dish"
    press(a, "button", SUNDAE, within=main)
    # The detail's picture is content: an image named by the dish.
    picture = until(a, lambda r: title(r) == SUNDAE and image(main(r), SUNDAE), "the detail's picture")
    settled(a)
    detail = loaded(a, main(tree(a)), 1)[0]
    # Shown across the detail's column (test_look.py checks its edges), and no wider than the window.
    assert 200 <= detail["shown"] <= a.execute_script("return innerWidth"), detail
    assert picture.name == SUNDAE
    add(a, SUNDAE)
    show_order(a)
    lines = until(a, lambda r: order_lines(r) == [(SUNDAE, "$6.00")] and order_section(r)[0], "the order line")
    item = lines.find("listitem")
    assert loaded(a, item, 1)[0]["src"] == [p for p in shown if p["src"].endswith(f"/{IDS[SUNDAE]}.png")][0]["src"]
    no_console_errors(a)


def test_screenshots_light_and_dark(browsers, start_server):
    """Renders a category's dishes, a dish's detail, and the Order tab (dishes, the badge, an order
    in the kitchen counting down) in light and dark for the README: with SCENESYNC_SCREENSHOTS set,
    saved there as restaurant-{menu,dish,order}-{light,dark}.png."""
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    server = start_server()  # the kitchen's real minutes: the countdown reads like one
    assert post_order(server, [IDS[CAKE], IDS[SOUP], 12])[0] == 200
    try:
        for driver, scheme in zip(browsers, ("light", "dark")):
            media(driver, scheme)
            open_restaurant(driver, server)
            if scheme == "light":  # the first window orders three dishes: the badge shows in both
                for dish in ("Steak Frites", "Grilled Salmon", "Spaghetti and Meatballs"):
                    if title(tree(driver)) == "Menu":
                        open_dish(driver, "Entrees", dish)
                    else:
                        back(driver, "Entrees")
                        press(driver, "button", dish, within=main)
                        until(driver, lambda r: title(r) == dish, dish)
                    add(driver, dish)
                back(driver, "Entrees")
            else:
                press(driver, "button", "Entrees", within=main)
            listing = until(driver, lambda r: title(r) == "Entrees" and badge(r) == "3"
                            and main(r).find("list", "Entrees"), "the entrees")
            loaded(driver, listing, 4)
            shoot(driver, out, f"restaurant-menu-{scheme}.png")
            press(driver, "button", "Spaghetti and Meatballs", within=main)
            until(driver, lambda r: title(r) == "Spaghetti and Meatballs" and image(main(r)), "the detail")
            loaded(driver, main(tree(driver)), 1)
            shoot(driver, out, f"restaurant-dish-{scheme}.png")
            show_order(driver)
            until(driver, lambda r: len(order_lines(r) or []) == 3 and kitchen(r) and badge(r) == "3", "the order and the kitchen")
            loaded(driver, main(tree(driver)), 3)
            shoot(driver, out, f"restaurant-order-{scheme}.png")
        no_console_errors(*browsers)
    finally:
        for driver in browsers:
            media(driver, None)


def media(driver, scheme):
    """Shows the page in `scheme` ("light", "dark"), without motion (steady pictures); None: as
    the browser is."""
    features = [{"name": "prefers-color-scheme", "value": scheme},
                {"name": "prefers-reduced-motion", "value": "reduce"}] if scheme else []
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})


def shoot(driver, out, name):
    """Saves the window as `name` in `out` (if set), once it is still and without notices."""
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    # The notices of this window's adds go by themselves; for the picture, dismiss them.
    for _ in range(10):
        region = tree(driver).find("region", "Notices")
        dismiss = region.find("button", "Dismiss") if region else None
        if not dismiss:
            break
        element(driver, dismiss).click()
        time.sleep(0.3)
    # The pointer rests beside the column, where it lights up no row.
    rest = ActionBuilder(driver)
    rest.pointer_action.move_to_location(4, 300)
    rest.perform()
    settled(driver)
    time.sleep(0.3)
    if out:
        save_screenshots(driver, out, name)
