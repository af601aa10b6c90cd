"""Accessibility checks for the browser tests: axe-core (as bundled by `axe-selenium-python`) run on
the page as it is, in the light and the dark color scheme.

    from accessibility import assert_accessible
    assert_accessible(driver, "the item list")  # both schemes; fails listing every violation

The color scheme and reduced motion are emulated through the DevTools protocol: headless Chromium
has no system setting to follow, and command-line switches for it are not honoured everywhere. Each
run first checks that the page's own CSS switched, so a dark run cannot silently be a light one.
"""
import textwrap

from axe_selenium_python import Axe
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import WebDriverWait

SCHEMES = ("light", "dark")
TIMEOUT = 15

# Animations with an end: a pulse that loops forever (a connection dot, say) never settles, and its
# colours are those of the element anyway.
_RUNNING = """
return document.getAnimations().filter((a) => {
  const end = a.effect ? a.effect.getComputedTiming().endTime : 0;
  return a.playState === "running" && Number.isFinite(end);
}).length;
"""

# The body's background luminance (0 black … 1 white), as the page's CSS resolved it.
_BACKGROUND_LUMINANCE = """
const probe = document.createElement("canvas").getContext("2d");
probe.fillStyle = getComputedStyle(document.body).backgroundColor;
probe.fillRect(0, 0, 1, 1);
const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
"""

_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ["violations"]})
  .then((results) => done({violations: results.violations, version: axe.version}))
  .catch((error) => done({error: String(error)}));
"""


def emulate(driver, scheme):
    """Makes the page see `scheme` ("light" or "dark") and reduced motion, until changed again.
    The setting belongs to the window (tab): set it again after switching to another one."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": scheme},
        {"name": "prefers-reduced-motion", "value": "reduce"},
    ]})


def assert_scheme(driver, scheme):
    """Fails unless the page both matches `scheme` and painted its body for it. Colours may change
    through a (short) transition, so the background is given a moment to arrive."""
    matches = driver.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
    assert matches == (scheme == "dark"), f"the page does not see prefers-color-scheme: {scheme}"

    def painted(d):
        luminance = d.execute_script(_BACKGROUND_LUMINANCE)
        return luminance < 0.2 if scheme == "dark" else luminance > 0.6
    try:
        WebDriverWait(driver, 3).until(painted)
    except TimeoutException:
        luminance = driver.execute_script(_BACKGROUND_LUMINANCE)
        raise AssertionError(f"the page's background did not switch to {scheme} (luminance {luminance:.2f})")


def settle(driver):
    """Waits until no animation or transition with an end is running: axe measures colours as
    painted, and a row that is still fading in is not the row a person reads."""
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.execute_script(_RUNNING) == 0, "animations to finish")


def violations(driver):
    """Injects axe into the current page and returns its violations (all default rules)."""
    Axe(driver).inject()
    driver.set_script_timeout(60)
    result = driver.execute_async_script(_RUN)
    if "error" in result:
        raise RuntimeError(f"axe failed: {result['error']}")
    return result["violations"]


def _summary(node):
    checks = [check for kind in ("any", "all", "none") for check in node.get(kind, [])]
    text = "; ".join(dict.fromkeys(c["message"] for c in checks if c.get("message"))) or node.get("failureSummary", "")
    if node["target"] in (["html"], ["body"]):
        # A page-wide finding (content outside landmarks, say): name the elements it is about.
        related = dict.fromkeys(", ".join(map(str, r["target"])) for c in checks for r in c.get("relatedNodes", []))
        if related:
            text += " — " + " | ".join(list(related)[:6])
    return textwrap.shorten(" ".join(text.split()), 300, placeholder=" …")


def report(found):
    """A readable list of `found`: [(scheme, screen, violation)]."""
    lines = [f"{len(found)} accessibility violation(s):"]
    for scheme, screen, violation in found:
        lines.append(f"- [{scheme}] {screen}: {violation['id']} ({violation.get('impact') or 'n/a'}) "
                     f"— {violation['help']}")
        for node in violation["nodes"]:
            target = ", ".join(str(t) for t in node["target"])
            lines.append(f"    {target}: {_summary(node)}")
    return "\n".join(lines)


def check(driver, screen, schemes=SCHEMES):
    """Runs axe on the page in each of `schemes`; returns [(scheme, screen, violation)]."""
    found = []
    for scheme in schemes:
        emulate(driver, scheme)
        settle(driver)
        assert_scheme(driver, scheme)
        found += [(scheme, screen, v) for v in violations(driver)]
    return found


def assert_accessible(driver, screen, schemes=SCHEMES):
    """Fails with every violation axe finds on the page, in each of `schemes`, and leaves the page
    in the light scheme."""
    try:
        found = check(driver, screen, schemes)
    finally:
        emulate(driver, "light")
    assert not found, report(found)
