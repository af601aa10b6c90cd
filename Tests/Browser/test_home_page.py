"""The home page as a person meets it: a launcher with a card for every app, each card a link by
the app's name, Restaurant's showing its widget summary as it is now (drawn by the server, so
there without script), readable in light and dark."""
import os

from selenium.webdriver.common.by import By

from accessibility import assert_accessible, emulate
from conftest import chromium, save_screenshots
from test_widget_page import order

APPS = ["LootLogger", "Restaurant", "Chat", "Dashboard"]


def links(driver):
    """Each link's accessible name (its text here) and where it goes."""
    return {a.text: a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a[href]")}


def card(driver, title):
    link = driver.find_element(By.LINK_TEXT, title)
    return link.find_element(By.XPATH, "ancestor::li[1]")


def widget_lines(driver, title):
    """The card's widget summary: [label, value] pairs."""
    terms = card(driver, title).find_elements(By.CSS_SELECTOR, "dl dt")
    return [[term.text, term.find_element(By.XPATH, "following-sibling::dd[1]").text] for term in terms]


def test_every_app_is_a_card_and_restaurants_shows_its_widget_summary(server, browser):
    browser.get(server.url + "/")
    found = links(browser)
    for title in APPS:
        assert title in found, found
    assert found["Restaurant"].endswith("/restaurant")
    lines = widget_lines(browser, "Restaurant")
    assert ["In the order", "0 dishes"] in lines, lines
    assert "Nothing in the kitchen" in dict(lines).get("Next ready", ""), lines
    assert "Open" in card(browser, "Restaurant").text
    # A card is one link: a click anywhere on it opens the app.
    rect = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.right - 12, r.bottom - 12]",
        card(browser, "LootLogger"))
    assert browser.execute_script(
        "return document.elementFromPoint(arguments[0], arguments[1]).closest('a')?.textContent", *rect) == "LootLogger"

    # An order placed elsewhere: the next visit shows it, at once.
    order(server, [1, 2])
    browser.refresh()
    lines = dict(widget_lines(browser, "Restaurant"))
    assert lines["Next ready"].startswith("Order 1"), lines


def test_the_home_page_is_accessible_and_pictured_in_light_and_dark(server):
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    for scheme in ("light", "dark"):
        driver = chromium(scheme)
        try:
            driver.get(server.url + "/")
            assert_accessible(driver, f"home page ({scheme})", schemes=(scheme,))
            # Nothing wider than the window, on a phone too.
            for width, height in ((1280, 800), (820, 1180), (390, 844)):
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
                assert driver.execute_script("return document.documentElement.scrollWidth") <= width, width
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            emulate(driver, scheme)
            save_screenshots(driver, out, f"home-{scheme}.png")
        finally:
            driver.quit()
