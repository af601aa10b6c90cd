"""How screens look where a person minds it, measured in Chromium: empty states sit where the eye
expects them (no blank slab above them in a card; a list with nothing in it shows its empty state
in the middle of the screen, with no empty card around it), and hover styles apply only where
there is a pointer that hovers (a touch screen keeps a tapped row's hover colour otherwise).

Elements are found by role and accessible name (a heading by its text), then measured.
"""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

TIMEOUT = 15

_BOX = """
const heading = [...document.querySelectorAll('h1, h2, h3, [role=heading]')].find((h) => h.textContent.trim() === arguments[0]);
if (!heading) return null;
const card = heading.closest('.ss-section-body') || heading.parentElement;
const h = heading.getBoundingClientRect(), c = card.getBoundingClientRect();
return {headingTop: h.top, headingBottom: h.bottom, cardTop: c.top, cardBottom: c.bottom,
        cardBackground: getComputedStyle(card).backgroundColor, viewport: innerHeight};
"""


def box(driver, heading):
    return WebDriverWait(driver, TIMEOUT, poll_frequency=0.05).until(lambda d: d.execute_script(_BOX, heading),
                                                                     f"the heading {heading!r}")


def test_an_empty_part_of_a_screen_has_no_blank_slab_above_its_text(browser, server):
    browser.set_window_size(1280, 800)
    browser.get(server.url + "/restaurant")
    WebDriverWait(browser, TIMEOUT).until(lambda d: d.find_elements(By.XPATH, "//*[@role='tab' and normalize-space()='Order']"))
    browser.find_element(By.XPATH, "//*[@role='tab' and normalize-space()='Order']").click()
    for heading in ("Your order is empty", "No orders yet"):
        b = box(browser, heading)
        # As much room above the title as a row's padding, not a fifth of the window.
        assert b["headingTop"] - b["cardTop"] <= 32, (heading, b)
        # Below it: its message (a line or two) and the same padding, no slab either.
        assert b["cardBottom"] - b["headingBottom"] <= 90, (heading, b)


def test_a_list_with_nothing_in_it_shows_its_empty_state_in_the_middle_without_a_card(browser, server):
    browser.set_window_size(1280, 800)
    browser.get(server.url + "/lootlogger")
    b = box(browser, "No Items")
    assert b["cardBackground"] in ("rgba(0, 0, 0, 0)", "transparent"), b
    # Below the top fifth of the window, above its middle: where the eye looks for it.
    assert b["viewport"] * 0.2 <= b["headingTop"] <= b["viewport"] * 0.5, b


_HOVER_RULES = """
const outside = [];
const visit = (rules, media) => {
  for (const rule of rules) {
    if (rule instanceof CSSMediaRule) visit(rule.cssRules, rule.conditionText);
    else if (rule instanceof CSSStyleRule && rule.selectorText.includes(':hover') && !/\\(hover:\\s*hover\\)/.test(media || ''))
      outside.push(rule.selectorText);
  }
};
for (const sheet of document.styleSheets) visit(sheet.cssRules, null);
return {outside, sheets: document.styleSheets.length};
"""


def test_hover_styles_apply_only_where_a_pointer_hovers(browser, server):
    for path in ("/lootlogger", "/restaurant", "/chat", "/lootlogger/widget"):
        browser.get(server.url + path)
        found = WebDriverWait(browser, TIMEOUT).until(lambda d: (lambda r: r if r["sheets"] else None)(d.execute_script(_HOVER_RULES)))
        assert found["outside"] == [], (path, found["outside"])


def test_a_dishs_picture_and_button_line_up_with_its_text_and_the_picture_spans_the_column(browser, server):
    from conftest import save_screenshots
    from test_restaurant import CAKE, open_dish, open_restaurant
    import os

    open_restaurant(browser, server)
    open_dish(browser, "Desserts", CAKE)
    for width, height in ((1280, 800), (820, 1180), (390, 844)):
        browser.set_window_size(width, height)
        browser.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        picture = WebDriverWait(browser, TIMEOUT).until(
            lambda d: d.find_element(By.CSS_SELECTOR, f"img[alt='{CAKE}']"), "the dish's picture")
        WebDriverWait(browser, TIMEOUT).until(lambda d: d.execute_script("return arguments[0].complete", picture))
        found = browser.execute_script("""
            const img = arguments[0].getBoundingClientRect();
            const title = [...document.querySelectorAll('.ss-text-title')].find((t) => t.textContent.trim() === arguments[1]);
            const range = document.createRange();
            range.selectNodeContents(title);
            const text = range.getBoundingClientRect(), column = title.parentElement.getBoundingClientRect();
            const padding = parseFloat(getComputedStyle(title).paddingLeft) + parseFloat(getComputedStyle(title).paddingRight);
            const button = [...document.querySelectorAll('.ss-button')].find((b) => b.textContent.trim() === "Add to Order");
            return {imgLeft: img.left, imgWidth: img.width, textLeft: text.left, column: column.width - padding,
                    buttonLeft: button.getBoundingClientRect().left};""",
            picture, CAKE)
        assert abs(found["imgLeft"] - found["textLeft"]) <= 1, (width, found)
        assert found["imgWidth"] >= 0.9 * found["column"], (width, found)
        assert abs(found["buttonLeft"] - found["textLeft"]) <= 1, (width, found)
        save_screenshots(browser, os.environ.get("SCENESYNC_SCREENSHOTS"), f"dish-{width}.png")
