"""Only what answers is interactive: a row that does nothing when pressed is no button, and pressing
it shows nothing. (Restaurant's order lines and kitchen rows were drawn as buttons, and pressing one
showed `Nothing here answers "select" on "line-…"` in red.)

Driven as test_restaurant.py drives Restaurant: through the accessibility tree, by role and name.
"""
import pytest

from conftest import chromium
from test_restaurant import (CONTROLS, IDS, SOUP, SUNDAE, add, element, main, no_console_errors, notices, open_dish,
                             open_restaurant, order_section, outline, post_order, press, row_button, show_order,
                             tree, until)


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def alerts(root):
    """Every alert's text in the window (inline errors under controls are alerts)."""
    return [" ".join(a.texts()) for a in root.find_all("alert") if a.texts()]


def test_rows_that_do_nothing_are_no_buttons_and_pressing_them_shows_no_error(browser, start_server):
    server = start_server()
    open_restaurant(browser, server)
    open_dish(browser, "Soups", SOUP)
    add(browser, SOUP)
    assert post_order(server, [IDS[SUNDAE]])[0] == 200
    show_order(browser)
    parts = until(browser, lambda r: (lambda p: p if p and p[0].find_all("listitem") and p[1].find_all("listitem") else None)(
        order_section(r)), "a line in the order and an order in the kitchen")

    items = parts[0].find_all("listitem") + parts[1].find_all("listitem")
    # Nothing happens when an order line or a kitchen order is pressed: no button for either (in
    # edit mode an order line has its Delete, a button of its own).
    assert [row_button(i) for i in items] == [None] * len(items), outline(tree(browser))
    assert all(b.name in CONTROLS for i in items for b in i.find_all("button"))
    texts = [i.texts()[0] for i in items]
    assert texts == [SOUP, "Order #1"], texts

    # Pressed anyway (a click on the row's text), then something that does answer: Edit. The
    # server answers a window's actions in order, so by the time edit mode shows, an error for
    # the presses would have come.
    for item in items:
        element(browser, item).click()
    press(browser, "button", "Edit", within=lambda r: r.find("banner"))
    root = until(browser, lambda r: r.find("banner").find("button", "Done"), "edit mode") and tree(browser)
    assert alerts(root) == [], alerts(root)
    assert [n for n in notices(root) if "answers" in n] == [], notices(root)
    assert not any("Nothing here answers" in t for t in main(root).texts()), outline(root)
    no_console_errors(browser)
