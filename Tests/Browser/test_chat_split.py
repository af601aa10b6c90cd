"""Chat's split view as UISplitViewController draws it.

- Each pane has its own navigation bar: the list "Chats" with Sign Out and New Conversation, the
  conversation its title and Open in New Window; in a narrow window one pane shows, with its bar.
- The open conversation's row is marked (aria-current, as the server says, and a tinted background).
- A bar without room folds its labelled buttons to icons (their labels stay their names), so the
  title is not cut: at 1280, 820 and 600 px wide.
- All of it passes axe in light and dark.

Screenshots go to $SCENESYNC_SCREENSHOTS when it is set.
"""
import os

from selenium.webdriver.common.by import By

from accessibility import assert_accessible
from test_chat import ana, bo, composer, open_conversation, row, send, sign_in, start_conversation  # noqa: F401
from test_lootlogger import settled, wait

SIZES = [(1280, 800), (820, 1180), (600, 800)]
WIDE = 720  # a split shows both panes from this width on (components/chat.js)


def pane(driver, name):
    """The split's pane `name` ("primary" or "secondary") on screen now."""
    return driver.execute_script("""
        return [...document.querySelectorAll('[data-kind=split] > [data-pane]')]
          .find((p) => p.dataset.pane === arguments[0] && p.hasAttribute('data-node-id')
                       && !p.closest('[data-leaving-node-id]')) ?? null;""", name)


def panes_shown(driver):
    """(list pane shown, detail pane shown), read at once."""
    return tuple(driver.execute_script("""
        const split = [...document.querySelectorAll('[data-kind=split]')].find((s) => !s.closest('[data-leaving-node-id]'));
        if (!split) return [null, null];
        return ['primary', 'secondary'].map((name) => {
          const p = split.querySelector(`:scope > [data-pane=${name}]`);
          return Boolean(p && p.getClientRects().length > 0);
        });"""))


def headings(driver, root):
    """The names of the headings shown in `root`."""
    return [h.text for h in root.find_elements(By.CSS_SELECTOR, "h1, h2, h3, [role=heading]")
            if h.is_displayed() and h.text]


def named_button(root, name):
    for b in root.find_elements(By.CSS_SELECTOR, "button"):
        if (b.get_attribute("aria-label") or b.text.strip()) == name and b.is_displayed():
            return b
    return None


def fits(driver, element):
    return driver.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth", element)


def bar_title(root):
    titles = [t for t in root.find_elements(By.CSS_SELECTOR, "[data-kind=paneBar] .ss-navbar-title") if t.is_displayed()]
    return titles[0] if titles else None


def shoot(driver, name):
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": scheme}, {"name": "prefers-reduced-motion", "value": "reduce"}]})
        settled(driver)
        driver.save_screenshot(os.path.join(out, f"{name}-{scheme}.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_each_pane_has_its_own_bar_the_open_row_is_marked_and_titles_fit(ana, bo, server):
    sign_in(ana, server, "Ana")
    sign_in(bo, server, "Bo")
    start_conversation(ana, "Weekend plans", "Bo")
    send(ana, "Hiking at nine?")
    start_conversation(ana, "Book club", "Bo")
    open_conversation(ana, "Weekend plans")

    for width, height in SIZES:
        ana.set_window_size(width, height)
        wide = width >= WIDE
        wait(ana, lambda d: panes_shown(d) == (wide, True), f"the panes at {width} px")
        settled(ana)
        detail = pane(ana, "secondary")
        # The conversation's pane: its own bar, with its title, whole.
        assert headings(ana, detail) == ["Weekend plans"], f"{width} px"
        title = bar_title(detail)
        assert fits(ana, title), f"the conversation's title is cut at {width} px"
        assert named_button(detail, "Open in New Window"), f"{width} px"
        if wide:
            # The list's pane beside it: "Chats", Sign Out and New Conversation in its own bar, and
            # the open conversation's row marked, the other not.
            listing = pane(ana, "primary")
            assert "Chats" in headings(ana, listing), f"{width} px"
            assert fits(ana, bar_title(listing)), f"the list's title is cut at {width} px"
            assert named_button(listing, "Sign Out") and named_button(listing, "New Conversation"), f"{width} px"
            assert named_button(detail, "Sign Out") is None
            current = row(ana, "Weekend plans").find_element(By.CSS_SELECTOR, ".ss-row-main")
            other = row(ana, "Book club").find_element(By.CSS_SELECTOR, ".ss-row-main")
            assert current.get_attribute("aria-current") == "true", f"{width} px"
            assert other.get_attribute("aria-current") is None
            colors = ana.execute_script("""
                return [...arguments].map((r) => getComputedStyle(r).backgroundColor);""",
                row(ana, "Weekend plans"), row(ana, "Book club"))
            assert colors[0] != colors[1], "the open conversation's row looks selected"
            # The window's own bar gives way to the panes'.
            assert not ana.find_element(By.CSS_SELECTOR, "[data-node-id=navigationBar]").is_displayed()
        else:
            # Collapsed: the conversation alone, its bar with a back button to the list.
            back = named_button(detail, "Back")
            assert back is not None
        assert_accessible(ana, f"chat split at {width} px")
        shoot(ana, f"chat-split-{width}")

    # Collapsed, Back goes to the list: "Chats" with Sign Out, and no row marked (none is open).
    named_button(pane(ana, "secondary"), "Back").click()
    wait(ana, lambda d: panes_shown(d) == (True, False), "the list alone")
    settled(ana)
    listing = pane(ana, "primary")
    assert headings(ana, listing) == ["Chats"]
    assert named_button(listing, "Sign Out") and named_button(listing, "New Conversation")
    assert fits(ana, bar_title(listing))
    wait(ana, lambda d: d.execute_script(
        "return document.querySelector('[data-kind=row][data-title=\"Weekend plans\"]:not([data-leaving-node-id]) .ss-row-main')"
        "?.getAttribute('aria-current')") is None, "no row marked on the list alone")
    assert_accessible(ana, "chat list at 600 px")
    shoot(ana, "chat-split-600-list")


def test_bar_buttons_sit_at_the_bars_edges_in_every_app(browser, server):
    """As in UIKit, and as Chat's pane bars: LootLogger's Edit at an edge of the window's bar, not
    at the edge of the centred content column."""
    from test_lootlogger import button, connected
    browser.set_window_size(1280, 800)
    browser.get(server.url + "/lootlogger")
    connected(browser)
    edit = button(browser, "Edit")
    left, right = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right]", edit)
    width = browser.execute_script("return document.documentElement.clientWidth")
    assert min(left, width - right) <= 16, f"Edit is {min(left, width - right):.0f} px from the bar's edges"
    shoot(browser, "lootlogger-1280")
