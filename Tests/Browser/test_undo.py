"""Undo of a delete in LootLogger: the notice after a delete offers Undo (its button, or Ctrl+Z
outside a text field), and the item comes back at its place in every window."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from test_lootlogger import button, open_two_windows, row_titles, rows, settled, wait


def delete_second_row(browser):
    settled(browser)
    button(browser, "Delete…")  # edit mode is on
    browser.find_elements("css selector", "[data-kind=row]")[1].find_element("xpath", ".//button[normalize-space(@aria-label)='Delete…' or normalize-space()='Delete…']").click()
    button(browser, "Delete").click()


def test_undo_puts_a_deleted_item_back_in_every_window(browser, server):
    first, second = open_two_windows(browser, server)
    browser.switch_to.window(first)
    for _ in range(3):
        button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 3, "three rows")
    before = row_titles(browser)
    button(browser, "Edit").click()

    delete_second_row(browser)
    wait(browser, lambda d: len(rows(d)) == 2, "the row gone")
    wait(browser, lambda d: f"“{before[1]}” deleted." in d.page_source, "the notice")
    button(browser, "Undo").click()
    wait(browser, lambda d: row_titles(d) == before, "the item back at its place")
    browser.switch_to.window(second)
    wait(browser, lambda d: row_titles(d) == before, "the item back in the other window")

    # Ctrl+Z, with the focus outside any text field, does the same.
    browser.switch_to.window(first)
    delete_second_row(browser)
    wait(browser, lambda d: len(rows(d)) == 2, "the row gone again")
    button(browser, "Undo")
    browser.execute_script("document.activeElement?.blur()")  # no text field has the focus
    ActionChains(browser).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    wait(browser, lambda d: row_titles(d) == before, "the item back after Ctrl+Z")
    wait(browser, lambda d: d.execute_script(
        "return ![...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'Undo' && b.checkVisibility())"),
        "the notice gone once used")
