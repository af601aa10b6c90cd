"""LootLogger in two real browser windows, in step."""
import os
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

TIMEOUT = 15


def wait(driver, condition, message=""):
    # A patch may remove an element between finding it and reading it (a confirmation coming up
    # as the buttons are read): that look is taken again, as one that found nothing would be.
    return WebDriverWait(driver, TIMEOUT, ignored_exceptions=[StaleElementReferenceException]).until(condition, message)


def named(driver, role_selector, name):
    """The element matching `role_selector` whose accessible name (aria-label or text) is `name`."""
    for element in driver.find_elements(By.CSS_SELECTOR, role_selector):
        label = element.get_attribute("aria-label") or element.text.strip()
        if label == name and element.is_displayed():
            return element
    return None


def button(driver, name):
    return wait(driver, lambda d: named(d, "button, [role=button]", name), f"button {name!r}")


def field(driver, name):
    def find(d):
        for element in d.find_elements(By.CSS_SELECTOR, "input"):
            label = element.get_attribute("aria-label")
            if not label:
                labels = d.find_elements(By.CSS_SELECTOR, f"label[for='{element.get_attribute('id')}']")
                label = labels[0].text.strip() if labels else ""
            if label == name and element.is_displayed():
                return element
        return None
    return wait(driver, find, f"field {name!r}")


def replace_text(element, text, *keys):
    """Selects what the field holds and types over it, as a person does."""
    element.click()
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(text, *keys)


def settled(driver):
    """Waits until no animation runs, as a person waits to see a row before clicking it: a click
    aimed at a row that is still sliding in can land beside it."""
    wait(driver, lambda d: d.execute_script("return document.getAnimations().length") == 0, "animations to finish")
    return driver


def open_row(driver, index=0):
    settled(driver)
    rows(driver)[index].click()


def rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "[data-kind=row]")


def row_titles(driver):
    return [r.get_attribute("data-title") or r.find_element(By.CSS_SELECTOR, ".row-title").text for r in rows(driver)]


def connected(driver):
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-state=connected]"), "connected")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-node-id=navigationBar]"), "first render")


def open_two_windows(browser, server, other=None):
    """Two LootLogger windows: both on `server`, or the second on `other` (another node)."""
    browser.get(server.url + "/lootlogger")
    connected(browser)
    first = browser.current_window_handle
    browser.switch_to.new_window("window")
    browser.get((other or server).url + "/lootlogger")
    connected(browser)
    second = browser.current_window_handle
    return first, second


def test_an_item_added_in_one_window_appears_in_the_other(browser, server):
    first, second = open_two_windows(browser, server)
    browser.switch_to.window(first)
    button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 1, "the row in the first window")
    title = row_titles(browser)[0]
    browser.switch_to.window(second)
    wait(browser, lambda d: len(rows(d)) == 1, "the row in the second window")
    assert row_titles(browser) == [title]


def test_a_name_edited_in_one_window_changes_the_row_in_the_other(browser, server):
    first, second = open_two_windows(browser, server)
    browser.switch_to.window(first)
    button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 1)
    open_row(browser)
    # Enter keeps the focus in the field; the store trims the name. The field takes the stored
    # text as the answer to its own commit, not as a change from another window.
    replace_text(field(browser, "Name"), "  Rusty Spork  ", Keys.ENTER)
    wait(browser, lambda d: field(d, "Name").get_attribute("value") == "Rusty Spork", "the stored name in the field")
    assert browser.switch_to.active_element == field(browser, "Name")
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-changed-elsewhere=true]")
    browser.switch_to.window(second)
    wait(browser, lambda d: row_titles(d) == ["Rusty Spork"], "the renamed row in the second window")


def test_an_item_deleted_in_one_window_disappears_from_the_other(browser, server):
    first, second = open_two_windows(browser, server)
    browser.switch_to.window(first)
    button(browser, "Add").click()
    button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 2)
    browser.switch_to.window(second)
    wait(browser, lambda d: len(rows(d)) == 2)
    settled(browser)
    button(browser, "Edit").click()
    button(browser, "Done")
    remaining = row_titles(browser)[1]
    button(browser, "Delete…").click()
    button(browser, "Delete").click()
    wait(browser, lambda d: len(rows(d)) == 1)
    browser.switch_to.window(first)
    wait(browser, lambda d: row_titles(d) == [remaining], "the delete in the first window")


def test_an_invalid_value_shows_an_error_and_keeps_the_stored_value(browser, server):
    browser.get(server.url + "/lootlogger")
    connected(browser)
    button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 1)
    open_row(browser)
    value = field(browser, "Value")
    stored = value.get_attribute("value")
    replace_text(value, "abc", Keys.ENTER)
    wait(browser, lambda d: "whole number" in d.page_source, "the error next to the field")
    assert field(browser, "Value").get_attribute("aria-invalid") == "true"
    # Back asks before losing what was typed (test_edits.py tries both answers); Discard.
    button(browser, "Back").click()
    button(browser, "Discard").click()
    wait(browser, lambda d: len(rows(d)) == 1)
    detail = rows(browser)[0].get_attribute("data-detail") or rows(browser)[0].text
    assert f"${stored}" in detail


def test_a_reload_restores_the_detail_screen_with_its_draft(browser, server):
    browser.get(server.url + "/lootlogger")
    connected(browser)
    button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 1)
    open_row(browser)
    replace_text(field(browser, "Name"), "Rusty Sp")
    # The renderer sends the draft after a pause in typing; give it that pause before reloading.
    time.sleep(1.0)
    browser.refresh()
    connected(browser)
    wait(browser, lambda d: field(d, "Name").get_attribute("value") == "Rusty Sp", "the draft after reload")


def test_every_window_comes_back_where_it_was_after_a_server_restart(browser, server):
    browser.get(server.url + "/lootlogger")
    connected(browser)
    button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 1)
    open_row(browser)
    field(browser, "Serial Number")
    title = browser.find_element(By.CSS_SELECTOR, "[data-node-id=navigationBar] h1").text
    server.stop()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-state=reconnecting], [data-state=connecting]"),
         "the connection indicator shows the loss")
    server.start()
    connected(browser)
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-node-id=navigationBar] h1").text == title,
         "the detail screen after the restart")
    field(browser, "Serial Number")


def test_screenshots_light_and_dark(server):
    """Renders the list and detail screens in light and dark for the README."""
    from conftest import chromium, save_screenshots
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    for scheme in ("light", "dark"):
        driver = chromium(scheme)
        try:
            driver.get(server.url + "/lootlogger")
            connected(driver)
            if scheme == "light":
                for _ in range(4):
                    button(driver, "Add").click()
            wait(driver, lambda d: len(rows(d)) == 4)
            driver.execute_script("document.activeElement && document.activeElement.blur()")
            time.sleep(0.8)  # let the row animations finish before the picture
            if out:
                save_screenshots(driver, out, f"lootlogger-list-{scheme}.png")
            open_row(driver)
            field(driver, "Name")
            time.sleep(0.8)  # the push slides in
            if out:
                save_screenshots(driver, out, f"lootlogger-detail-{scheme}.png")
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            assert errors == [], errors
        finally:
            driver.quit()
