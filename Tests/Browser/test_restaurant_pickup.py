"""Restaurant's ready orders in two real browser windows, driven through the accessibility tree
as test_restaurant.py drives them (roles and names, real clicks): every window, on whichever tab,
is told that an order is ready, and an order marked Picked Up in one window leaves the kitchen
list of both.

The kitchen runs fast (`--kitchen-minute`); a ready order waits ten real minutes to be picked up,
longer than any of these tests.
"""
from test_restaurant import (  # noqa: F401  (browsers and pair are fixtures)
    IDS, SUNDAE, Node, browsers, kitchen, main, no_console_errors, notices, order_section, order_texts_kitchen, outline,
    pair, post_order, press, selected_tab, show_order, title, tree, until,
)

READY = "Order #1 is ready"


def kitchen_row(root, order):
    """The list item of the kitchen's `order` ("Order #1"), or None."""
    parts = order_section(root)
    if parts is None:
        return None
    return next((i for i in parts[1].find_all("listitem") if i.texts()[:1] == [order]), None)


def pick_up(driver, order):
    """Opens the row's menu (its More actions button) and chooses Picked Up."""
    press(driver, "button", "More actions", within=lambda r: kitchen_row(r, order))
    until(driver, lambda r: (kitchen_row(r, order) or Node({})).find("button", "More actions")
          and r.find("menuitem", "Picked Up"), "the row's menu open")
    press(driver, "menuitem", "Picked Up")


def test_every_window_hears_the_order_is_ready_and_picked_up_it_leaves_both(pair):
    # The sundae takes 4 minutes: 8 s at 2 s a minute.
    server, a, b = pair("--kitchen-minute", "2")
    # A stays on the Menu tab, inside a category; B shows the kitchen.
    press(a, "button", "Desserts", within=main)
    until(a, lambda r: title(r) == "Desserts", "the desserts")
    show_order(b)
    assert post_order(server, [IDS[SUNDAE]]) == (200, {"preparation_time": 4})
    row = until(b, lambda r: (kitchen(r) or [None])[0], "the posted order in the kitchen")
    assert row[0] == "Order #1" and row[1].startswith("1 dish · $6.00 "), row
    # Still being made: nothing to pick up yet, and no news.
    assert (kitchen_row(tree(b), "Order #1") or Node({})).find("button", "More actions") is None, outline(tree(b))
    assert READY not in notices(tree(a)) + notices(tree(b))

    for d in (a, b):
        until(d, lambda r: READY in notices(r), "the ready notice")
    for d in (a, b):
        assert notices(tree(d)).count(READY) == 1, notices(tree(d))
    root = tree(a)
    assert selected_tab(root) == "Menu" and title(root) == "Desserts", "the notice leaves the window where it was"

    show_order(a)
    for d in (a, b):
        until(d, lambda r: kitchen(r) == [("Order #1", "1 dish · $6.00 Ready")], "the order ready")
        until(d, lambda r: (kitchen_row(r, "Order #1") or Node({})).find("button", "More actions"), "its menu")
    pick_up(b, "Order #1")
    for d in (a, b):
        until(d, lambda r: kitchen(r) == [] and "No orders yet" in order_texts_kitchen(r), "the order gone from the kitchen")

    # A reload brings neither the order nor the notice back.
    a.refresh()
    until(a, lambda r: selected_tab(r) == "Order" and order_section(r) is not None, "the Order tab after the reload")
    root = tree(a)
    assert kitchen(root) == [] and READY not in notices(root), outline(root)
    no_console_errors(a, b)
