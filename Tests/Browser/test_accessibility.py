"""Every screen of LootLogger a person can reach, and the home page, checked by axe-core in the
light and the dark color scheme: no violation of any kind is allowed. See accessibility.py."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from accessibility import assert_accessible
from conftest import chromium
from test_lootlogger import button, connected, field, open_row, replace_text, row_titles, rows, settled, wait


def open_list(driver, server, items=0):
    driver.get(server.url + "/lootlogger")
    connected(driver)
    for _ in range(items):
        button(driver, "Add").click()
    wait(driver, lambda d: len(rows(d)) == items, f"{items} rows")
    return driver


def other_window():
    """A second browser, not a second tab: typing in one window must not lose its focus (and commit)
    because the test drives the other."""
    driver = chromium()
    driver.implicitly_wait(0)
    return driver


def test_home_page(browser, server):
    browser.get(server.url + "/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "a[href='/lootlogger']"), "the app list")
    assert_accessible(browser, "home page")


def test_empty_list(browser, server):
    open_list(browser, server)
    wait(browser, lambda d: "No Items" in d.page_source, "the empty state")
    assert_accessible(browser, "empty item list")


def test_list_with_items(browser, server):
    open_list(browser, server, items=3)
    assert_accessible(browser, "item list")


def test_edit_mode_and_a_keyboard_move(browser, server):
    open_list(browser, server, items=3)
    settled(browser)
    button(browser, "Edit").click()
    button(browser, "Done")
    assert_accessible(browser, "item list in edit mode")
    # A move made from the keyboard is announced: the announcement must sit in a landmark too.
    titles = row_titles(browser)
    rows(browser)[0].find_element(By.CSS_SELECTOR, "[aria-label=Reorder]").send_keys(Keys.ARROW_DOWN)
    wait(browser, lambda d: row_titles(d) == [titles[1], titles[0], titles[2]], "the row moved down")
    wait(browser, lambda d: "Moved to position" in d.page_source, "the move announced")
    assert_accessible(browser, "item list after a keyboard move")


def test_row_menu_and_the_window_it_opens(browser, server):
    open_list(browser, server, items=2)
    settled(browser)
    ActionChains(browser).move_to_element(rows(browser)[0]).perform()
    more = rows(browser)[0].find_element(By.CSS_SELECTOR, "[aria-label='More actions']")
    more.click()
    wait(browser, lambda d: more.get_attribute("aria-expanded") == "true", "the menu open")
    assert_accessible(browser, "row menu")
    first = browser.current_window_handle
    button(browser, "Open in New Window").click()
    wait(browser, lambda d: len(d.window_handles) == 2, "the new window")
    browser.switch_to.window(next(h for h in browser.window_handles if h != first))
    connected(browser)
    field(browser, "Name")
    assert_accessible(browser, "window opened on an item")


def test_detail(browser, server):
    open_list(browser, server, items=1)
    open_row(browser)
    field(browser, "Name")
    assert_accessible(browser, "item detail")


def test_a_field_with_a_validation_error(browser, server):
    open_list(browser, server, items=1)
    open_row(browser)
    replace_text(field(browser, "Value"), "abc", Keys.ENTER)
    wait(browser, lambda d: field(d, "Value").get_attribute("aria-invalid") == "true", "the error")
    assert_accessible(browser, "field with an error")


def test_a_field_changed_in_another_window(browser, server):
    open_list(browser, server, items=1)
    open_row(browser)
    other = other_window()
    try:
        other.get(server.url + "/lootlogger")
        connected(other)
        open_row(other)
        replace_text(field(browser, "Name"), "Typed here")
        replace_text(field(other, "Name"), "Stored there", Keys.ENTER)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-changed-elsewhere=true]"),
             "the field says it changed elsewhere")
        assert_accessible(browser, "field changed in another window")
    finally:
        other.quit()


def test_the_notice_for_an_item_deleted_in_another_window(browser, server):
    open_list(browser, server, items=1)
    other = other_window()
    try:
        other.get(server.url + "/lootlogger")
        connected(other)
        open_row(other)
        field(other, "Name")
        settled(browser)
        button(browser, "Edit").click()
        button(browser, "Delete…").click()
        button(browser, "Delete").click()
        notice = wait(other, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-kind=notice]"), "the notice")[0]
        # A pointer resting on the notice keeps it up while the check runs, as it would for a reader.
        ActionChains(other).move_to_element(notice).perform()
        assert "deleted in another window" in notice.text
        assert_accessible(other, "notice: item deleted in another window")
    finally:
        other.quit()


def test_the_connection_indicator_while_reconnecting(browser, server):
    open_list(browser, server, items=1)
    server.stop()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-state=reconnecting], [data-state=connecting]"),
         "the connection indicator shows the loss")
    assert_accessible(browser, "reconnecting")
    server.start()
    connected(browser)


# MARK: - Restaurant


def test_restaurant_every_screen(browser, start_server):
    """Restaurant's screens, in the order a person meets them: the categories, the Order tab empty,
    a category's dishes, a dish's detail (and its notice), the Order tab with a dish (and the badge),
    in edit mode, with the submit confirmation, and with the kitchen's orders (one Ready, one
    counting down)."""
    import test_restaurant as r
    # A kitchen minute of 0.25 s: one dish is ready in about a second; a big order takes long
    # enough to be counting down through the checks.
    server = start_server("--kitchen-minute", "0.25")
    driver = browser
    r.open_restaurant(driver, server)
    assert_accessible(driver, "restaurant: categories")
    r.show_order(driver)
    r.until(driver, lambda t: "Your order is empty" in r.order_texts(t) and "No orders yet" in r.order_texts_kitchen(t),
            "the empty order and kitchen")
    assert_accessible(driver, "restaurant: empty order")
    r.show_tab(driver, "Menu")
    r.open_dish(driver, "Desserts", r.SUNDAE)
    r.back(driver, "Desserts")
    assert_accessible(driver, "restaurant: a category's dishes")
    r.press(driver, "button", r.SUNDAE, within=r.main)
    r.until(driver, lambda t: r.title(t) == r.SUNDAE and r.image(r.main(t), r.SUNDAE), "the dish's detail")
    assert_accessible(driver, "restaurant: dish detail")
    r.add(driver, r.SUNDAE)
    notice = r.element(driver, r.tree(driver).find("region", "Notices").find("status"))
    ActionChains(driver).move_to_element(notice).perform()  # keeps it up while axe runs
    assert_accessible(driver, "restaurant: dish detail with the added notice")
    r.show_order(driver)
    r.until(driver, lambda t: r.order_lines(t) == [(r.SUNDAE, "$6.00")] and r.badge(t) == "1", "the order with a dish")
    assert_accessible(driver, "restaurant: order with a dish and the badge")
    r.press(driver, "button", "Edit", within=lambda t: t.find("banner"))
    r.until(driver, lambda t: r.main(t).find("button", "Reorder"), "edit mode")
    assert_accessible(driver, "restaurant: order in edit mode")
    r.press(driver, "button", "Done", within=lambda t: t.find("banner"))
    r.press(driver, "button", "Submit", within=lambda t: t.find("banner"))
    r.until(driver, r.alert, "the confirmation")
    assert_accessible(driver, "restaurant: submit confirmation")
    r.press(driver, "button", "Submit", within=r.alert)
    r.until(driver, lambda t: r.kitchen(t) == [("Order #1", "1 dish · $6.00 Ready")], "the order ready")
    # 125 dishes: 25 minutes for the steak, 124 to plate the rest: 37 s at 0.25 s a minute.
    assert r.post_order(server, [15] * 50)[0] == 200  # the most dishes an order may have
    r.until(driver, lambda t: [n for n, _ in r.kitchen(t)] == ["Order #2", "Order #1"]
            and r.countdown_text(driver, "Order #2"), "the counting order above the ready one")
    assert_accessible(driver, "restaurant: kitchen with a countdown and a ready order")


_UNDER_BARS = """
const [target, from] = arguments;
scrollTo(0, from === "top" ? 0 : document.documentElement.scrollHeight);
target.scrollIntoView({block: "nearest"});  // as find in page and a screen reader's cursor scroll
const box = target.getBoundingClientRect();
const navbar = document.querySelector("header").getBoundingClientRect();
const tabs = document.querySelector("nav").getBoundingClientRect();
return {top: box.top, bottom: box.bottom, navbar: navbar.bottom, tabs: tabs.top};
"""


def test_restaurant_what_scrolls_into_view_is_not_under_the_bars(browser, start_server):
    """In a short window, a control scrolled into view (by the browser, for focus, find in page or
    a screen reader) must come to rest clear of the sticky navigation bar and the fixed tab bar
    (WCAG 2.4.11, focus not obscured)."""
    import test_restaurant as r
    server = start_server()
    browser.set_window_size(1024, 560)
    r.open_restaurant(browser, server)
    r.open_dish(browser, "Entrees", "Spaghetti and Meatballs")
    r.settled(browser)
    add = r.element(browser, r.tree(browser).find("button", "Add to Order"))
    box = browser.execute_script(_UNDER_BARS, add, "top")
    assert box["bottom"] <= box["tabs"], f"Add to Order under the tab bar: {box}"
    r.back(browser, "Entrees")
    r.back(browser, "Menu")
    r.settled(browser)
    first = r.element(browser, r.main(r.tree(browser)).find("button", "Appetizers"))
    box = browser.execute_script(_UNDER_BARS, first, "bottom")
    assert box["top"] >= box["navbar"], f"the first row under the navigation bar: {box}"
