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
