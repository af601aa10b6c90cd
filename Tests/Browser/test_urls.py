"""A URL for every screen (PROTOCOL.md, "A URL for every screen"), in Chromium: the address follows
the window as a person navigates, Back and Forward move the window's navigation, a reload stays,
and a URL opened in a new window shows its screen. Elements are found by role and accessible name,
as in test_restaurant.py."""
from urllib.parse import unquote, urlparse

from conftest import chromium
from test_restaurant import CAKE, back, find_tab, main, open_dish, open_restaurant, press, settled, title, until, wait_connected


def path(driver):
    return unquote(urlparse(driver.current_url).path)


def at(driver, expected, screen):
    """Waits until the URL's path is `expected` and the screen's title `screen`."""
    until(driver, lambda r: title(r) == screen and path(driver) == expected, f"{screen} at {expected}")


def test_the_address_follows_the_screens_and_back_and_forward_move_the_window(browser, server):
    open_restaurant(browser, server)
    at(browser, "/restaurant/menu", "Menu")
    open_dish(browser, "Desserts", CAKE)
    dish = path(browser)
    assert dish.startswith("/restaurant/menu/category/desserts/dish/"), dish
    history = browser.execute_script("return history.length")

    browser.back()
    at(browser, "/restaurant/menu/category/desserts", "Desserts")
    browser.back()
    at(browser, "/restaurant/menu", "Menu")
    browser.forward()
    at(browser, "/restaurant/menu/category/desserts", "Desserts")
    browser.forward()
    at(browser, dish, CAKE)
    assert browser.execute_script("return history.length") == history, "Back and Forward add no entries"

    # Another tab is a place of its own; Back comes back to the dish.
    settled(browser)
    press(browser, "tab", find_tab(until(browser, lambda r: r, "the page"), "Order").name)
    at(browser, "/restaurant/order", "Order")
    browser.back()
    at(browser, dish, CAKE)

    # The app's own Back is a navigation like any other: the address follows.
    back(browser, "Desserts")
    at(browser, "/restaurant/menu/category/desserts", "Desserts")

    # A reload stays where the window is.
    browser.refresh()
    wait_connected(browser)
    at(browser, "/restaurant/menu/category/desserts", "Desserts")


def test_a_url_opened_in_a_new_window_shows_its_screen_and_a_wrong_one_the_app(browser, server):
    open_restaurant(browser, server)
    open_dish(browser, "Desserts", CAKE)
    dish_url = browser.current_url
    other = chromium()
    try:
        other.get(dish_url)
        wait_connected(other)
        at(other, path(browser), CAKE)
        until(other, lambda r: main(r).find("button", "Add to Order"), "the dish's Add to Order")
        # Back from a URL opened as the first page leaves the app, as any page: the app's Back
        # button is how to the category.
        back(other, "Desserts")
        at(other, "/restaurant/menu/category/desserts", "Desserts")

        # A path that names nothing of the app's shows the app, and the address is put right.
        other.get(server.url + "/restaurant/menu/category/desserts/nothing/here")
        wait_connected(other)
        until(other, lambda r: title(r) in ("Desserts", "Menu") and not path(other).endswith("/here"), "the address put right")
    finally:
        other.quit()


def test_lootlogger_items_have_addresses(browser, server):
    browser.get(server.url + "/lootlogger")
    wait_connected(browser)
    press(browser, "button", "Add")
    row = until(browser, lambda r: main(r).find("list", "Items") and main(r).find("list", "Items").find("button"), "a row")
    name = row.name.split(",")[0]
    settled(browser)
    press(browser, "button", row.name, within=main)
    until(browser, lambda r: path(browser).startswith("/lootlogger/item/"), "the item's address")
    key = path(browser).rsplit("/", 1)[1]
    assert len(key) == 36, key
    browser.back()
    at(browser, "/lootlogger", "LootLogger")
    browser.forward()
    until(browser, lambda r: path(browser) == f"/lootlogger/item/{key}" and title(r) == name, "the item again")
