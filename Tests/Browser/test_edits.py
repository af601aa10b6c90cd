"""Editing a LootLogger item as a person does: money reads as money (grouped by thousands), the
Value field says it takes whole dollars, and a refused value's error belongs to its field and goes
as soon as the text it was about is changed (it used to stay until Enter).

Controls are found by their accessible names (labels, aria-label), as test_lootlogger.py does.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_lootlogger import button, connected, field, open_row, replace_text, rows, wait


def description(driver, element):
    """What assistive technology reads after a control's name: the texts its aria-describedby names."""
    ids = (element.get_attribute("aria-describedby") or "").split()
    return " ".join(driver.find_element(By.ID, i).text.strip() for i in ids)


def one_item(browser, server):
    browser.get(server.url + "/lootlogger")
    connected(browser)
    button(browser, "Add").click()
    wait(browser, lambda d: len(rows(d)) == 1, "the new item")
    open_row(browser)
    return wait(browser, lambda d: field(d, "Value"), "the Value field")


def test_money_is_grouped_by_thousands_and_the_value_field_says_whole_dollars(browser, server):
    value = one_item(browser, server)
    assert "whole dollars" in description(browser, value), description(browser, value)
    replace_text(value, "1250000", Keys.ENTER)
    wait(browser, lambda d: field(d, "Value").get_attribute("value") == "1250000"
         and field(d, "Value").get_attribute("aria-invalid") is None, "the value stored")
    # Typed as the list shows it, grouped, it is read the same.
    replace_text(field(browser, "Value"), "$1,250,001", Keys.ENTER)
    wait(browser, lambda d: field(d, "Value").get_attribute("value") == "1250001", "the grouped value stored")
    button(browser, "Back").click()
    wait(browser, lambda d: len(rows(d)) == 1 and "$1,250,001" in rows(d)[0].text, "the row's value, grouped")
    wait(browser, lambda d: "1 item — $1,250,001 total" in d.find_element(By.TAG_NAME, "main").text, "the total, grouped")


def test_a_refused_values_error_goes_when_the_text_changes_and_comes_back_if_refused_again(browser, server):
    value = one_item(browser, server)
    replace_text(value, "12.99", Keys.ENTER)
    wait(browser, lambda d: field(d, "Value").get_attribute("aria-invalid") == "true", "the error")
    assert "whole number" in description(browser, field(browser, "Value"))

    # One more keystroke: the text the error was about is gone, and so is the error.
    field(browser, "Value").send_keys(Keys.BACKSPACE)
    wait(browser, lambda d: field(d, "Value").get_attribute("aria-invalid") is None, "the error gone as the text changed")
    assert "whole number" not in browser.find_element(By.TAG_NAME, "main").text

    # Refused again, with the same words: shown again.
    field(browser, "Value").send_keys("9", Keys.ENTER)
    wait(browser, lambda d: field(d, "Value").get_attribute("aria-invalid") == "true", "the error again")

    # A good value: stored, no error.
    replace_text(field(browser, "Value"), "12", Keys.ENTER)
    wait(browser, lambda d: field(d, "Value").get_attribute("aria-invalid") is None
         and field(d, "Value").get_attribute("value") == "12", "the value accepted")
    assert "whole number" not in browser.find_element(By.TAG_NAME, "main").text


def alert_dialog(driver):
    found = [a for a in driver.find_elements(By.CSS_SELECTOR, "[role=alertdialog]") if a.is_displayed()]
    return found[0] if found else None


def title(driver):
    return driver.find_element(By.CSS_SELECTOR, ".ss-navbar-title").text.strip()


def test_back_with_a_refused_value_asks_before_discarding_it(browser, server):
    value = one_item(browser, server)
    name = title(browser)
    # Typed, then Back at once: the field commits as it loses focus, the store refuses, and Back
    # asks rather than dropping what was typed without a word.
    replace_text(value, "12.99")
    button(browser, "Back").click()
    dialog = wait(browser, alert_dialog, "the Discard changes? alert")
    assert "Discard changes?" in dialog.text and "“12.99” in Value was not saved" in dialog.text, dialog.text
    button(browser, "Keep Editing").click()
    wait(browser, lambda d: alert_dialog(d) is None, "the alert gone")
    assert title(browser) == name
    wait(browser, lambda d: field(d, "Value").get_attribute("value") == "12.99"
         and field(d, "Value").get_attribute("aria-invalid") == "true", "the refused text kept, with its error")

    button(browser, "Back").click()
    wait(browser, alert_dialog, "the alert again")
    button(browser, "Discard").click()
    wait(browser, lambda d: alert_dialog(d) is None and title(d) == "LootLogger", "back on the list")


def visible_buttons(driver, name):
    return [b for b in driver.find_elements(By.CSS_SELECTOR, "button")
            if (b.get_attribute("aria-label") or b.text.strip()) == name and b.is_displayed()]


def test_deleting_takes_two_steps_so_enter_pressed_twice_deletes_one_item(browser, server):
    browser.get(server.url + "/lootlogger")
    connected(browser)
    for count in (1, 2, 3):
        button(browser, "Add").click()
        wait(browser, lambda d, count=count: len(rows(d)) == count, f"item {count}")
    button(browser, "Edit").click()
    minus = wait(browser, lambda d: visible_buttons(d, "Delete…"), "the rows' minus buttons")[0]

    # The minus only shows the row's own Delete, and the focus goes there; nothing is deleted.
    minus.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.switch_to.active_element.text.strip() == "Delete", "the row's Delete, focused")
    assert len(rows(browser)) == 3
    # Enter again deletes that one item.
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait(browser, lambda d: len(rows(d)) == 2, "one item deleted")

    # The next row's minus, pressed with Enter: it shows that row's Delete, and deletes nothing.
    next_minus = wait(browser, lambda d: visible_buttons(d, "Delete…"), "the next minus")[0]
    next_minus.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.switch_to.active_element.text.strip() == "Delete", "the next row's Delete, focused")
    assert len(rows(browser)) == 2
    # Escape puts it away, the focus back on the minus.
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(browser, lambda d: not visible_buttons(d, "Delete")
         and d.switch_to.active_element.get_attribute("aria-label") == "Delete…", "the Delete put away")
    assert len(rows(browser)) == 2
