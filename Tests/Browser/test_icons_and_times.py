"""Tab icons and message times, found as test_restaurant.py finds things: by role and accessible
name in Chromium's accessibility tree.

- Restaurant's tabs show an icon beside their label (inline SVG, decoration only): the tab named
  Menu and the tab named Order (later "Order, 1 item") each hold one, hidden from assistive
  technology, so the tab's name stays its label and badge. The window passes axe.
- A conversation shows a time once per group of messages: one sender's messages on one day, each
  less than 5 minutes after the group's first, show the time on the first only; every message is
  still read with its time. In Chat (a real server) Ana's three messages show one time, Bo's reply
  its own. In the renderer harness (messages with chosen times, no server) a gap and a new day
  start a group, and the groups stay right as an earlier page is inserted at the top, messages are
  appended, one is removed and one's time is changed.

With SCENESYNC_SCREENSHOTS set, Restaurant's tab bar is saved there at 1280×800 and 820×1180 in
light and dark (icons-tabs-<width>-<scheme>.png), and the grouped conversation
(icons-times-<scheme>.png).
"""
import os
import re
import time

import pytest

from accessibility import assert_accessible, assert_scheme, emulate
from conftest import chromium
from run_harness import Run, make_driver, serve
from test_restaurant import add, find_tab, open_dish, open_restaurant, press, title, tree, until
from test_small_findings import sign_in, start_weekend_plans, type_into
from selenium.webdriver.common.keys import Keys

TIME = re.compile(r"^\d{1,2}:\d{2}(\s?[AP]M)?$")
MINUTE = 60_000


def shoot(driver, name, sizes=(None,)):
    """Saves the window in light and dark, at each of `sizes` (or as it is), when
    SCENESYNC_SCREENSHOTS is set."""
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    if not out:
        return
    try:
        for size in sizes:
            if size:
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})
            for scheme in ("light", "dark"):
                emulate(driver, scheme)
                assert_scheme(driver, scheme)
                time.sleep(0.4)
                suffix = f"{size[0]}-{scheme}" if size else scheme
                driver.save_screenshot(os.path.join(out, f"{name}-{suffix}.png"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        emulate(driver, "light")


def call_on(driver, node, function):
    """Runs `function` (a JS function declaration) with `this` the DOM node behind the
    accessibility node `node`; returns its value."""
    obj = driver.execute_cdp_cmd("DOM.resolveNode", {"backendNodeId": node.backend})["object"]["objectId"]
    return driver.execute_cdp_cmd("Runtime.callFunctionOn", {
        "objectId": obj, "functionDeclaration": function, "returnByValue": True})["result"].get("value")


# MARK: - Tab icons

# What a tab holds besides its text: its drawn icons, each with whether it is hidden from assistive
# technology and how big it is drawn.
TAB_ICONS = """function () {
  return [...this.querySelectorAll("svg")].map((svg) => {
    const box = svg.getBoundingClientRect();
    const label = [...this.childNodes].find((n) => n !== svg && n.textContent.trim());
    return {hidden: svg.getAttribute("aria-hidden") === "true", width: box.width, height: box.height,
            paths: svg.querySelectorAll("path").length,
            beforeLabel: Boolean(label && (svg.compareDocumentPosition(label) & Node.DOCUMENT_POSITION_FOLLOWING))};
  });
}"""


def assert_tab_icon(driver, tab):
    icons = call_on(driver, tab, TAB_ICONS)
    assert len(icons) == 1, f"the tab named {tab.name!r} holds {len(icons)} icons"
    icon = icons[0]
    assert icon["hidden"], f"the icon of {tab.name!r} is not hidden from assistive technology"
    assert icon["paths"] > 0 and 16 <= icon["width"] <= 32 and 16 <= icon["height"] <= 32, f"{tab.name!r}: {icon}"
    assert icon["beforeLabel"], f"the icon of {tab.name!r} is not before its label"


def test_restaurants_tabs_show_an_icon_and_keep_their_names(browser, server):
    open_restaurant(browser, server)
    root = tree(browser)
    assert [t.name for t in root.find_all("tab")] == ["Menu", "Order"], "the tabs are named by their labels alone"
    for name in ("Menu", "Order"):
        assert_tab_icon(browser, find_tab(root, name))
    assert_accessible(browser, "restaurant: tabs with icons")

    open_dish(browser, "Desserts", "Ice Cream Sundae")
    add(browser, "Ice Cream Sundae")
    order = until(browser, lambda r: r.find("tab", "Order, 1 item"), "the Order tab named with its badge")
    assert_tab_icon(browser, order)
    press(browser, "tab", "Order, 1 item")
    until(browser, lambda r: title(r) == "Order", "the Order tab")
    assert_tab_icon(browser, until(browser, lambda r: r.find("tab", "Order, 1 item"), "the Order tab, selected"))
    assert_accessible(browser, "restaurant: the Order tab with an icon and a badge")
    shoot(browser, "icons-tabs", sizes=((1280, 800), (820, 1180)))


# MARK: - Message times in Chat


def log_messages(driver, root, log_name):
    """The messages of the log named `log_name`, in order, as (text, times read, times shown):
    a message's text, then what it is read with that looks like a time, and which of those show."""
    log = root.find("log", log_name)
    assert log is not None, f"no log named {log_name!r}"
    messages = []
    for node in log.walk():
        if node.role != "StaticText" or not node.name.strip():
            continue
        if TIME.match(node.name.strip()):
            shown = call_on(driver, node, """function () {
              const box = this.parentElement.getBoundingClientRect();
              return box.width > 1 && box.height > 1;
            }""")
            messages[-1][1].append(node.name.strip())
            if shown:
                messages[-1][2].append(node.name.strip())
        elif node.name in SENDERS:
            continue
        else:
            messages.append((node.name, [], []))
    return messages


SENDERS = {"Ana", "Bo"}


def test_a_chat_group_shows_its_time_once_and_every_message_is_read_with_its_time(browser, server):
    bo = chromium()
    try:
        sign_in(bo, server, "Bo")
        sign_in(browser, server, "Ana")
        press(browser, "button", "New Conversation")
        until(browser, lambda r: title(r) == "New Conversation", "the New Conversation screen")
        start_weekend_plans(browser)
        sent = ["Hiking at nine?", "Or ten", "Bring water"]
        for text in sent:
            type_into(browser, "Message", text, Keys.ENTER)
            until(browser, lambda r, text=text: r.find("log") and text in [m[0] for m in log_messages(browser, r, r.find("log").name)],
                  f"{text!r} sent")
        log_name = tree(browser).find("log").name
        messages = log_messages(browser, tree(browser), log_name)
        assert [m[0] for m in messages] == sent
        assert all(len(read) == 1 for _, read, _ in messages), f"a message is not read with its time: {messages}"
        assert [len(shown) for _, _, shown in messages] == [1, 0, 0], f"the group shows its time other than once, on its first: {messages}"

        press(bo, "button", "Weekend plans")
        until(bo, lambda r: title(r) == "Weekend plans" and r.find("textbox", "Message"), "Bo's conversation")
        type_into(bo, "Message", "Nine is fine", Keys.ENTER)
        until(browser, lambda r: "Nine is fine" in [m[0] for m in log_messages(browser, r, log_name)], "Bo's reply in Ana's window")
        messages = log_messages(browser, tree(browser), log_name)
        assert [len(shown) for _, _, shown in messages] == [1, 0, 0, 1], f"Bo's reply does not start a group of its own: {messages}"
        assert all(len(read) == 1 for _, read, _ in messages), messages
        assert_accessible(browser, "chat: messages grouped, a time per group")
        shoot(browser, "icons-times")
    finally:
        bo.quit()


# MARK: - Message times in the renderer: gaps, days, pages and patches


@pytest.fixture
def harness():
    httpd, base = serve()
    driver = make_driver(width=820, height=1000)
    run = Run(driver, base)
    try:
        run.open("motion=0")
        yield run
    finally:
        driver.quit()
        httpd.shutdown()


def message(text, sender, at):
    return {"id": f"m-{text}", "kind": "message", "props": {"sender": sender, "text": text, "time": at}, "children": []}


def shown_times(r):
    """Per message text, whether its time shows; every message must be read with its own time."""
    messages = log_messages(r.d, tree(r.d), "Messages")
    expected = r.js("""
      const clock = new Intl.DateTimeFormat(undefined, {hour: "numeric", minute: "2-digit"});
      return Object.fromEntries(arguments[0].map(([text, at]) => [text, clock.format(at)]));""",
                    [[t, at] for t, at in r.times.items()])
    for text, read, _ in messages:
        assert read == [expected[text]], f"{text!r} is read with {read}, not its time {expected[text]!r}"
    return {text: bool(shown) for text, _, shown in messages}


def wait_for(r, probe, message):
    deadline = time.time() + 5
    last = None
    while time.time() < deadline:
        last = shown_times(r)
        if probe(last):
            return last
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {message}: {last}")


def test_groups_break_at_a_gap_and_a_new_day_and_follow_pages_and_patches(harness):
    r = harness
    # Today at 9:00, and the next day just after midnight, in the window's own time zone.
    nine, midnight = r.js("""const d = new Date(); d.setHours(9, 0, 0, 0);
      const m = new Date(d); m.setDate(m.getDate() + 1); m.setHours(0, 0, 0, 0);
      return [d.getTime(), m.getTime()];""")
    at = lambda minutes: nine + minutes * MINUTE  # noqa: E731
    first = [("Coffee?", "Ana", at(0)), ("At the corner", "Ana", at(2)), ("Sure", "Bo", at(3)),
             ("Running late", "Bo", at(20)), ("Five minutes", "Bo", at(23))]
    r.times = {text: when for text, _, when in first}
    r.js("""harness.server.patch([{op: "replace", id: "screen", node: {id: "screen", kind: "screen",
      props: {route: "chat"}, children: [{id: "log", kind: "messageList", props: {label: "Messages"},
      children: arguments[0]}]}}])""", [message(*m) for m in first])
    # A gap of 17 minutes starts a group, even from the same sender.
    assert wait_for(r, lambda s: len(s) == 5, "the conversation") == {
        "Coffee?": True, "At the corner": False, "Sure": True, "Running late": True, "Five minutes": False}

    # An earlier page at the top: its messages join Ana's group, whose time moves to its new first.
    earlier = [("Morning", "Ana", at(-2)), ("Free today?", "Ana", at(-1))]
    r.times.update({text: when for text, _, when in earlier})
    r.js("harness.server.patch(arguments[0].map((node, index) => ({op: 'insert', parent: 'log', index, node})))",
         [message(*m) for m in earlier])
    assert wait_for(r, lambda s: len(s) == 7, "the earlier page") == {
        "Morning": True, "Free today?": False, "Coffee?": False, "At the corner": False,
        "Sure": True, "Running late": True, "Five minutes": False}

    # Appended: one within 5 minutes of its group's first joins it, one 6 minutes after it starts
    # a group (though only 2 minutes after the message before); past midnight is a new day.
    later = [("Parking now", "Bo", at(24)), ("Inside", "Bo", at(26)), ("Late night", "Bo", midnight - 2 * MINUTE),
             ("New day", "Bo", midnight + MINUTE)]
    r.times.update({text: when for text, _, when in later})
    r.js("harness.server.patch(arguments[0].map((node, i) => ({op: 'insert', parent: 'log', index: 7 + i, node})))",
         [message(*m) for m in later])
    shown = wait_for(r, lambda s: len(s) == 11, "the appended messages")
    assert [shown[t] for t, _, _ in later] == [False, True, True, True], shown

    # The group's first removed: the next message heads the group and shows its time.
    r.js("harness.server.patch([{op: 'remove', id: 'm-Morning'}])")
    del r.times["Morning"]
    shown = wait_for(r, lambda s: "Morning" not in s, "the first message removed")
    assert shown["Free today?"] and not shown["Coffee?"], shown

    # A message's time changed: "Inside" now 1 minute after "Running late", so in its group.
    r.times["Inside"] = at(21)
    r.js("harness.server.patch([{op: 'set', id: 'm-Inside', props: {time: arguments[0]}}])", at(21))
    wait_for(r, lambda s: s["Inside"] is False, "the changed message in the group before it")
    r.collect_logs("times")
    assert r.console_errors == [], r.console_errors
