"""crash: SIGKILL under concurrent load, cycle after cycle, on one data directory and port.

Each cycle, K LootLogger windows act at once, as people would: Add on the list, select a row to see
an item's detail, Back from it. At a random moment the server is killed with SIGKILL and started
again; then every acknowledged intent must have kept its effect, and every window, reconnecting
with its `session`, `seq` and `route` as a browser does (PROTOCOL.md), must show the screen it was
on. The windows then carry on into the next cycle on the same sessions.

How an acknowledged Add is identified individually. An `ack` says the Add was handled, but not
which row it made: the row arrives as a patch to every window, sometimes after the ack. Adds
append, commits are serialised, and during the load nothing else changes the list, so the list is
always L0 (the list when the load began) followed by the added rows in commit order, and every
window sees a prefix of that one sequence. If A Adds were acknowledged before the kill, at least A
commits had happened, so the first len(L0) + A rows of that sequence are named, by their row ids
(`item-<UUID>`), as rows that must survive. G, the longest list any window saw, names them as far
as it reaches; acknowledged Adds beyond it (rows no window had seen yet) are counted. After the
restart the list a fresh window sees must start with exactly those rows in that order: a missing
row is a lost intent, and a row out of place means commits were lost or reordered. Rows committed
but not acknowledged may or may not be there, but only in commit order (durable commits are a
prefix). The same property keeps the rows deleted between cycles (see `trim`) deleted.

Where a window must be. Restoration is saved within 100 ms of a navigation, coalesced, so a
window whose last acknowledged navigation was acknowledged at least 600 ms before the kill, with
none sent since, must come back exactly there. One that navigated later may be at its previous
place or at any place it was sent to since: both are counted. Either way, the screen it shows
after reconnecting must be the screen the server has for it: each window then reconnects once more
without `route`, which makes the server draw its whole tree, and that tree must equal the one the
window was showing (else it is "out of step": the server resumed it on a screen it does not show).
"""
import json
import random
import socket
import threading
import time

from report import Result, log, n
from server import Server, ServerError
from viewtree import DETAIL_ROUTE_PREFIX, ITEM_ROW_PREFIX, LIST_ROUTE, OutOfStep, ViewTree
from wsclient import Closed, WebSocket, WebSocketError, hello

PATH = "/ws/lootlogger"
SAVE_MARGIN = 0.6       # seconds between a navigation's ack and the kill for its place to be certain
ACK_TIMEOUT = 10.0      # an intent not answered in this long, with the server up, is a stall
THINK = (0.02, 0.08)    # seconds a window waits between an answer and its next intent; stays under
                        # the per-connection rate limit (50 messages per second)
SELECT_SHARE = 0.4      # on the list, how often a window opens a row rather than adding one
DELETE_BATCH = 80       # deletes sent at once by one window between cycles
QUIET = 0.25            # seconds of quiet before the kill in a cycle with a quiet ending


class Pending:
    def __init__(self, ref, kind, target, sent):
        self.ref, self.kind, self.target, self.sent = ref, kind, target, sent


class Load:
    """What the windows share during one cycle's load: how many rows are surely committed."""

    def __init__(self, base):
        self.lock = threading.Lock()
        self.base = base
        self.acked_adds = 0

    def add_acknowledged(self):
        with self.lock:
            self.acked_adds += 1

    def committed(self):
        with self.lock:
            return self.base + self.acked_adds


class Window:
    """One browser window: its session, what it shows, and what it asked for."""

    def __init__(self, index, rng):
        self.index = index
        self.rng = rng
        self.ws = None
        self.session = None
        self.seq = None
        self.render_route = None   # the route of the last render: what `hello.route` carries
        self.tree = None
        self.last_list = []        # the item list as last shown
        self.next_ref = 1
        self.places = []           # (route, time acknowledged) since the load began
        self.pending = None
        self.problems = []
        self.nudge = threading.Event()   # navigate once, now, even though the load is quiet

    # MARK: - Messages

    def receive(self, message):
        kind = message["type"]
        if kind == "welcome":
            self.session = message["session"]
        elif kind == "render":
            self.tree = ViewTree(message["root"])
            self.seq = message["seq"]
            self.render_route = message["route"]
        elif kind == "patch":
            try:
                self.tree.apply(message["ops"])
            except OutOfStep as error:
                self.problems.append(f"window {self.index}: a patch does not apply to what it was sent: {error}")
                raise
            self.seq = message["seq"]
        elif kind == "resumed":
            self.seq = message["seq"]
        if kind in ("render", "patch"):
            items = self.tree.item_ids()
            if items is not None:
                self.last_list = items
        return message

    def connect(self, port, with_route=True):
        """Connects and says hello as a browser tab that kept its sessionStorage; returns
        "render" or "resumed", once whatever follows it has been applied."""
        self.ws = WebSocket.connect(port, PATH)
        self.ws.send_json(hello(self.session, self.seq, self.render_route if with_route else None))
        while True:
            message = self.receive(self.ws.recv_json(15))
            if message["type"] == "error":
                raise WebSocketError(f"window {self.index}: hello answered with {message}")
            if message["type"] in ("render", "resumed"):
                break
        # A patch follows a `resumed` at once if anything changed; the pong comes after it.
        self.sync()
        return message["type"]

    def sync(self):
        """Applies everything the server sent so far: a `ping` is answered in order."""
        self.ws.send_json({"type": "ping", "v": 1})
        while self.receive(self.ws.recv_json(15))["type"] != "pong":
            pass

    def disconnect(self):
        if self.ws:
            self.ws.close()
            self.ws = None

    # MARK: - The load

    def work(self, load, stop, quiet, settle_at):
        """Acts until the server goes away, then reads what it sent before it went. From
        `settle_at` on (if given) the window navigates no more: it adds if it is on the list.
        Once `quiet` is set it does nothing unless nudged."""
        self.places = [(self.tree.route, float("-inf"))]
        self.pending = None
        # Only what is seen during this load: a window on a detail screen has not seen the list as
        # trimmed, and the list it saw last no longer is.
        self.last_list = self.tree.item_ids() or []
        next_at = time.monotonic() + self.rng.uniform(*THINK)
        stopped_at = None
        while True:
            now = time.monotonic()
            if stop.is_set():
                stopped_at = stopped_at or now
                if now - stopped_at > ACK_TIMEOUT:
                    self.problems.append(f"window {self.index}: its socket stayed open after the kill")
                    return
            elif self.pending is None and (self.nudge.is_set() or (now >= next_at and not quiet.is_set())):
                try:
                    if self.nudge.is_set():
                        self.nudge.clear()
                        self.act(load, settled=False, navigate=True)
                    else:
                        self.act(load, settled=settle_at is not None and now >= settle_at)
                except Closed:
                    return
                next_at = now + self.rng.uniform(*THINK)
            elif self.pending and now - self.pending.sent > ACK_TIMEOUT:
                self.problems.append(f"window {self.index}: no answer to {self.pending.kind} "
                                     f"(ref {self.pending.ref}) within {ACK_TIMEOUT:.0f} s")
                return
            try:
                message = self.receive(self.ws.recv_json(0.02))
            except socket.timeout:
                continue
            except (Closed, OSError) as error:
                if not stop.is_set():
                    self.problems.append(f"window {self.index}: the connection ended before the kill: {error}")
                return
            except OutOfStep:
                return
            if self.answered(message, load):
                next_at = time.monotonic() + self.rng.uniform(*THINK)

    def act(self, load, settled, navigate=False):
        place = self.places[-1][0]
        if self.tree.route != place or (settled and place != LIST_ROUTE):
            return  # the screen's patch has not arrived yet, or the window stays where it is
        if place == LIST_ROUTE:
            # Only rows surely committed: their detail can be restored after a crash.
            rows = self.tree.item_ids()[:load.committed()]
            if rows and not settled and (navigate or self.rng.random() < SELECT_SHARE):
                row = self.rng.choice(rows)
                kind, node, name, target = "select", row, "select", DETAIL_ROUTE_PREFIX + row[len(ITEM_ROW_PREFIX):]
            else:
                kind, node, name, target = "add", "add", "tap", None
        else:
            kind, node, name, target = "back", "navigationBar", "back", LIST_ROUTE
        ref = self.next_ref
        self.next_ref += 1
        # Pending before it is sent: a send cut short by the kill may still have reached the server.
        self.pending = Pending(ref, kind, target, time.monotonic())
        self.ws.send_json({"type": "action", "v": 1, "ref": ref, "node": node, "name": name})

    def answered(self, message, load):
        """Handles an `ack` or `error`; whether it answered the pending intent."""
        pending = self.pending
        if message["type"] == "ack" and pending and message["ref"] == pending.ref:
            if pending.kind == "add":
                load.add_acknowledged()
            else:
                self.places.append((pending.target, time.monotonic()))
            self.pending = None
            return True
        if message["type"] == "error":
            self.problems.append(f"window {self.index}: {json.dumps(message)}")
            if pending and message.get("ref") in (pending.ref, None):
                self.pending = None
                return True
        return False

    def expectation(self, kill_time):
        """(the place the window must be at, [places it may be at instead])."""
        certain = max(i for i, (_, acknowledged) in enumerate(self.places) if acknowledged <= kill_time - SAVE_MARGIN)
        later = [route for route, _ in self.places[certain + 1:]]
        if self.pending and self.pending.kind != "add":
            later.append(self.pending.target)
        return self.places[certain][0], later


# MARK: - The suite


def observe(port):
    """A fresh window's list (a new session, so it shows the list), and the window for more."""
    window = Window(-1, None)
    window.connect(port)
    return window


def leave(window):
    """Closes a helper window for good: `closing` lets the server discard its session."""
    try:
        window.ws.send_json({"type": "closing", "v": 1})
    except Closed:
        pass
    window.disconnect()


def trim(port, windows, maximum, result, stats):
    """Keeps the list at most `maximum` rows between cycles, so that renders stay small: deletes
    the oldest rows no window shows the detail of, each acknowledged, down to half of `maximum`.
    Their staying deleted is checked after the next kill (the list must then start with the list
    as trimmed). Returns the list as a fresh window then sees it."""
    helper = observe(port)
    rows = helper.last_list
    leave(helper)
    if len(rows) > maximum:
        shown = {w.tree.route[len(DETAIL_ROUTE_PREFIX):] for w in windows if w.tree.route != LIST_ROUTE}
        doomed = [r for r in rows[:len(rows) - maximum // 2] if r[len(ITEM_ROW_PREFIX):] not in shown]
        # A window of its own for each batch: each connection may send 100 messages at once.
        for start in range(0, len(doomed), DELETE_BATCH):
            delete(port, doomed[start:start + DELETE_BATCH], result, stats)
        helper = observe(port)
        rows = helper.last_list
        leave(helper)
    return rows


def delete(port, rows, result, stats):
    helper = observe(port)
    try:
        refs = set()
        for row in rows:
            refs.add(helper.next_ref)
            helper.ws.send_json({"type": "action", "v": 1, "ref": helper.next_ref, "node": row, "name": "delete"})
            helper.next_ref += 1
        while refs:
            message = helper.receive(helper.ws.recv_json(ACK_TIMEOUT))
            if message["type"] == "ack":
                refs.discard(message["ref"])
                stats["deletes"] += 1
            elif message["type"] == "error":
                result.fail(f"a delete between cycles was refused: {json.dumps(message)}")
                refs.discard(message.get("ref"))
    finally:
        leave(helper)


def check_list(before, seen, acked_adds, after, stats, result, cycle):
    """The list after the restart against the list before the load, the rows seen and the
    acknowledged Adds (see the module's comment)."""
    required = len(before) + acked_adds
    named = min(required, len(seen))
    present = set(after)
    missing = [row for row in seen[:named] if row not in present]
    found_named = named - len(missing)
    beyond = max(0, len(after) - found_named)
    lost = len(missing) + max(0, (required - named) - beyond)
    stats["lost"] += lost
    stats["identified"] += max(0, named - len(before))
    stats["counted"] += required - named
    stats["kept_unacknowledged"] += max(0, len(after) - required)
    if lost:
        result.fail(f"cycle {cycle}: {lost} acknowledged Adds lost (list before {len(before)} rows, "
                    f"{acked_adds} Adds acknowledged, {len(after)} rows after the restart); "
                    f"missing rows: {missing[:5]}")
    common = min(len(after), len(seen))
    if after[:common] != seen[:common]:
        first = next(i for i in range(common) if after[i] != seen[i])
        stats["out_of_order"] += 1
        result.fail(f"cycle {cycle}: the list after the restart is not the committed rows in order: "
                    f"row {first} is {after[first]}, was {seen[first]}")


def run(options):
    result = Result("crash")
    rng = random.Random(options.seed)
    log(f"crash: seed {options.seed}, {options.cycles} cycles, {options.windows} windows, "
        f"kill after {options.kill_min}-{options.kill_max} s of load")
    stats = dict(cycles=0, acknowledged=0, adds=0, navigations=0, deletes=0, lost=0, identified=0, counted=0,
                 kept_unacknowledged=0, out_of_order=0, windows_checked=0, misplaced=0, late_windows=0,
                 late_at_previous=0, late_at_new=0, late_misplaced=0, out_of_step=0, resumed=0, rendered=0,
                 list_mismatches=0, restart_seconds_max=0.0)
    server = Server()
    windows = [Window(i, random.Random(rng.random())) for i in range(options.windows)]
    try:
        server.start()
        for window in windows:
            window.connect(server.port)
        for cycle in range(1, options.cycles + 1):
            if not cycle_once(cycle, server, windows, rng, options, stats, result):
                break
            stats["cycles"] = cycle
        for window in windows:
            window.disconnect()
        status = server.stop()
        if status != 0:
            result.fail(f"the server exited with status {status} on SIGTERM after the last cycle")
    except (ServerError, WebSocketError, OSError, Closed, OutOfStep) as error:
        result.fail(f"{error.__class__.__name__}: {error}\nserver log:\n{server.log_tail()}")
    finally:
        for window in windows:
            result.failures.extend(p for p in window.problems if p not in result.failures)
        server.cleanup()
    stats["acknowledged"] = stats["adds"] + stats["navigations"] + stats["deletes"]
    result.figures = stats
    result.summary = (
        f"crash: {n(stats['cycles'])} cycles, {n(stats['acknowledged'])} acknowledged intents "
        f"({n(stats['adds'])} adds, {n(stats['navigations'])} navigations, {n(stats['deletes'])} deletes), "
        f"{n(stats['lost'])} lost ({n(stats['identified'])} adds identified by row id, {n(stats['counted'])} by count, "
        f"{n(stats['kept_unacknowledged'])} unacknowledged kept); "
        f"{n(stats['windows_checked'])} windows checked, {n(stats['misplaced'])} misplaced; "
        f"{n(stats['late_windows'])} navigated late ({n(stats['late_at_previous'])} at previous place, "
        f"{n(stats['late_at_new'])} at new, {n(stats['late_misplaced'])} elsewhere); "
        f"{n(stats['out_of_step'])} out of step with the server; slowest restart {stats['restart_seconds_max']:.2f} s")
    return result


def cycle_once(cycle, server, windows, rng, options, stats, result):
    """One cycle: load, kill, restart, check. Returns False if the suite cannot go on."""
    before = trim(server.port, windows, options.max_items, result, stats)
    for window in windows:
        window.sync()
    load = Load(len(before))
    stop = threading.Event()
    # The kill comes after `duration`, unknown to the server. Half the windows settle at a random
    # moment of the load and navigate no more, so that many are checked at an exact place.
    duration = rng.uniform(options.kill_min, options.kill_max)
    started = time.monotonic()
    settle = [started + rng.uniform(0, duration) if rng.random() < 0.5 else None for _ in windows]
    quiet = threading.Event()
    threads = [threading.Thread(target=w.work, args=(load, stop, quiet, at), daemon=True)
               for w, at in zip(windows, settle)]
    for thread in threads:
        thread.start()
    if cycle % 2 == 0:
        # A quiet ending: the load stops and every intent is answered, then a quarter of the
        # windows navigate and the kill follows within tens of milliseconds, before the navigation
        # can have been saved. Each window then shows a screen the restarted server does not have
        # for it, with its `seq` up to date: the server must redraw it, not resume it.
        time.sleep(max(0.0, started + duration - QUIET - time.monotonic()))
        quiet.set()
        time.sleep(QUIET)
        for window in rng.sample(windows, max(1, len(windows) // 4)):
            window.nudge.set()
        time.sleep(rng.uniform(0.02, 0.06))
    else:
        time.sleep(max(0.0, started + duration - time.monotonic()))
    if not server.alive():
        result.fail(f"cycle {cycle}: the server exited on its own (status {server.process.returncode}) "
                    f"under load:\n{server.log_tail()}")
        return False
    # Windows stop acting (and keep reading what the server sent) just before the kill.
    stop.set()
    kill_time = time.monotonic()
    server.kill()
    for thread in threads:
        thread.join()
    if any(w.problems for w in windows):
        return False

    acked_adds = load.acked_adds
    stats["adds"] += acked_adds
    stats["navigations"] += sum(len(w.places) - 1 for w in windows)
    seen = max([before] + [w.last_list for w in windows], key=len)
    for window in windows:
        if window.last_list != seen[:len(window.last_list)]:
            result.fail(f"cycle {cycle}: window {window.index} saw the rows in another order than "
                        f"window(s) with the longest list")
    if seen[:len(before)] != before:
        result.fail(f"cycle {cycle}: the list changed under the load other than by Adds")

    restart = server.start()
    stats["restart_seconds_max"] = max(stats["restart_seconds_max"], restart)

    # Every window reconnects as its browser would, and must be where it was.
    for window in windows:
        certain, later = window.expectation(kill_time)
        window.disconnect()
        kind = window.connect(server.port)
        stats["resumed" if kind == "resumed" else "rendered"] += 1
        shown = window.tree.route
        if not later:
            stats["windows_checked"] += 1
            if shown != certain:
                stats["misplaced"] += 1
                result.fail(f"cycle {cycle}: window {window.index} came back at {shown!r} ({kind}); its last "
                            f"navigation, acknowledged at least {SAVE_MARGIN * 1000:.0f} ms before the kill, "
                            f"was to {certain!r}")
        else:
            stats["late_windows"] += 1
            if shown == certain:
                stats["late_at_previous"] += 1
            elif shown in later:
                stats["late_at_new"] += 1
            else:
                stats["late_misplaced"] += 1
                stats["misplaced"] += 1
                result.fail(f"cycle {cycle}: window {window.index} came back at {shown!r}; it was at "
                            f"{certain!r} and then sent to {later}")
        # What the server draws afresh must be what the window shows.
        shown_tree = json.dumps(window.tree.root, sort_keys=True)
        window.disconnect()
        window.connect(server.port, with_route=False)
        if json.dumps(window.tree.root, sort_keys=True) != shown_tree:
            stats["out_of_step"] += 1
            result.fail(f"cycle {cycle}: window {window.index} was {kind} showing {shown!r}, but the server's "
                        f"own tree for it shows {window.tree.route!r} (certain place {certain!r}, "
                        f"navigated since: {later})")

    helper = observe(server.port)
    after = helper.last_list
    leave(helper)
    check_list(before, seen, acked_adds, after, stats, result, cycle)
    for window in windows:
        if window.tree.route == LIST_ROUTE and window.last_list != after:
            stats["list_mismatches"] += 1
            result.fail(f"cycle {cycle}: window {window.index} shows {len(window.last_list)} rows, "
                        f"a fresh window {len(after)}")
    log(f"  cycle {cycle}: {acked_adds} adds acknowledged, list {len(before)} -> {len(after)} rows "
        f"({len(seen)} seen), restart {restart:.2f} s")
    return True
