"""Small things a person meets, each in a real `scenesync` server and real headless Chromium, driven
through the accessibility tree as test_restaurant.py does: a control is found by its role and
accessible name, and pressed or typed into for real.

- Escape leaves a list's edit mode, as Done does; with a row's Delete shown, it only puts that away.
- Chat's Send button is disabled while the message holds only white space.
- Chat's sign-in name is one line: Enter (Shift+Enter too) signs in, and no line break goes in.
- A tab's badge is part of the tab's name: "Order, 1 item", not a bare "1".
- Taps made while the connection is down are not silent: the connection status says how many
  changes wait to be sent, and goes once they are.

With SCENESYNC_SCREENSHOTS set, the disabled Send button and the offline status are saved there in
light and dark (small-send-disabled-*.png, small-offline-*.png).
"""
import os
import time

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from accessibility import assert_accessible, assert_scheme, emulate
from conftest import chromium
from test_restaurant import (Node, add, back, element, find_tab, main, open_dish, open_restaurant, press, title,
                             tree, until, wait_connected)

# Reconnecting waits up to 10 s between tries (PROTOCOL.md, "Silence and reconnecting").
RECONNECT_TIMEOUT = 40


def type_into(driver, name, *keys):
    """Types `keys` into the text field named `name`, as a person does after clicking it."""
    field = element(driver, until(driver, lambda r: r.find("textbox", name), f"the text field {name!r}"))
    field.click()
    field.send_keys(*keys)
    return field


def key(driver, *keys):
    """Presses `keys` wherever the focus is."""
    ActionChains(driver).send_keys(*keys).perform()


def buttons(root, name):
    return root.find_all("button", name)


def banner(root):
    return root.find("banner")


def shoot(driver, name):
    """Saves the window in light and dark as `name`-light.png and `name`-dark.png when
    SCENESYNC_SCREENSHOTS is set (motion reduced, so nothing is caught half-way)."""
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    if not out:
        return
    try:
        for scheme in ("light", "dark"):
            emulate(driver, scheme)
            assert_scheme(driver, scheme)
            time.sleep(0.3)
            driver.save_screenshot(os.path.join(out, f"{name}-{scheme}.png"))
    finally:
        emulate(driver, "light")


def open_lootlogger(driver, server, items=0):
    driver.get(server.url + "/lootlogger")
    until(driver, lambda r: banner(r) and banner(r).find("button", "Add"), "LootLogger's list")
    wait_connected(driver)
    for count in range(1, items + 1):
        press(driver, "button", "Add", within=banner)
        until(driver, lambda r, count=count: len(main(r).find_all("listitem")) == count, f"item {count}")


# MARK: - Escape leaves edit mode


def test_escape_leaves_edit_mode_as_done_does_but_first_puts_a_shown_delete_away(browser, server):
    open_lootlogger(browser, server, items=2)
    press(browser, "button", "Edit", within=banner)
    until(browser, lambda r: banner(r).find("button", "Done") and len(buttons(main(r), "Delete…")) == 2, "edit mode")

    # Escape (the focus on Done, where pressing Edit left it) leaves edit mode.
    key(browser, Keys.ESCAPE)
    until(browser, lambda r: banner(r).find("button", "Edit") and not buttons(main(r), "Delete…"), "edit mode left")

    # In edit mode again, a row's minus shows its own Delete: Escape puts only that away.
    press(browser, "button", "Edit", within=banner)
    press(browser, "button", "Delete…", within=main)
    until(browser, lambda r: buttons(main(r), "Delete"), "the row's Delete")
    key(browser, Keys.ESCAPE)
    until(browser, lambda r: not buttons(main(r), "Delete"), "the row's Delete put away")
    time.sleep(0.5)  # time for a Done the Escape should not have pressed to come back
    root = tree(browser)
    assert banner(root).find("button", "Done") and len(buttons(main(root), "Delete…")) == 2, "still in edit mode"
    assert len(main(root).find_all("listitem")) == 2, "nothing deleted"

    # The next Escape, with nothing else to put away, leaves edit mode.
    key(browser, Keys.ESCAPE)
    until(browser, lambda r: banner(r).find("button", "Edit") and not buttons(main(r), "Delete…"), "edit mode left again")
    assert len(main(tree(browser)).find_all("listitem")) == 2


# MARK: - Chat: the sign-in name, the Send button


def sign_in(driver, server, name):
    driver.get(server.url + "/chat")
    until(driver, lambda r: title(r) == "Sign In" and r.find("textbox", "Your Name"), "the sign-in screen")
    wait_connected(driver)
    type_into(driver, "Your Name", name, Keys.ENTER)
    until(driver, lambda r: title(r) == "Chats", f"{name}'s conversations")


def test_the_sign_in_name_is_one_line_and_enter_signs_in(browser, server):
    browser.get(server.url + "/chat")
    field = until(browser, lambda r: r.find("textbox", "Your Name"), "the name field")
    wait_connected(browser)
    assert not field.properties.get("multiline"), "the name field takes several lines"
    # Shift+Enter would start a second line in a text area: here it signs in with the one line.
    type_into(browser, "Your Name", "Ana", Keys.SHIFT, Keys.ENTER, Keys.SHIFT, "Lee")
    until(browser, lambda r: title(r) == "Chats", "Ana signed in")


def ana_on_new_conversation(browser, server):
    """Bo signed up (in a browser of his own, closed since), Ana signed in on New Conversation."""
    bo = chromium()
    try:
        sign_in(bo, server, "Bo")
    finally:
        bo.quit()
    sign_in(browser, server, "Ana")
    press(browser, "button", "New Conversation")
    until(browser, lambda r: title(r) == "New Conversation", "the New Conversation screen")


def start_weekend_plans(browser):
    """From New Conversation: "Weekend plans" with Bo, started; returns on the conversation."""
    type_into(browser, "Title", "Weekend plans")
    type_into(browser, "Participants", "Bo")
    press(browser, "button", "Start", within=banner)
    until(browser, lambda r: title(r) == "Weekend plans" and r.find("textbox", "Message"), "the conversation")


def test_send_is_disabled_while_the_message_is_only_white_space(browser, server):
    ana_on_new_conversation(browser, server)
    start_weekend_plans(browser)

    def send_disabled(root):
        send = root.find("button", "Send")
        assert send is not None, "no Send button"
        return bool(send.properties.get("disabled"))

    assert send_disabled(tree(browser)), "Send is enabled with nothing to send"
    type_into(browser, "Message", "   ")
    time.sleep(0.3)
    assert send_disabled(tree(browser)), "Send is enabled for white space"
    shoot(browser, "small-send-disabled")
    assert_accessible(browser, "chat: Send disabled for white space")
    type_into(browser, "Message", "Hi")
    until(browser, lambda r: not send_disabled(r), "Send enabled with text")
    type_into(browser, "Message", Keys.CONTROL, "a", Keys.DELETE)
    until(browser, send_disabled, "Send disabled again once the text is gone")
    type_into(browser, "Message", "Hiking at nine?")
    press(browser, "button", "Send")
    until(browser, lambda r: "Hiking at nine?" in main(r).texts() and send_disabled(r), "the message sent, Send disabled again")


# MARK: - Tab badges


def test_a_tab_badge_is_part_of_the_tabs_name(browser, server):
    open_restaurant(browser, server)
    assert find_tab(tree(browser), "Order").name == "Order", "a tab without a badge is named by its label"
    open_dish(browser, "Desserts", "Ice Cream Sundae")
    add(browser, "Ice Cream Sundae")
    tab = until(browser, lambda r: r.find("tab", "Order, 1 item"), "the Order tab named with its badge")
    assert tab.description == "", f"the badge is read twice: {tab.description!r}"
    back(browser, to="Desserts")
    press(browser, "button", "Chocolate Layer Cake", within=main)
    until(browser, lambda r: title(r) == "Chocolate Layer Cake" and main(r).find("button", "Add to Order"), "the cake's detail")
    add(browser, "Chocolate Layer Cake")
    until(browser, lambda r: r.find("tab", "Order, 2 items"), "the Order tab with 2 items")
    assert_accessible(browser, "restaurant: a tab named with its badge")


# MARK: - Offline


def connection(root):
    """What the connection status says, or "" when it says nothing."""
    status = (root.find("complementary", "Connection") or Node({})).find("status")
    return " ".join(status.texts()) if status else ""


def test_taps_made_while_offline_say_they_wait_and_are_sent_when_the_connection_is_back(browser, server):
    open_lootlogger(browser, server)
    server.stop()
    until(browser, lambda r: "Reconnecting" in connection(r) or "Offline" in connection(r), "the connection lost")
    assert "will be sent" not in connection(tree(browser)), "nothing waits yet"

    press(browser, "button", "Add", within=banner)
    until(browser, lambda r: connection(r) == "Offline — 1 change will be sent when the connection is back", "one change waiting")
    press(browser, "button", "Add", within=banner)
    until(browser, lambda r: connection(r) == "Offline — 2 changes will be sent when the connection is back", "two changes waiting")
    assert not main(tree(browser)).find_all("listitem"), "nothing is added before the server says so"
    shoot(browser, "small-offline")
    assert_accessible(browser, "offline with changes waiting")

    server.start()
    try:
        WebDriverWait(browser, RECONNECT_TIMEOUT, poll_frequency=0.1).until(
            lambda d: len(main(tree(d)).find_all("listitem")) == 2 and connection(tree(d)) == "Connected")
    except TimeoutException:
        root = tree(browser)
        raise AssertionError(f"after the reconnect: {len(main(root).find_all('listitem'))} items, "
                             f"the status says {connection(root)!r}") from None
