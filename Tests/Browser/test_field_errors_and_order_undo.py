"""Two findings of the product review, each in a real `scenesync` server and real headless
Chromium, driven through the accessibility tree as test_restaurant.py does: a control is found by
its role and accessible name, and pressed or typed into for real.

- Chat's New Conversation: what is wrong with a field shows under that field (its description,
  and the field marked invalid), both fields' at once, no notice; a field's error goes as its
  text changes, the other's stays; neither field's text is marked "Not saved yet", as it waits
  for Start.
- Restaurant's order: removing a dish in edit mode offers Undo in the notice; Undo (the button,
  or Ctrl+Z outside a text field) puts the dish back at its place in both windows, once.
"""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from accessibility import assert_accessible
from conftest import chromium
from test_restaurant import (add, back, badge, element, main, notices, open_dish, open_restaurant, order_lines, press,
                             settled, show_order, title, total, tree, until)
from test_small_findings import ana_on_new_conversation, banner, type_into

# Dishes of the default menu, with their prices as shown.
SUNDAE, CAKE, CHEESECAKE = "Ice Cream Sundae", "Chocolate Layer Cake", "Strawberry Cheesecake"


# MARK: - Chat: errors under their fields


def field(root, name):
    return root.find("textbox", name)


def error_of(root, name):
    """What the field named `name` says is wrong with it while it is marked invalid, or None: its
    description, which begins with the error (what follows, such as "Not saved yet", is left out)."""
    node = field(root, name)
    if node is None or node.properties.get("invalid") in (None, False, "false"):
        return None
    return node.description.removesuffix(" Not saved yet") or "(invalid, but says nothing)"


def error_sits_under_its_field(driver, name):
    """Whether the text that describes the field named `name` is shown below its input, within
    the field's width."""
    input_element = element(driver, field(tree(driver), name))
    return driver.execute_script("""
        const input = arguments[0];
        const described = (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean)
          .map((id) => document.getElementById(id)).filter((e) => e && e.checkVisibility());
        if (!described.length) return false;
        const box = input.getBoundingClientRect();
        return described.every((e) => {
          const r = e.getBoundingClientRect();
          return r.height > 0 && r.top >= box.bottom - 1 && r.left < box.right && r.right > box.left;
        });
    """, input_element)


def test_new_conversation_shows_each_error_under_its_field_and_clears_it_as_the_text_changes(browser, server):
    ana_on_new_conversation(browser, server)
    until(browser, lambda r: field(r, "Title") and field(r, "Participants"), "the New Conversation fields")

    # Start with both fields empty: each says what it lacks, under itself, at once; no notice.
    press(browser, "button", "Start", within=banner)
    until(browser, lambda r: error_of(r, "Title") == "Give the conversation a title."
          and error_of(r, "Participants") == "Add at least one other person.", "both fields' errors")
    root = tree(browser)
    assert notices(root) == [], f"a field's error came as a notice: {notices(root)}"
    assert title(root) == "New Conversation"
    assert error_sits_under_its_field(browser, "Title") and error_sits_under_its_field(browser, "Participants")
    assert_accessible(browser, "chat: new conversation with both fields' errors")

    # The title typed: its error goes as the text changes; the participants' stays.
    type_into(browser, "Title", "Weekend plans")
    until(browser, lambda r: error_of(r, "Title") is None, "the title's error gone as it is typed")
    assert error_of(tree(browser), "Participants") == "Add at least one other person."

    # Someone no one has heard of: only the Participants field says so, and stays until changed.
    type_into(browser, "Participants", "Bo, Zed")
    until(browser, lambda r: error_of(r, "Participants") is None, "the participants' error gone as they are typed")
    press(browser, "button", "Start", within=banner)
    until(browser, lambda r: error_of(r, "Participants") == "No one here is called “Zed”.", "the unknown name refused")
    root = tree(browser)
    assert error_of(root, "Title") is None and notices(root) == [] and title(root) == "New Conversation"
    assert [element(browser, field(root, name)).get_attribute("value") for name in ("Title", "Participants")] == \
        ["Weekend plans", "Bo, Zed"], "what was typed must stay in the fields"
    type_into(browser, "Participants", Keys.END, Keys.BACKSPACE * len(", Zed"))
    until(browser, lambda r: error_of(r, "Participants") is None, "the participants' error gone once they changed")
    assert element(browser, field(tree(browser), "Participants")).get_attribute("value") == "Bo"
    # The form's text waits for Start, not to be saved: neither field is marked "Not saved yet".
    root = tree(browser)
    for name in ("Title", "Participants"):
        assert "Not saved yet" not in (field(root, name).description or ""), f"{name} is marked as not saved"
    assert browser.execute_script("return document.querySelectorAll('[data-unsaved]').length") == 0

    press(browser, "button", "Start", within=banner)
    until(browser, lambda r: title(r) == "Weekend plans" and r.find("textbox", "Message"), "the conversation started")


# MARK: - Restaurant: undo of a removed dish


def undo_buttons(root):
    region = root.find("region", "Notices")
    return region.find_all("button", "Undo") if region else []


def remove(driver, dish):
    """In edit mode: the dish's minus, then its own Delete."""
    show_delete = until(driver, lambda r: next((n for n in main(r).find_all("button", "Delete…") if n.description == dish), None),
                        f"the minus for {dish}")
    settled(driver)
    element(driver, show_delete).click()
    delete = until(driver, lambda r: next((n for n in main(r).find_all("button", "Delete") if n.description == dish), None),
                   f"the Delete of {dish}")
    element(driver, delete).click()


def test_undo_puts_a_removed_dish_back_in_the_order_of_both_windows(browser, server):
    other = chromium()
    try:
        other.implicitly_wait(0)
        for d in (browser, other):
            open_restaurant(d, server)
        open_dish(browser, "Desserts", CAKE)
        add(browser, CAKE)
        back(browser, "Desserts")
        for dish in (CHEESECAKE, SUNDAE):
            press(browser, "button", dish, within=main)
            until(browser, lambda r, dish=dish: title(r) == dish, f"the detail of {dish}")
            add(browser, dish)
            back(browser, "Desserts")
        for d in (browser, other):
            show_order(d)
        start = [(CAKE, "$7.50"), (CHEESECAKE, "$7.25"), (SUNDAE, "$6.00")]
        until(other, lambda r: order_lines(r) == start and total(r) == "Total $20.75", "three dishes in the other window")

        press(browser, "button", "Edit", within=banner)
        until(browser, lambda r: banner(r).find("button", "Done") and main(r).find("button", "Delete…"), "edit mode")
        remove(browser, CHEESECAKE)
        left = [(CAKE, "$7.50"), (SUNDAE, "$6.00")]
        until(other, lambda r: order_lines(r) == left and badge(r) == "2", "the cheesecake gone in the other window")
        until(browser, lambda r: f"Removed {CHEESECAKE} from your order." in " ".join(notices(r)) and undo_buttons(r),
              "the notice with Undo")
        assert undo_buttons(tree(other)) == [], "only the window that removed offers to undo"

        # Undo: back at its place, with the total and the badge, in both windows; the notice goes.
        press(browser, "button", "Undo", within=lambda r: r.find("region", "Notices"))
        for d in (browser, other):
            until(d, lambda r: order_lines(r) == start and total(r) == "Total $20.75" and badge(r) == "3",
                  "the cheesecake back at its place")
        until(browser, lambda r: not undo_buttons(r), "the notice gone once used")

        # Ctrl+Z, with the focus outside any text field, does the same.
        remove(browser, SUNDAE)
        until(other, lambda r: order_lines(r) == start[:2], "the sundae gone in the other window")
        until(browser, undo_buttons, "Undo offered again")
        browser.execute_script("document.activeElement?.blur()")
        ActionChains(browser).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        for d in (browser, other):
            until(d, lambda r: order_lines(r) == start and badge(r) == "3", "the sundae back after Ctrl+Z")
        until(browser, lambda r: not undo_buttons(r), "the notice gone once used")
    finally:
        other.quit()
