"""The dashboard (`/dashboard`) in real Chromium: a LootLogger window listed with its route and
state, followed live as it navigates; axe in light and dark on every dashboard screen; the
dashboard behind the access token; and, with SCENESYNC_TEST_POSTGRES_URL, two PostgreSQL nodes
both on one dashboard. With SCENESYNC_SCREENSHOTS set, the node screen is saved there as
dashboard-light.png and dashboard-dark.png."""
import os
import urllib.error
import urllib.request

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from accessibility import assert_accessible, assert_scheme
from conftest import chromium, save_screenshots
from test_lootlogger import button, connected, open_row, rows, settled, wait
from test_postgres_nodes import ADMIN_URL, database, two_nodes  # noqa: F401 (fixtures)


def session_of(driver, app):
    """The scene session of the window `driver` shows, as the page keeps it."""
    return driver.execute_script(f"return sessionStorage.getItem('scenesync.session.{app}')")


def hex_id(text):
    return text.encode().hex()


# The dashboard patches itself every second: read it in one script, not element by element, so
# that no element goes stale between two reads.
_ROW_TEXT = """
const row = document.querySelector(`[data-node-id="${arguments[0]}"]`);
if (!row || !row.offsetParent) return null;
const part = row.querySelector(`.ss-row-${arguments[1]}`);
return part ? part.textContent : null;
"""

_NODE_NAMES = """
return [...document.querySelectorAll('[data-kind=row][data-node-id^="node-"]')]
  .filter((row) => row.offsetParent).map((row) => row.getAttribute("data-title"));
"""


def row_text(driver, node_id, part):
    """A row's title, subtitle or detail as shown, or None without the row."""
    return driver.execute_script(_ROW_TEXT, node_id, part)


def choose(driver, title):
    """Clicks the row titled `title`, as a person picks a node or an app in the list."""
    settled(driver)

    def click(d):
        try:
            for row in rows(d):
                if row.get_attribute("data-title") == title and row.is_displayed():
                    row.find_element(By.CSS_SELECTOR, ".ss-row-main").click()
                    return True
        except StaleElementReferenceException:
            pass
        return False
    wait(driver, click, f"the row {title!r}")


def node_names(driver):
    return driver.execute_script(_NODE_NAMES)


def open_dashboard(driver, server):
    driver.get(server.url + "/dashboard")
    connected(driver)


def no_console_errors(*drivers):
    for driver in drivers:
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors


def test_a_lootlogger_window_is_listed_with_its_route_and_state_and_followed_live(browser, server):
    browser.get(server.url + "/lootlogger")
    connected(browser)
    loot = browser.current_window_handle
    session = session_of(browser, "lootlogger")
    row = "window-" + hex_id(session)

    dashboard = chromium()
    dashboard.implicitly_wait(0)
    try:
        open_dashboard(dashboard, server)
        wait(dashboard, lambda d: len(node_names(d)) == 1, "this node in the list")
        choose(dashboard, "LootLogger")
        wait(dashboard, lambda d: row_text(d, row, "title") == "items", "the LootLogger window, on its list")
        # The other browser's window is shown and focused: active.
        assert row_text(dashboard, row, "detail") == "Active"
        assert row_text(dashboard, row, "subtitle") == f"Session {session[:8]}"

        # The LootLogger window navigates: the dashboard follows, without a reload.
        dashboard.execute_script("window.__sameDocument = true")
        button(browser, "Add").click()
        wait(browser, lambda d: len(rows(d)) == 1, "the new item")
        open_row(browser)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-node-id=screen][data-route^='item/']"), "the item's detail")
        wait(dashboard, lambda d: (row_text(d, row, "title") or "").startswith("item/"), "the new route on the dashboard")
        assert dashboard.execute_script("return window.__sameDocument") is True, "patched live, not reloaded"
        # The app's log moved: its last sequence number is on the list.
        wait(dashboard, lambda d: (row_text(d, "app-lootlogger", "subtitle") or "").endswith("#1"), "the app's last sequence number")

        # Back to the list in the LootLogger window: the route goes back too.
        browser.switch_to.window(loot)
        button(browser, "Back").click()
        wait(dashboard, lambda d: row_text(d, row, "title") == "items", "the list route again")

        # The node screen lists the same window under LootLogger.
        choose(dashboard, node_names(dashboard)[0])
        wait(dashboard, lambda d: row_text(d, row, "title") == "items", "the window on the node's screen")
        no_console_errors(browser, dashboard)
    finally:
        dashboard.quit()


def test_a_reloaded_dashboard_comes_back_on_the_same_screen(browser, server):
    open_dashboard(browser, server)
    choose(browser, "Chat")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-node-id=app-windows]"), "Chat's windows")
    browser.refresh()
    connected(browser)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-node-id=app-windows]"), "Chat's windows again")
    assert browser.find_elements(By.CSS_SELECTOR, "[data-node-id=log-chat-sequence]")


def test_every_dashboard_screen_passes_axe_in_light_and_dark(browser, server):
    other = chromium()
    try:
        other.get(server.url + "/lootlogger")
        connected(other)
        button(other, "Add").click()
        open_dashboard(browser, server)
        wait(browser, lambda d: len(node_names(d)) == 1, "this node")
        assert_accessible(browser, "dashboard: overview")
        choose(browser, node_names(browser)[0])
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-node-id=node-windows]"), "the node's windows")
        assert_accessible(browser, "dashboard: a node")
        choose(browser, "LootLogger")
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-node-id=app-windows]"), "LootLogger's windows")
        assert_accessible(browser, "dashboard: an app")
        browser.set_window_size(500, 800)
        settled(browser)
        assert_accessible(browser, "dashboard: an app, narrow")
        button(browser, "Back").click()
        settled(browser)
        assert_accessible(browser, "dashboard: the list, narrow")
        no_console_errors(browser)
    finally:
        other.quit()


def test_a_nodes_windows_are_inset_in_the_detail_pane_and_pictured_light_and_dark(browser, server):
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    windows = [chromium() for _ in range(2)]
    dark = chromium("dark")
    try:
        for index, window in enumerate(windows):
            window.get(server.url + "/lootlogger")
            connected(window)
            button(window, "Add").click()
            if index == 1:
                wait(window, lambda d: len(rows(d)) >= 1)
                open_row(window)
        for driver, scheme in ((browser, "light"), (dark, "dark")):
            open_dashboard(driver, server)
            wait(driver, lambda d: len(node_names(d)) == 1, "this node")
            choose(driver, node_names(driver)[0])
            own = "window-" + hex_id(session_of(driver, "dashboard"))
            wait(driver, lambda d: (row_text(d, own, "title") or "").startswith("node/"), "the windows, this one on the node")
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
                {"name": "prefers-reduced-motion", "value": "reduce"}]})
            assert_scheme(driver, scheme)
            settled(driver)
            # The detail pane's lists are inset from its edges, as the list pane's are.
            inset = driver.execute_script("""
                const pane = document.querySelector('.ss-split > [data-pane="secondary"]').getBoundingClientRect();
                const rows = [...document.querySelectorAll('.ss-split > [data-pane="secondary"] .ss-row')].map((r) => r.getBoundingClientRect());
                return rows.length ? Math.min(...rows.map((r) => Math.min(r.left - pane.left, pane.right - r.right))) : null;""")
            assert inset is not None and inset >= 15, f"the detail pane's rows touch its edge: {inset}"
            if out:
                os.makedirs(out, exist_ok=True)
                driver.execute_script("document.activeElement && document.activeElement.blur()")
                save_screenshots(driver, out, f"dashboard-{scheme}.png")
    finally:
        for window in windows + [dark]:
            window.quit()


def test_behind_the_token_the_dashboard_shows_nothing_without_it(browser, start_server):
    server = start_server("--token", "s3cret")
    # The page is the generic renderer; its window is refused without the token.
    browser.get(server.url + "/dashboard")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-state]"), "the page")
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-node-id=nodes]"), "nothing drawn")
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-node-id^='node-']")
    # With the token, it is drawn.
    browser.get(server.url + "/dashboard?token=s3cret")
    connected(browser)
    wait(browser, lambda d: len(node_names(d)) == 1, "this node, with the token")


@pytest.mark.skipif(not ADMIN_URL, reason="set SCENESYNC_TEST_POSTGRES_URL (scripts/test-postgres start DIR prints one)")
def test_two_postgresql_nodes_are_both_on_the_dashboard_of_either(browser, two_nodes):
    a, b = two_nodes
    other = chromium()
    try:
        other.get(b.url + "/lootlogger")
        connected(other)
        session = session_of(other, "lootlogger")
        open_dashboard(browser, a)
        wait(browser, lambda d: node_names(d) == ["a", "b"], "both nodes on node a's dashboard")
        choose(browser, "b")
        wait(browser, lambda d: row_text(d, "window-" + hex_id(session), "title") == "items", "node b's LootLogger window")
        # Node b stops: it drops off node a's dashboard once it has not reported for a while.
        b.stop()
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-node-id=node-missing]"), "node b not reporting")
        wait(browser, lambda d: node_names(d) == ["a"], "node a alone")
    finally:
        other.quit()
