"""Row countdowns, in the renderer harness (real renderer modules, fake server): a row's `countdown`
is a deadline on the server's clock, shown as the time left in the detail's place and ticked by one
timer for the whole window. Needs no `scenesync` server. See PROTOCOL.md ("Nodes") and README.md.

The fake server sets countdowns through patches, as a server would; `clock=MS` on the harness URL
makes its clock (its `welcome.time`) run MS ms ahead of the browser's.
"""
import json
import re
import time

import pytest

from run_harness import Run, make_driver, serve

MINUTE = 60_000

# A row's countdown as the page shows it, or null when the row shows none.
READ = """
const row = document.querySelector(`[data-node-id="${arguments[0]}"]`);
const time = row.querySelector("time");
const detail = row.querySelector(".ss-row-detail");
const main = row.querySelector(".ss-row-main");
const base = {detail: detail.hidden ? null : detail.textContent, describedBy: main.getAttribute("aria-describedby")};
if (!time) return {...base, time: null};
return {...base, time: {
  id: time.id,
  text: time.querySelector("[aria-hidden=true]").textContent,
  datetime: time.getAttribute("datetime"),
  spoken: time.querySelector(".ss-visually-hidden").textContent,
  visible: time.getClientRects().length > 0 && getComputedStyle(time).visibility === "visible",
}};
"""


@pytest.fixture(scope="module")
def page():
    httpd, base = serve()
    driver = make_driver()
    run = Run(driver, base)
    try:
        yield run
    finally:
        driver.quit()
        httpd.shutdown()


@pytest.fixture
def r(page):
    """A fresh harness window (the fake LootLogger list), checked for console errors afterwards."""
    page.open("motion=0")
    page.console_errors = []
    yield page
    page.collect_logs("countdown")
    assert page.console_errors == [], page.console_errors


def row(r, index):
    return r.js("return harness.rowId(harness.items[arguments[0]])", index)


def set_props(r, index, props):
    r.js("harness.server.patch([{op: 'set', id: arguments[0], props: arguments[1]}])", row(r, index), props)


def count_down(r, index, ms):
    """Sets row `index`'s countdown to `ms` from now on the server's clock."""
    r.js("harness.server.patch([{op: 'set', id: arguments[0], props: {countdown: harness.server.now() + arguments[1]}}])", row(r, index), ms)


def read(r, index):
    return r.js(READ, row(r, index))


def timer_running(r):
    return r.js("return harness.app.view.countdowns.running")


def actions(r):
    return r.sent("action")


def seconds(text):
    """`m:ss` or `h:mm:ss` → seconds."""
    assert re.fullmatch(r"(\d+:[0-5]\d:[0-5]\d|\d{1,2}:[0-5]\d)", text), text
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


def duration(total):
    """The `datetime` a countdown at `total` seconds carries."""
    h, m, s = total // 3600, total // 60 % 60, total % 60
    if h:
        return f"PT{h}H{m}M{s}S"
    return f"PT{m}M{s}S" if m else f"PT{s}S"


def test_a_countdown_shows_the_time_left_in_the_detail_place_and_ticks(r):
    before = read(r, 0)
    assert before["time"] is None and before["detail"] == "$42", before
    sent = len(actions(r))
    count_down(r, 0, 65_000)
    shown = read(r, 0)
    countdown = shown["time"]
    assert countdown is not None, shown
    assert countdown["text"] in ("1:05", "1:04"), countdown
    assert countdown["datetime"] == duration(seconds(countdown["text"])), countdown
    assert countdown["spoken"] == ("1 minute 5 seconds left" if countdown["text"] == "1:05" else "1 minute 4 seconds left"), countdown
    assert countdown["visible"], countdown
    assert shown["detail"] is None, "the detail text is hidden while the countdown shows"
    assert shown["describedBy"].split()[-1] == countdown["id"], "the row is described by its countdown, not its hidden detail"
    assert r.js("return document.querySelector(`[data-node-id='${arguments[0]}'] .ss-row-detail`).textContent", row(r, 0)) == "$42"
    assert timer_running(r)

    first = seconds(countdown["text"])
    r.wait(f"document.querySelector(`[data-node-id='{row(r, 0)}'] time [aria-hidden]`).textContent !== '{countdown['text']}'", timeout=2.5)
    later = read(r, 0)["time"]
    assert seconds(later["text"]) == first - 1, later
    assert later["datetime"] == duration(first - 1), later
    assert len(actions(r)) == sent, "a countdown ticking sends nothing"


def test_a_countdown_of_an_hour_or_more_shows_hours(r):
    count_down(r, 1, (62 * 60 + 3) * 1000)
    countdown = read(r, 1)["time"]
    assert countdown["text"] in ("1:02:03", "1:02:02"), countdown
    assert countdown["datetime"] == duration(seconds(countdown["text"])), countdown
    assert countdown["spoken"].startswith("1 hour 2 minutes "), countdown


def test_a_countdown_in_the_past_shows_zero_and_stays(r):
    count_down(r, 2, -5_000)
    countdown = read(r, 2)["time"]
    assert countdown["text"] == "0:00" and countdown["datetime"] == "PT0S", countdown
    assert countdown["spoken"] == "0 seconds left", countdown
    assert not timer_running(r), "nothing left to tick"
    time.sleep(1.2)
    assert read(r, 2)["time"]["text"] == "0:00"


def test_a_countdown_runs_down_to_zero_and_sends_nothing(r):
    sent = len(r.sent())
    count_down(r, 0, 1_500)
    assert read(r, 0)["time"]["text"] in ("0:02", "0:01")
    r.wait(f"document.querySelector(`[data-node-id='{row(r, 0)}'] time [aria-hidden]`).textContent === '0:00'", timeout=3)
    time.sleep(1.2)
    assert read(r, 0)["time"]["text"] == "0:00", "never below 0:00"
    assert not timer_running(r), "the timer stops once every countdown is at 0:00"
    assert [m["type"] for m in r.sent()[sent:] if m["type"] != "ping"] == [], "reaching zero sends nothing"


def test_removing_the_countdown_shows_the_detail_set_with_it(r):
    count_down(r, 0, 65_000)
    assert read(r, 0)["time"] is not None
    set_props(r, 0, {"countdown": None, "detail": "Ready"})
    shown = read(r, 0)
    assert shown["time"] is None, "the <time> is removed"
    assert shown["detail"] == "Ready", shown
    assert r.node(row(r, 0)).get_attribute("data-detail") == "Ready"
    assert shown["describedBy"].split()[-1].startswith("ss-detail-"), shown
    assert not timer_running(r)
    # And back: a countdown set again hides the detail again.
    count_down(r, 0, 10_000)
    assert read(r, 0)["detail"] is None and read(r, 0)["time"]["text"] in ("0:10", "0:09")


def test_a_countdown_that_is_not_a_number_is_no_countdown(r):
    set_props(r, 0, {"countdown": "soon"})
    shown = read(r, 0)
    assert shown["time"] is None and shown["detail"] == "$42", shown
    assert not timer_running(r)


def test_the_page_timer_stops_when_the_last_countdown_leaves(r):
    assert not timer_running(r), "no countdown, no timer"
    count_down(r, 0, 65_000)
    count_down(r, 1, 125_000)
    assert timer_running(r)
    r.js("harness.server.patch([{op: 'remove', id: arguments[0]}])", row(r, 0))
    assert timer_running(r), "one countdown is still shown"
    r.js("harness.server.patch([{op: 'remove', id: arguments[0]}])", row(r, 1))
    assert not timer_running(r), "the last countdown's row was removed"

    # A new screen (a push) replaces the rows with their countdowns.
    count_down(r, 2, 65_000)
    assert timer_running(r)
    r.node(row(r, 2)).find_element("css selector", ".ss-row-main").click()
    r.wait("document.querySelector('[data-node-id=name]')")
    assert not timer_running(r), "the screen holding the countdown was replaced"

    # A render that no longer has the countdown (reconciled in place).
    r.d.find_element("css selector", ".ss-back").click()
    r.wait("document.querySelector('[data-node-id=items]')")
    count_down(r, 3, 65_000)
    assert timer_running(r)
    r.js("harness.server.render()")
    r.wait(f"!document.querySelector(`[data-node-id='{row(r, 3)}'] time`)")
    assert not timer_running(r)


def test_countdowns_tick_together_on_the_second_by_one_timer(r):
    # Five countdowns whose deadlines are whole seconds apart: each tick redraws them all at once,
    # as the second changes (never before: the text shows the time left rounded up), and the page
    # sets about one timeout a second for all of them, not one per row.
    rows = r.rows()
    r.js("""
      const now = harness.server.now() + 100;
      window.deadlines = {};
      harness.server.patch(arguments[0].map((id, i) => {
        window.deadlines[id] = now + (i + 3) * 1000;
        return {op: 'set', id, props: {countdown: window.deadlines[id]}};
      }));
      window.ticks = [];
      window.timeouts = 0;
      const setTimeoutBefore = window.setTimeout;
      window.setTimeout = function (...args) { window.timeouts += 1; return setTimeoutBefore.apply(this, args); };
      new MutationObserver((records) => {
        const at = harness.server.now();
        const changed = new Set();
        for (const record of records) {
          const time = (record.target.nodeType === 1 ? record.target : record.target.parentElement).closest('time');
          const id = time?.closest('[data-node-id]')?.dataset.nodeId;
          if (id && !changed.has(id)) {
            changed.add(id);
            window.ticks.push({at, id, text: time.querySelector('[aria-hidden]').textContent});
          }
        }
      }).observe(document.querySelector('[data-node-id=items]'), {subtree: true, childList: true, characterData: true});
    """, rows)
    time.sleep(2.6)
    ticks = r.js("return window.ticks")
    deadlines = r.js("return window.deadlines")
    timeouts = r.js("return window.timeouts")
    by_moment = {}
    for tick in ticks:
        by_moment.setdefault(tick["at"], []).append(tick)
        left = deadlines[tick["id"]] - tick["at"]
        shown = seconds(tick["text"])
        assert shown * 1000 >= left > (shown - 1) * 1000, f"{tick}: {left} ms left, not {tick['text']}"
        assert shown * 1000 - left < 400, f"{tick}: drawn {shown * 1000 - left} ms after its second changed"
    assert len(by_moment) >= 2, ticks
    for moment, together in by_moment.items():
        assert sorted(t["id"] for t in together) == sorted(rows), f"at {moment} only {together} ticked"
    assert 2 <= timeouts <= 4, f"{timeouts} timeouts in 2.6 s for five countdowns"


def test_deadlines_are_read_on_the_server_clock(page):
    # The server's clock is 10 minutes ahead of the browser's: a countdown due 10 min 30 s from the
    # browser's now is due 30 s from the server's.
    r = page
    r.open(f"motion=0&clock={10 * MINUTE}")
    welcome = next(m for m in r.js("return harness.server.delivered") if m["type"] == "welcome")
    assert isinstance(welcome["time"], int), welcome
    offset = r.js("return harness.app.view.countdowns.clockOffset")
    assert abs(offset - 10 * MINUTE) < 1_000, offset
    r.js("harness.server.patch([{op: 'set', id: arguments[0], props: {countdown: Date.now() + 10 * 60000 + 30000}}])", row(r, 0))
    assert read(r, 0)["time"]["text"] in ("0:30", "0:29")

    # Each welcome replaces the offset, and what is shown is redrawn at once.
    r.js("harness.server.clockSkew = 0; harness.server.welcome()")
    assert read(r, 0)["time"]["text"] in ("10:30", "10:29")
    assert abs(r.js("return harness.app.view.countdowns.clockOffset")) < 1_000


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_countdown_looks_like_the_detail(page, scheme):
    page.open("scene=countdown&motion=0", dark=scheme == "dark")
    assert page.js("return matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    style = page.js("""
      const time = document.querySelector('.ss-row time');
      const detail = [...document.querySelectorAll('.ss-row-detail')].find((d) => !d.hidden);
      const of = (el) => { const s = getComputedStyle(el); return {color: s.color, size: s.fontSize, numeric: s.fontVariantNumeric}; };
      return {time: of(time), detail: of(detail)};
    """)
    assert style["time"] == style["detail"], style
    assert style["time"]["numeric"] == "tabular-nums", style


def test_a_countdown_is_described_to_assistive_technology_and_is_no_live_region(r):
    count_down(r, 0, 65_000)
    live = r.js("""
      const time = document.querySelector(`[data-node-id='${arguments[0]}'] time`);
      return time.closest('[aria-live], [role=status], [role=timer], [role=alert], [role=log], [role=marquee]')?.outerHTML.slice(0, 80) ?? null;
    """, row(r, 0))
    assert live is None, f"inside a live region: {live}"
    # What Chromium gives assistive technology for the row's button: its title as the name, the
    # time left in words as the description.
    tree = r.d.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    buttons = [n for n in tree if n.get("role", {}).get("value") == "button" and n.get("name", {}).get("value") == "Shiny Spork"]
    assert buttons, "no button named Shiny Spork"
    description = buttons[0].get("description", {}).get("value", "")
    assert re.search(r"(^| )1 minute [2-5] seconds left$", description), description
    assert "1:0" not in description, f"the digits are for the eye only: {description!r}"


def test_the_countdown_scene_is_accessible(page):
    from accessibility import assert_accessible
    page.open("scene=countdown&motion=0")
    assert_accessible(page.d, "countdown rows")
