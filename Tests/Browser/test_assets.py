"""The renderer's files as Chromium loads them: gzipped, preloaded at once rather than one import
after another, and not downloaded again on a revisit (the page is revalidated with `304`, every
file comes from the browser's cache under its versioned path)."""
from page_load import observe_first_screen, visit

# The goal for a revisit: every byte over the network, headers included.
REVISIT_BYTES = 5_000


def test_a_first_visit_downloads_gzipped_files_by_version(browser, server):
    observe_first_screen(browser)
    first = visit(browser, server.url + "/lootlogger")
    renderer = [r for r in first["resources"] if r["name"].endswith((".js", ".css"))]
    assert len(renderer) >= 15, first["resources"]
    for resource in renderer:
        assert resource["name"].startswith("/renderer/"), f"{resource['name']} is not at a versioned path"
    main = next(r for r in renderer if r["name"].endswith("/js/main.js"))
    render = next(r for r in renderer if r["name"].endswith("/js/render.js"))
    for resource in (main, render):
        assert resource["encoded"] < resource["decoded"] * 0.6, f"{resource['name']} came gzipped: {resource}"
    # Every module was asked for once: preloaded, then taken from what was preloaded.
    names = [r["name"] for r in renderer]
    assert len(names) == len(set(names)), names


def test_a_revisit_downloads_under_five_kilobytes(browser, server):
    observe_first_screen(browser)
    first = visit(browser, server.url + "/lootlogger")
    again = visit(browser, server.url + "/lootlogger")
    assert again["transfer"] < REVISIT_BYTES, f"a revisit downloaded {again['transfer']} bytes: {again['resources']}"
    assert again["transfer"] < first["transfer"] / 10, (first["transfer"], again["transfer"])
    # Only the page itself is asked about; the files come from the cache.
    assert again["fetched"] <= 1, again["resources"]


def renderer_files(browser):
    """The paths of the renderer's files the page asked for, preloaded or imported."""
    return [r["name"] for r in browser.execute_script(
        "return performance.getEntriesByType('resource').map((e) => ({name: new URL(e.name).pathname}))")]


def test_only_an_app_that_names_the_chat_components_loads_them(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from test_chat import textbox
    from test_lootlogger import wait

    observe_first_screen(browser)
    loot = visit(browser, server.url + "/lootlogger")
    preloads = browser.execute_script(
        "return [...document.querySelectorAll('link[rel=modulepreload]')].map((l) => new URL(l.href).pathname)")
    assert any(p.endswith("/js/components/index.js") for p in preloads), preloads
    assert not [p for p in preloads if p.endswith("/chat.js")], preloads
    assert not [r["name"] for r in loot["resources"] if r["name"].endswith("/chat.js")], loot["resources"]

    # Chat's page preloads them, and its windows draw with them: a split view, its list and its detail.
    browser.get(server.url + "/chat")
    textbox(browser, "Your Name").send_keys("Ana", Keys.ENTER)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-kind=split] [data-pane=secondary]"), "Ana's split view")
    assert browser.execute_script(
        "return [...document.querySelectorAll('link[rel=modulepreload]')].some((l) => l.href.endsWith('/js/components/chat.js'))")
    downloaded = [name for name in renderer_files(browser) if name.endswith("/chat.js")]
    assert len(downloaded) == 1 and downloaded[0].startswith("/renderer/"), renderer_files(browser)
    assert "No Conversation Selected" in browser.find_element(By.CSS_SELECTOR, "[data-kind=split]").text
    assert not browser.find_elements(By.CSS_SELECTOR, ".ss-unknown"), "every kind has its component"
