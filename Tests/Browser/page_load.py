"""What loading an app's page costs in Chromium: bytes over the network (the browser's own
`transferSize`, headers of `304` answers included), requests, and when the first screen was drawn.

The first screen is the moment the renderer first puts something in `#scenesync-root`, caught by
a MutationObserver that Chromium installs before any of the page's own scripts run
(`Page.addScriptToEvaluateOnNewDocument`), in milliseconds after the navigation began.
"""
from selenium.webdriver.support.ui import WebDriverWait

_OBSERVER = """
(() => {
  const seen = () => {
    const root = document.getElementById('scenesync-root');
    if (root && root.firstElementChild && window.__scenesyncFirstScreen === undefined) {
      window.__scenesyncFirstScreen = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(seen);
  observer.observe(document, {childList: true, subtree: true});
})();
"""

_COST = """
const navigation = performance.getEntriesByType('navigation')[0];
const resources = performance.getEntriesByType('resource');
const entries = [navigation, ...resources];
return {
  firstScreen: window.__scenesyncFirstScreen ?? null,
  transfer: entries.reduce((sum, e) => sum + e.transferSize, 0),
  fetched: entries.filter((e) => e.transferSize > 0).length,
  requests: entries.length,
  resources: resources.map((e) => ({name: new URL(e.name).pathname, transfer: e.transferSize,
                                    encoded: e.encodedBodySize, decoded: e.decodedBodySize})),
};
"""


def observe_first_screen(driver):
    """Installs the first-screen observer in every page the driver opens from now on."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _OBSERVER})


def visit(driver, url, timeout=15):
    """Opens `url` (a new navigation, as a click on a link or a bookmark) and returns its cost once
    the first screen is drawn and the page has finished loading."""
    driver.get(url)
    WebDriverWait(driver, timeout, poll_frequency=0.02).until(
        lambda d: d.execute_script("return window.__scenesyncFirstScreen !== undefined && document.readyState === 'complete'"),
        "the first screen")
    return driver.execute_script(_COST)
