"""The widget page, /<app>/widget, in Chromium: the server's summary on a first visit; on later
visits the cached one in the first frame, drawn again only if it changed; every change live; and,
with the server stopped after a first visit, the cached summary with a stale mark."""
import json
import os
import time
import urllib.error
import urllib.request

from accessibility import assert_accessible
from conftest import Server, chromium, save_screenshots


def wait(driver, condition, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition(driver)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out; page text: " + driver.find_element("tag name", "body").text)


def lines(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#sw-lines dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent])")


def next_ready(driver):
    """The "Next ready" line's value, or "" while the page has not drawn its summary yet."""
    drawn = lines(driver)
    return drawn[1][1] if len(drawn) > 1 else ""


def drawings(driver):
    return int(driver.execute_script("return document.body.dataset.drawings || '0'"))


def order(server, ids):
    request = urllib.request.Request(server.url + "/order", data=json.dumps({"menuIds": ids}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    urllib.request.urlopen(request, timeout=5).read()


def test_the_page_follows_changes_and_draws_only_when_the_summary_changes(server, browser):
    browser.get(server.url + "/restaurant/widget")
    wait(browser, lambda d: lines(d) == [["In the order", "0 dishes"], ["Next ready", "Nothing in the kitchen"]])
    assert browser.find_element("id", "sw-title").text == "Restaurant"
    assert drawings(browser) == 1

    # Again: the cached summary is drawn at once, and the server's answer (304, then the same
    # summary on the live stream) draws nothing more.
    browser.get(server.url + "/restaurant/widget")
    first_frame = browser.execute_script("return document.getElementById('sw-title').textContent")
    assert first_frame == "Restaurant", "the cached summary is there as soon as the page is"
    time.sleep(1.0)
    assert drawings(browser) == 1

    order(server, [1, 2])
    wait(browser, lambda d: "Order 1 at " in next_ready(d))
    assert drawings(browser) == 2
    # A slower order does not change which is ready next: nothing is drawn.
    order(server, [1, 2, 3, 4, 5, 6])
    time.sleep(1.0)
    assert drawings(browser) == 2
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors


def test_with_the_server_stopped_after_a_first_visit_the_cached_summary_shows_marked_stale(browser):
    server = Server()
    server.start()
    url = server.url + "/lootlogger/widget"
    try:
        browser.get(url)
        wait(browser, lambda d: lines(d) == [["Items", "0"], ["Total value", "$0"], ["Most valuable", "—"]])
        assert browser.execute_script("return document.body.dataset.state") == "current"
        assert browser.find_element("id", "sw-status").text == ""
    finally:
        server.close()
    # The open page loses its live stream: the summary stays, marked stale.
    wait(browser, lambda d: d.execute_script("return document.body.dataset.state") == "stale")
    assert lines(browser)[0] == ["Items", "0"]
    # Opened again with the server gone: the page's files come from the browser's cache, and the
    # summary from its storage, marked stale with its age.
    browser.get("about:blank")
    browser.get(url)
    wait(browser, lambda d: d.execute_script("return document.body.dataset.state") == "stale")
    assert lines(browser) == [["Items", "0"], ["Total value", "$0"], ["Most valuable", "—"]]
    assert browser.find_element("id", "sw-status").text.startswith("Offline · from ")


def test_the_widget_page_is_accessible_and_pictured_in_light_and_dark(server):
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    order(server, [3, 5])
    for scheme in ("light", "dark"):
        driver = chromium(scheme)
        try:
            driver.get(server.url + "/restaurant/widget")
            wait(driver, lambda d: "Order 1 at " in next_ready(d))
            if scheme == "light":
                assert_accessible(driver, "restaurant widget")
            if out:
                save_screenshots(driver, out, f"widget-{scheme}.png")
        finally:
            driver.quit()


def test_an_app_without_a_widget_has_no_widget_page(server):
    try:
        urllib.request.urlopen(server.url + "/nosuchapp/widget", timeout=5)
        raise AssertionError("expected 404")
    except urllib.error.HTTPError as error:
        assert error.code == 404
