"""Chat (/chat) end to end: a real `scenesync` server and real headless Chromium browsers.

Two people are two browsers: each `chromium()` starts with a fresh profile of its own, so its own
localStorage, so its own device id, and a device is signed in as one person. One person's windows
are windows of the same browser (`driver.switch_to.new_window("window")`), and all of them follow
that profile's sign-in.

What a window reports about itself matters for unread badges: a conversation counts as read only
while it is on screen in an *active* window (visible and focused), as the renderer tells the
server (`visibility`: `document.visibilityState` and `document.hasFocus()`). In headless Chromium
the browser's first window is visible and focused; a window the test opens with `new_window` is
visible but unfocused until something in it is clicked, after which both say they are focused. A
window the app opens (Open in New Window, `window.open`) becomes a tab of the same window: the tab
shown is visible and focused, the other hidden. So the tests only use what is certain: a person's
first window reads what it shows, and a tab the test has switched away from is hidden (the server's
log says so before anything is asserted about it).

The checks:

- a message Ana sends reaches Bo's window with Ana as its sender, and Bo's row counts it as
  unread until he opens the conversation;
- a conversation open only in a hidden tab stays unread until that tab shows;
- signing in signs in every window of that browser (one opened before, too), and no other browser;
  signing out signs them all out;
- "Ana is typing…" in Bo's window while Ana types, gone after a few idle seconds or when she sends;
- drafts per window: they survive a reload, two windows on one conversation keep their own, and a
  window closed for good takes its draft with it (the server discards its session);
- a long conversation opens on its newest 50 messages; scrolling up to "Load Earlier" loads the
  next page by itself, without moving what is being read;
- a window on a busy conversation keeps its newest 150 messages: the oldest leaves the page and the
  next heads its group; loading earlier lets the newest go, and "Show Newest Messages" brings them back;
- an empty message, one over 4,000 characters, and a conversation with an unknown person are
  refused with a message in the window that tried, and nothing reaches the other person;
- a wide window shows the list beside the conversation; a narrow one shows one pane at a time and
  Back goes from the conversation to the list;
- axe-core finds nothing on Chat's screens in light and dark; with SCENESYNC_SCREENSHOTS set, the
  split view is saved there as chat-split-light.png and chat-split-dark.png for the README.
"""
import json
import os
import sqlite3
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from accessibility import assert_accessible, assert_scheme
from conftest import chromium, save_screenshots
from test_lootlogger import TIMEOUT, button, connected, settled, wait

MESSAGES_PAGE = 50          # ChatLimits.pageSize
MESSAGES_SHOWN = 150        # ChatLimits.maximumMessagesShown
MAXIMUM_LENGTH = 4_000      # ChatLimits.maximumMessageLength
TYPING_TIMEOUT = 5          # ConversationScreen.typingTimeout, seconds
CLOSING_GRACE = 5           # the server's closingGracePeriod, seconds
SESSION_KEY = "scenesync.session.chat"  # sessionStorage: the window's session id


# MARK: - Browsers


@pytest.fixture
def ana():
    driver = chromium()
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


@pytest.fixture
def bo():
    driver = chromium()
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def open_chat(driver, server):
    driver.get(server.url + "/chat")
    connected(driver)


def new_window(driver, server):
    """Another window of the same browser (the same person), on Chat; returns its handle."""
    driver.switch_to.new_window("window")
    open_chat(driver, server)
    return driver.current_window_handle


def has_focus(driver):
    return driver.execute_script("return document.hasFocus()")


# MARK: - What a window shows


def live(driver, selector):
    """Elements matching `selector` that are on screen now (not animating out)."""
    return [e for e in driver.find_elements(By.CSS_SELECTOR, selector)
            if e.get_attribute("data-node-id") is not None]


def title(driver):
    """The title of the bar shown: the window's navigation bar's or, where a split shows its panes'
    bars in its place, the last pane's bar shown with a title (the conversation's, beside the list).
    Not a screen's animating out."""
    return driver.execute_script("""
        const shown = [...document.querySelectorAll('[data-kind=navigationBar] h1, [data-kind=paneBar] h1')]
          .filter((t) => t.getClientRects().length > 0 && t.textContent && !t.closest('[data-leaving-node-id]'));
        return shown.length ? shown[shown.length - 1].textContent : null;""")


def textbox(driver, name):
    """The text field or text area whose accessible name (aria-label or <label>) is `name`."""
    def find(d):
        for element in d.find_elements(By.CSS_SELECTOR, "input, textarea"):
            label = element.get_attribute("aria-label")
            if not label and element.get_attribute("id"):
                labels = d.find_elements(By.CSS_SELECTOR, f"label[for='{element.get_attribute('id')}']")
                label = labels[0].text.strip() if labels else ""
            if label == name and element.is_displayed() and not d.execute_script(
                    "return Boolean(arguments[0].closest('[data-leaving-node-id]'))", element):
                return element
        return None
    return wait(driver, find, f"a text field named {name!r}")


def composer(driver):
    return textbox(driver, "Message")


def field_error(driver, name):
    """The error shown under the text field named `name` (the first text its aria-describedby
    names while it is aria-invalid), or None."""
    field = textbox(driver, name)
    if field.get_attribute("aria-invalid") != "true":
        return None
    ids = (field.get_attribute("aria-describedby") or "").split()
    return driver.find_element(By.ID, ids[0]).text if ids else None


def composer_error(driver):
    """The error the composer shows (role alert), or None."""
    found = driver.find_elements(By.CSS_SELECTOR, "[data-node-id=composer] .ss-composer-error")
    return found[0].text if found and found[0].is_displayed() else None


def messages(driver):
    """(sender, text) of every message in the list, oldest first."""
    return [(m.find_element(By.CSS_SELECTOR, ".ss-message-sender").get_attribute("textContent"),
             m.find_element(By.CSS_SELECTOR, ".ss-message-text").get_attribute("textContent"))
            for m in live(driver, "[data-kind=message]")]


def message_texts(driver):
    return driver.execute_script("""
        return [...document.querySelectorAll('[data-node-id][data-kind=message] .ss-message-text')]
          .map((e) => e.textContent);""")


def typing_line(driver):
    found = live(driver, "[data-node-id=typing]")
    return found[0].text if found else None


def rows(driver):
    return live(driver, "[data-kind=row]")


def row(driver, name):
    found = [r for r in rows(driver) if r.get_attribute("data-title") == name]
    return found[0] if found else None


def unread(driver, name):
    """What the row named `name` says of its unread messages to assistive technology ("2 unread"),
    or None without a badge (or without the row)."""
    r = row(driver, name)
    if r is None:
        return None
    return driver.execute_script("""
        const badge = arguments[0].querySelector('.ss-row-badge');
        return badge && !badge.hidden ? badge.querySelector('.ss-visually-hidden').textContent : null;""", r)


def subtitle(driver, name):
    r = row(driver, name)
    return r.find_element(By.CSS_SELECTOR, ".ss-row-subtitle").text if r else None


def toasts(driver):
    return [t.text for t in driver.find_elements(By.CSS_SELECTOR, ".ss-toast")]


def shown(element):
    return element.is_displayed() and element.size["width"] > 0


# MARK: - What a person does


def sign_in(driver, server, name):
    open_chat(driver, server)
    wait(driver, lambda d: title(d) == "Sign In", "the sign-in screen")
    textbox(driver, "Your Name").send_keys(name, Keys.ENTER)
    wait(driver, lambda d: title(d) == "Chats", f"{name}'s conversations")


def start_conversation(driver, name, participants):
    """New Conversation, the title and the participants typed, Start: returns on the conversation."""
    settled(driver)
    button(driver, "New Conversation").click()
    wait(driver, lambda d: title(d) == "New Conversation", "the New Conversation screen")
    settled(driver)
    textbox(driver, "Title").send_keys(name)
    textbox(driver, "Participants").send_keys(participants)
    button(driver, "Start").click()
    wait(driver, lambda d: title(d) == name, f"the conversation {name!r}")
    composer(driver)


def open_conversation(driver, name):
    wait(driver, lambda d: row(d, name), f"the row {name!r}")
    settled(driver)
    row(driver, name).find_element(By.CSS_SELECTOR, ".ss-row-main").click()
    wait(driver, lambda d: title(d) == name, f"the conversation {name!r}")
    composer(driver)


def send(driver, text):
    """Types `text` into the composer and presses Enter; waits until the field is empty again (the
    server's answer), as a person waits before typing the next one."""
    field = composer(driver)
    field.send_keys(text, Keys.ENTER)
    wait(driver, lambda d: composer(d).get_attribute("value") == "", f"the composer cleared after sending {text[:20]!r}")


def a_conversation(ana, bo, server, name="Weekend plans"):
    """Ana and Bo signed in, each in their own browser, and both on a conversation Ana started."""
    sign_in(ana, server, "Ana")
    sign_in(bo, server, "Bo")
    start_conversation(ana, name, "Bo")
    open_conversation(bo, name)


def no_console_errors(*drivers):
    for d in drivers:
        errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == [], errors


# MARK: - The server's data


def server_log(server):
    """Everything the server logged so far."""
    server.log.flush()
    with open(os.path.join(server.data, "server.log"), "rb") as f:
        return f.read().decode(errors="replace")


def drafts(server):
    """Every draft the server keeps (its `sceneDraft` table): {(session id, key): text}. A key names
    the screen and the field ("conversation/<id>#composer-<person>", say); a value is JSON."""
    db = sqlite3.connect(f"file:{os.path.join(server.data, 'chat.sqlite')}?mode=ro", uri=True)
    try:
        return {(s, k): json.loads(bytes(v)) for s, k, v in db.execute("SELECT sessionId, key, value FROM sceneDraft")}
    finally:
        db.close()


def drafts_of(server, session):
    return {k: v for (s, k), v in drafts(server).items() if s == session}


def saved(driver, server, session, text):
    """Waits until the window's draft (sent after a pause in typing) is `text` on the server."""
    wait(driver, lambda d: list(drafts_of(server, session).values()) == [text], f"the draft {text!r} saved")


# MARK: - Two people


def test_a_message_ana_sends_reaches_bo_unread_until_he_opens_it(ana, bo, server):
    sign_in(ana, server, "Ana")
    sign_in(bo, server, "Bo")
    wait(bo, lambda d: "No Conversations" in d.page_source, "Bo's empty list")
    start_conversation(ana, "Weekend plans", "Bo")
    # Bo's list gets the conversation by itself, with nothing in it yet.
    wait(bo, lambda d: subtitle(d, "Weekend plans") == "No messages yet", "the new conversation in Bo's list")
    assert unread(bo, "Weekend plans") is None

    send(ana, "Are we still on for Saturday?")
    wait(ana, lambda d: messages(d) == [("Ana", "Are we still on for Saturday?")], "the message in Ana's window")
    assert "ss-mine" in live(ana, "[data-kind=message]")[0].get_attribute("class")
    wait(bo, lambda d: unread(d, "Weekend plans") == "1 unread", "the unread badge in Bo's list")
    assert subtitle(bo, "Weekend plans") == "Ana: Are we still on for Saturday?"
    send(ana, "Hiking at nine?")
    wait(bo, lambda d: unread(d, "Weekend plans") == "2 unread", "two unread in Bo's list")

    # Bo's window is his browser's first, so it is the focused one: opening the conversation there
    # reads it.
    assert has_focus(bo)
    open_conversation(bo, "Weekend plans")
    wait(bo, lambda d: messages(d) == [("Ana", "Are we still on for Saturday?"), ("Ana", "Hiking at nine?")],
         "Ana's messages in Bo's window")
    assert not any("ss-mine" in m.get_attribute("class") for m in live(bo, "[data-kind=message]"))
    wait(bo, lambda d: row(d, "Weekend plans") and unread(d, "Weekend plans") is None, "the badge gone once Bo reads")

    # Bo answers: Ana, who has the conversation open in her focused window, gets no badge.
    send(bo, "Yes! See you at the trailhead.")
    wait(ana, lambda d: messages(d)[-1:] == [("Bo", "Yes! See you at the trailhead.")], "Bo's answer in Ana's window")
    assert subtitle(ana, "Weekend plans") == "Bo: Yes! See you at the trailhead."
    assert unread(ana, "Weekend plans") is None
    no_console_errors(ana, bo)


def test_a_conversation_open_only_in_a_hidden_tab_stays_unread_until_the_tab_shows(ana, bo, server):
    sign_in(ana, server, "Ana")
    sign_in(bo, server, "Bo")
    start_conversation(ana, "Weekend plans", "Bo")
    # Bo opens the conversation in a window of its own (the row's Open in New Window); headless
    # Chromium makes it a tab of his window. He goes back to the list's tab: the conversation's
    # tab is hidden, and its window says so.
    list_window = bo.current_window_handle
    wait(bo, lambda d: row(d, "Weekend plans"), "the conversation in Bo's list")
    settled(bo)
    more = row(bo, "Weekend plans").find_element(By.CSS_SELECTOR, "[aria-label='More actions']")
    more.click()
    wait(bo, lambda d: more.get_attribute("aria-expanded") == "true", "the row's menu")
    button(bo, "Open in New Window").click()
    wait(bo, lambda d: len(d.window_handles) == 2, "the new window")
    conversation_window = next(h for h in bo.window_handles if h != list_window)
    bo.switch_to.window(conversation_window)
    connected(bo)
    wait(bo, lambda d: title(d) == "Weekend plans", "the conversation in its own window")
    composer(bo)
    hidden_session = bo.execute_script(f"return sessionStorage.getItem('{SESSION_KEY}')")
    seen = len(server_log(server))
    bo.switch_to.window(list_window)
    assert bo.execute_script("return document.visibilityState") == "visible"
    wait(bo, lambda d: f"scene.id={hidden_session} [SceneSync] didEnterBackground" in server_log(server)[seen:],
         "the conversation's tab reported hidden")

    send(ana, "Anyone there?")
    wait(bo, lambda d: unread(d, "Weekend plans") == "1 unread", "unread: the conversation is only in a hidden tab")
    # Bo shows the conversation's tab: now he has read it, in every window.
    bo.switch_to.window(conversation_window)
    wait(bo, lambda d: messages(d) == [("Ana", "Anyone there?")], "the message in the conversation's tab")
    wait(bo, lambda d: row(d, "Weekend plans") and unread(d, "Weekend plans") is None, "read once its tab shows")
    bo.switch_to.window(list_window)
    wait(bo, lambda d: row(d, "Weekend plans") and unread(d, "Weekend plans") is None, "read in the list's tab too")
    no_console_errors(ana, bo)


def test_signing_in_signs_in_every_window_of_that_browser_and_no_other(ana, bo, server):
    open_chat(ana, server)
    first = ana.current_window_handle
    second = new_window(ana, server)
    open_chat(bo, server)
    for d in (ana, bo):
        wait(d, lambda d: title(d) == "Sign In", "the sign-in screen")
    ana.switch_to.window(first)
    textbox(ana, "Your Name").send_keys("Ana", Keys.ENTER)
    wait(ana, lambda d: title(d) == "Chats", "Ana's list in the window she signed in from")
    ana.switch_to.window(second)
    wait(ana, lambda d: title(d) == "Chats", "Ana's list in her other window, without a reload")
    assert "Signed in as Ana." in ana.page_source
    # Another browser is another person: Bo still sees Sign In, now and after a reload.
    assert title(bo) == "Sign In"
    bo.refresh()
    connected(bo)
    assert title(bo) == "Sign In"
    # Signing out in one window signs out all of the browser's.
    settled(ana)
    button(ana, "Sign Out").click()
    wait(ana, lambda d: title(d) == "Sign In", "signed out in the second window")
    ana.switch_to.window(first)
    wait(ana, lambda d: title(d) == "Sign In", "signed out in the first window too")
    no_console_errors(ana, bo)


def test_bo_sees_ana_typing_until_she_pauses_or_sends(ana, bo, server):
    a_conversation(ana, bo, server)
    composer(ana).send_keys("Running a bit")
    wait(bo, lambda d: typing_line(d) == "Ana is typing…", "Ana is typing… in Bo's window")
    appeared = time.monotonic()
    assert typing_line(ana) is None  # not to herself
    # Ana stops typing: the line goes by itself after a few idle seconds, not at once.
    time.sleep(2)
    assert typing_line(bo) == "Ana is typing…"
    wait(bo, lambda d: typing_line(d) is None, "the typing line gone after Ana's pause")
    idle = time.monotonic() - appeared
    assert TYPING_TIMEOUT - 1.5 <= idle <= TYPING_TIMEOUT + 5, f"the typing line went after {idle:.1f} s"

    # She types again, and sends: the message and the typing line's end come together.
    composer(ana).send_keys(" late, sorry")
    wait(bo, lambda d: typing_line(d) == "Ana is typing…", "Ana is typing… again")
    composer(ana).send_keys(Keys.ENTER)
    wait(bo, lambda d: messages(d) == [("Ana", "Running a bit late, sorry")], "the message in Bo's window")
    assert typing_line(bo) is None, "the typing line outlived the message it announced"
    no_console_errors(ana, bo)


# MARK: - Drafts


def test_drafts_survive_a_reload_stay_apart_per_window_and_go_with_a_closed_window(ana, bo, server):
    a_conversation(ana, bo, server)
    first = ana.current_window_handle
    first_session = ana.execute_script(f"return sessionStorage.getItem('{SESSION_KEY}')")

    # A reload keeps the draft.
    composer(ana).send_keys("Half a thought")
    saved(ana, server, first_session, "Half a thought")
    ana.refresh()
    connected(ana)
    wait(ana, lambda d: composer(d).get_attribute("value") == "Half a thought", "the draft after a reload")

    # A second window on the same conversation starts with an empty composer, and keeps its own.
    settled(ana)
    button(ana, "Open in New Window").click()
    wait(ana, lambda d: len(d.window_handles) == 2, "the new window")
    second = next(h for h in ana.window_handles if h != first)
    ana.switch_to.window(second)
    connected(ana)
    wait(ana, lambda d: title(d) == "Weekend plans", "the second window on the conversation")
    assert composer(ana).get_attribute("value") == ""
    second_session = ana.execute_script(f"return sessionStorage.getItem('{SESSION_KEY}')")
    assert second_session and second_session != first_session
    composer(ana).send_keys("Other words")
    saved(ana, server, second_session, "Other words")
    ana.refresh()
    connected(ana)
    wait(ana, lambda d: composer(d).get_attribute("value") == "Other words", "the second window's own draft")
    ana.switch_to.window(first)
    ana.refresh()
    connected(ana)
    wait(ana, lambda d: composer(d).get_attribute("value") == "Half a thought", "the first window's draft, untouched")
    # Nothing reached Bo: a draft is not a message.
    assert messages(bo) == []
    assert list(drafts_of(server, second_session).values()) == ["Other words"], drafts(server)

    # The second window closes for good (its tab closed): the server discards its session, draft
    # and all, once the few seconds a reload would have had are over.
    ana.switch_to.window(second)
    ana.close()
    ana.switch_to.window(first)
    wait_for_log = time.monotonic() + CLOSING_GRACE + TIMEOUT
    while f"scene.id={second_session} [SceneSync] didDiscardSceneSession" not in server_log(server):
        assert time.monotonic() < wait_for_log, "the closed window's session was not discarded:\n" + server.log_text()
        time.sleep(0.25)
    kept = drafts(server)
    assert drafts_of(server, second_session) == {}, kept
    assert list(drafts_of(server, first_session).values()) == ["Half a thought"], kept

    # Reopening the closed tab (its sessionStorage restored, as Chromium's "reopen closed tab"
    # does) finds a fresh window: not the conversation, and no draft.
    ana.switch_to.new_window("window")
    ana.get(server.url + "/")
    ana.execute_script(f"sessionStorage.setItem('{SESSION_KEY}', arguments[0])", second_session)
    ana.get_log("browser")  # the home page has no icon: Chromium's 404 for /favicon.ico is not Chat's
    open_chat(ana, server)
    wait(ana, lambda d: title(d) == "Chats", "a fresh window on Ana's list")
    assert "Other words" not in ana.page_source
    assert "Other words" not in drafts(server).values()
    no_console_errors(ana, bo)


# MARK: - Long conversations


def test_a_long_conversation_loads_earlier_pages_as_they_scroll_into_view(ana, bo, server):
    count = 2 * MESSAGES_PAGE + 10
    sign_in(ana, server, "Ana")
    sign_in(bo, server, "Bo")
    start_conversation(ana, "Long one", "Bo")
    for n in range(1, count + 1):
        send(ana, f"Message {n}")
    wait(ana, lambda d: len(message_texts(d)) == count, "every message in Ana's window")

    open_conversation(bo, "Long one")
    texts = message_texts(bo)
    assert texts == [f"Message {n}" for n in range(count - MESSAGES_PAGE + 1, count + 1)], texts
    log = live(bo, "[data-kind=messageList]")[0]
    # The list opens at the bottom, on the newest message.
    assert bo.execute_script("const l = arguments[0]; return l.scrollHeight - l.scrollTop - l.clientHeight", log) < 2
    button(bo, "Load Earlier")  # first in the list, above the view

    # Scrolled up to the top, the button comes into view and taps itself: the next page comes in
    # above, and the message that was first stays where the scroll left it, at the top of the view
    # below the button, instead of being pushed down by the page (which would also bring the
    # button back into view and load every page in a row).
    reading = f"Message {count - MESSAGES_PAGE + 1}"
    at_top = message_top(bo, log, reading) + scroll_top(bo, log)  # where it shows when scrolled to the top
    ActionChains(bo).scroll_from_origin(ScrollOrigin.from_element(log), 0, -10_000).perform()
    wait(bo, lambda d: len(message_texts(d)) >= 2 * MESSAGES_PAGE, "the second page")
    assert abs(message_top(bo, log, reading) - at_top) < 2, \
        f"{reading} moved from {at_top} to {message_top(bo, log, reading)} px when the page came in"
    time.sleep(1)
    assert len(message_texts(bo)) == 2 * MESSAGES_PAGE, "the third page loaded without being scrolled to"
    assert message_texts(bo) == [f"Message {n}" for n in range(count - 2 * MESSAGES_PAGE + 1, count + 1)]
    assert button(bo, "Load Earlier")

    # Up again: the last page, and no button any more.
    ActionChains(bo).scroll_from_origin(ScrollOrigin.from_element(log), 0, -100_000).perform()
    wait(bo, lambda d: len(message_texts(d)) == count, "the last page")
    assert message_texts(bo) == [f"Message {n}" for n in range(1, count + 1)]
    wait(bo, lambda d: not live(d, "[data-node-id=load-earlier]"), "Load Earlier gone with nothing left to load")
    no_console_errors(ana, bo)


def test_a_window_on_a_busy_conversation_keeps_its_newest_messages_and_shows_the_newest_again(ana, bo, server):
    count = MESSAGES_SHOWN + 1
    a_conversation(ana, bo, server, "Busy one")
    for n in range(1, count + 1):
        send(ana, f"Message {n}")
    wait(bo, lambda d: message_texts(d)[-1:] == [f"Message {count}"], "the last message in Bo's window")

    # The oldest left the page, and the next one heads Ana's group now: her name and time show on it.
    wait(bo, lambda d: message_texts(d) == [f"Message {n}" for n in range(2, count + 1)], "the newest messages only")
    def first_heads_the_group(driver):
        messages = live(driver, "[data-kind=message]")
        first = messages[0]
        return ("ss-continued" not in first.get_attribute("class").split()
                and first.find_element(By.CSS_SELECTOR, ".ss-message-sender").is_displayed()
                and first.find_element(By.CSS_SELECTOR, ".ss-message-time").is_displayed()
                and all("ss-continued" in m.get_attribute("class").split() for m in messages[1:]))

    # The message let go of may still be on its way out of the page while this is read.
    WebDriverWait(bo, TIMEOUT, ignored_exceptions=[StaleElementReferenceException]).until(
        first_heads_the_group, "message 2 heads Ana's group, with her name and time")

    # Up to the top: the message let go of loads again, the newest leaves, and Show Newest Messages
    # brings the newest page back.
    log = live(bo, "[data-kind=messageList]")[0]
    ActionChains(bo).scroll_from_origin(ScrollOrigin.from_element(log), 0, -100_000).perform()
    wait(bo, lambda d: message_texts(d)[:1] == ["Message 1"], "the earliest message again")
    assert message_texts(bo) == [f"Message {n}" for n in range(1, MESSAGES_SHOWN + 1)]
    button(bo, "Show Newest Messages").click()
    wait(bo, lambda d: message_texts(d) == [f"Message {n}" for n in range(count - MESSAGES_PAGE + 1, count + 1)],
         "the newest page")
    wait(bo, lambda d: not live(d, "[data-node-id=show-newest]"), "Show Newest Messages gone")
    send(ana, "And one more")
    wait(bo, lambda d: message_texts(d)[-1:] == ["And one more"], "a new message shows below")
    no_console_errors(ana, bo)


def scroll_top(driver, log):
    return driver.execute_script("return arguments[0].scrollTop", log)


def message_top(driver, log, text):
    """Where the message saying `text` starts, from the top of the message list's view (px)."""
    return driver.execute_script("""
        const [log, text] = arguments;
        const message = [...log.querySelectorAll('[data-kind=message]')]
          .find((m) => m.querySelector('.ss-message-text').textContent === text);
        return message.getBoundingClientRect().top - log.getBoundingClientRect().top;""", log, text)


# MARK: - Bad input


def test_bad_input_is_refused_in_the_window_that_sent_it_and_nothing_reaches_bo(ana, bo, server):
    a_conversation(ana, bo, server)
    field = composer(ana)
    field.send_keys("   ", Keys.ENTER)
    wait(ana, lambda d: composer_error(d) == "Type a message first.", "the empty message refused")
    assert composer(ana).get_attribute("aria-invalid") == "true"

    too_long = "x" * (MAXIMUM_LENGTH + 1)
    ana.execute_script("""
        const [field, text] = arguments;
        field.value = text;
        field.dispatchEvent(new Event('input', {bubbles: true}));""", composer(ana), too_long)
    composer(ana).send_keys(Keys.ENTER)
    wait(ana, lambda d: composer_error(d) == f"This message is {MAXIMUM_LENGTH + 1} characters long; "
                                             f"at most {MAXIMUM_LENGTH} can be sent.", "the long message refused")
    assert composer(ana).get_attribute("value") == too_long, "a refused message must stay in the field"
    assert messages(ana) == [] and messages(bo) == []
    assert composer_error(bo) is None

    # What comes next does go through, and is the only message either window shows.
    composer(ana).send_keys(Keys.CONTROL, "a")
    composer(ana).send_keys(Keys.DELETE)
    send(ana, "ok")
    wait(bo, lambda d: messages(d) == [("Ana", "ok")], "the good message in Bo's window")
    assert messages(ana) == [("Ana", "ok")]

    # A conversation with someone no one has heard of is refused too, in Ana's window only.
    settled(ana)
    button(ana, "New Conversation").click()
    wait(ana, lambda d: title(d) == "New Conversation", "the New Conversation screen")
    settled(ana)
    textbox(ana, "Title").send_keys("Secret")
    textbox(ana, "Participants").send_keys("Bo, Zed")
    button(ana, "Start").click()
    wait(ana, lambda d: field_error(d, "Participants") == "No one here is called “Zed”.", "the unknown participant refused")
    assert title(ana) == "New Conversation" and toasts(ana) == []
    assert [r.get_attribute("data-title") for r in rows(bo)] == ["Weekend plans"]
    assert toasts(bo) == []
    no_console_errors(ana, bo)


# MARK: - Split view


def panes(driver):
    """(list shown, detail shown) of the split view."""
    split = live(driver, "[data-kind=split]")[0]
    primary = split.find_element(By.CSS_SELECTOR, ":scope > [data-pane=primary]")
    secondary = split.find_element(By.CSS_SELECTOR, ":scope > [data-pane=secondary]")
    return shown(primary), shown(secondary)


def back_button(driver):
    return driver.execute_script("""
        return [...document.querySelectorAll('[data-kind=navigationBar] .ss-back, [data-kind=paneBar] .ss-back')]
          .find((b) => b.getClientRects().length > 0 && !b.closest('[data-leaving-node-id]')) ?? null;""")


def test_a_wide_window_shows_list_and_conversation_a_narrow_one_navigates(ana, bo, server):
    sign_in(ana, server, "Ana")
    sign_in(bo, server, "Bo")
    start_conversation(ana, "Weekend plans", "Bo")
    send(ana, "Side by side?")
    # Wide (the default 1024 px). Bo's list: beside it, nothing selected.
    wait(bo, lambda d: row(d, "Weekend plans"), "the conversation in Bo's list")
    assert panes(bo) == (True, True)
    assert bo.find_element(By.XPATH, "//*[text()='No Conversation Selected']").is_displayed()
    # Ana's conversation: the list beside it, and no Back.
    assert panes(ana) == (True, True)
    assert row(ana, "Weekend plans").is_displayed() and composer(ana).is_displayed()
    assert back_button(ana) is None

    ana.set_window_size(500, 800)
    wait(ana, lambda d: panes(d) == (False, True), "only the conversation in a narrow window")
    wait(ana, lambda d: back_button(d), "a Back button")
    assert messages(ana) == [("Ana", "Side by side?")]
    settled(ana)
    back_button(ana).click()
    wait(ana, lambda d: title(d) == "Chats" and panes(d) == (True, False), "back on the list, alone")
    assert back_button(ana) is None
    open_conversation(ana, "Weekend plans")
    wait(ana, lambda d: panes(d) == (False, True), "the conversation alone again")
    assert messages(ana) == [("Ana", "Side by side?")]

    ana.set_window_size(1024, 900)
    wait(ana, lambda d: panes(d) == (True, True), "both panes again when wide")
    wait(ana, lambda d: back_button(d) is None, "no Back when wide")
    no_console_errors(ana, bo)


# MARK: - Accessibility and screenshots


def test_every_chat_screen_passes_axe_in_light_and_dark(ana, bo, server):
    open_chat(ana, server)
    wait(ana, lambda d: title(d) == "Sign In", "the sign-in screen")
    assert_accessible(ana, "chat: sign in")
    textbox(ana, "Your Name").send_keys("Ana", Keys.ENTER)
    wait(ana, lambda d: title(d) == "Chats", "Ana's list")
    assert_accessible(ana, "chat: no conversations")
    sign_in(bo, server, "Bo")
    start_conversation(bo, "Weekend plans", "Ana")
    send(bo, "Are we still on for Saturday?")
    wait(ana, lambda d: unread(d, "Weekend plans") == "1 unread", "the unread badge")
    assert_accessible(ana, "chat: list with an unread badge, nothing selected")
    open_conversation(ana, "Weekend plans")
    send(ana, "Yes! Hiking at nine?")
    composer(bo).send_keys("Perfect")
    wait(ana, lambda d: typing_line(d) == "Bo is typing…", "the typing line")
    assert_accessible(ana, "chat: conversation with messages and the typing line")
    composer(ana).send_keys(Keys.ENTER)
    wait(ana, lambda d: composer_error(d) == "Type a message first.", "the empty message refused")
    assert_accessible(ana, "chat: composer with an error")
    settled(ana)
    button(ana, "New Conversation").click()
    wait(ana, lambda d: title(d) == "New Conversation", "the New Conversation screen")
    settled(ana)
    assert_accessible(ana, "chat: new conversation")
    textbox(ana, "Title").send_keys("Secret")
    textbox(ana, "Participants").send_keys("Zed")
    button(ana, "Start").click()
    wait(ana, lambda d: field_error(d, "Participants") == "No one here is called “Zed”.", "the refusal, under its field")
    assert toasts(ana) == []
    assert_accessible(ana, "chat: new conversation refused")
    ana.set_window_size(500, 800)
    button(ana, "Cancel").click()
    wait(ana, lambda d: title(d) == "Chats", "the list, narrow")
    assert_accessible(ana, "chat: list, narrow")
    open_conversation(ana, "Weekend plans")
    assert_accessible(ana, "chat: conversation, narrow")
    no_console_errors(ana, bo)


CONVERSATION = [
    ("Ana", "Are we still on for Saturday?"),
    ("Bo", "Yes! The weather looks perfect."),
    ("Bo", "Trailhead at nine?"),
    ("Ana", "Nine works. I'll bring coffee and the map."),
    ("Bo", "Great, see you there"),
]


def test_screenshots_of_the_split_view_light_and_dark(ana, bo, server):
    """A conversation between Ana and Bo beside Ana's list (with an unread badge on another
    conversation), in light (Ana's browser) and dark (a dark browser she also signs in from). With
    SCENESYNC_SCREENSHOTS set, saved there as chat-split-light.png and chat-split-dark.png."""
    out = os.environ.get("SCENESYNC_SCREENSHOTS")
    dark = chromium("dark")
    dark.implicitly_wait(0)
    try:
        sign_in(ana, server, "Ana")
        sign_in(bo, server, "Bo")
        sign_in(dark, server, "Ana")  # the same person in another browser
        start_conversation(bo, "Book club", "Ana")
        start_conversation(ana, "Weekend plans", "Bo")
        open_conversation(bo, "Weekend plans")
        for sender, text in CONVERSATION:
            send(ana if sender == "Ana" else bo, text)
        wait(ana, lambda d: messages(d) == CONVERSATION, "the conversation in Ana's window")
        # Bo writes in the other conversation: Ana's list counts it as unread.
        open_conversation(bo, "Book club")
        send(bo, "Chapter 7 for Thursday?")
        wait(ana, lambda d: unread(d, "Book club") == "1 unread", "the unread badge")
        open_conversation(dark, "Weekend plans")
        wait(dark, lambda d: messages(d) == CONVERSATION and unread(d, "Book club") == "1 unread", "the dark window")
        for driver, scheme in ((ana, "light"), (dark, "dark")):
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
                {"name": "prefers-reduced-motion", "value": "reduce"}]})
            assert_scheme(driver, scheme)
            shoot(driver, out, f"chat-split-{scheme}.png")
        no_console_errors(ana, bo, dark)
    finally:
        dark.quit()


def shoot(driver, out, name):
    """Saves the window as `name` in `out` (if set), once it is still, with nothing focused."""
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    rest = ActionBuilder(driver)
    rest.pointer_action.move_to_location(660, 200)  # the pointer rests where it lights nothing up
    rest.perform()
    settled(driver)
    time.sleep(0.3)
    if out:
        save_screenshots(driver, out, name)
