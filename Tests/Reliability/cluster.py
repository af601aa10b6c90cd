#!/usr/bin/env python3
"""cluster: three `scenesync` nodes on one PostgreSQL behind nginx (`deploy/local-cluster`), under load,
while nodes die, restart one by one, or hang.

Windows are raw WebSocket windows (cluster_windows.py) connected through nginx, each signed in to
Chat as a person of its own and sending messages with unique texts ("<phase tag> w<window> r<ref>")
into a conversation shared with a few others, one to three at a time, under Chat's pace of 2 a
second. Each keeps what it was told: acknowledged refs, refused refs, refs unanswered when a
connection dropped. After a reconnect (jittered backoff, as the browser) and once drawn, it sends
every unanswered action again with the same ref and `resend: true` (PROTOCOL.md).

Phases, each with its own tag:

- failover: kill -9 (`local-cluster kill-node`) of a node under load, the node a Chromium window
  on a conversation with a typed draft is on; its windows reconnect through nginx to the others;
  the node is started again. Repeated for `--kills` cycles (a different node each time).
- client drops: windows cut their own connection just after sending (a flaky network); their
  resends meet messages already committed.
- rolling: `stop-node K` (SIGTERM) then `start-node K`, K = 1..N in turn, under load.
- half-open (long profile, or `--half-open`): SIGSTOP a node; its windows, which ping every
  `PING` s, drop a connection silent for `SILENCE` s and reconnect; local-cluster's watchdog kills
  the frozen node after 10 s and starts it again, and they land elsewhere; SIGCONT after.

Then, with the load stopped and every window drawn and answered (or the drain timed out):

- every acknowledged message is in Chat's records (psql on `scenesync_record`) exactly once; every
  message never answered at most once; every refused one not at all; no text nobody sent;
- every intent is answered in the end (a window that does not resend leaves them unanswered);
- every reconnect of a window was drawn on the screen it showed before the drop (its conversation,
  not the start screen): routes before and after compared;
- no `error` message to any window (at this pace Chat refuses nothing);
- the Chromium window comes back on the same conversation with its draft, after the kill and again
  after a reload (drawn from the database by whichever node), with no error shown.

`python3 cluster.py bench --windows 1000` measures instead (see BENCHMARKS.md, "A cluster").
"""
import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cluster_windows import Window, backoff_connect  # noqa: E402
from report import Result, log, n  # noqa: E402
from server import REPO, binary_path  # noqa: E402

LOCAL_CLUSTER = os.path.join(REPO, "deploy", "local-cluster")
PING = 2.0          # seconds between a window's pings (the browser: 20)
SILENCE = 6.0       # seconds of silence after which a window drops its connection (the browser: 45)
THINK = (0.5, 0.8)  # seconds per message a window waits after a burst: about 1.5 a second, under Chat's 2
DRAIN_TIMEOUT = 45.0
GROUP = 4           # windows per conversation


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


# MARK: - The cluster


def free_port_range(count):
    """A port P with P..P+count-1 all free on 127.0.0.1."""
    rng = random.Random()
    for _ in range(200):
        # Below the kernel's ephemeral ports (32768 and up), which outgoing connections take;
        # local-cluster puts PostgreSQL on P+100.
        base = rng.randrange(20000, 32500 - count)
        sockets = []
        try:
            for offset in range(count):
                s = socket.socket()
                s.bind(("127.0.0.1", base + offset))
                sockets.append(s)
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no free range of ports")


class ClusterError(Exception):
    pass


class Cluster:
    """`deploy/local-cluster` on a temporary directory and a free port: PostgreSQL, `nodes` scenesync
    nodes (node K on port P+K) and nginx on P. `node_args` go to every node through
    SCENESYNC_NODE_ARGS."""

    def __init__(self, nodes=3, node_args=()):
        if not os.access(LOCAL_CLUSTER, os.X_OK):
            raise ClusterError(f"{LOCAL_CLUSTER} is missing (or not executable)")
        missing = [tool for tool in ("nginx", "psql") if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}")]
        if not any(os.path.exists(p) for p in ["/usr/lib/postgresql"]) and not shutil.which("initdb"):
            missing.append("PostgreSQL (initdb)")
        if missing:
            raise ClusterError(f"missing: {', '.join(missing)} (apt-get install -y postgresql nginx)")
        self.dir = tempfile.mkdtemp(prefix="scenesync-cluster-")
        os.chmod(self.dir, 0o755)  # PostgreSQL runs as its own user when this runs as root
        self.nodes = nodes
        self.port = free_port_range(nodes + 1)
        self.node_args = list(node_args)
        self.database_url = None
        self.started = False
        self.retries = []

    def _run(self, *args, timeout=120):
        try:
            return self._run_once(*args, timeout=timeout)
        except ClusterError as error:
            # local-cluster can take a node that is still exec'ing for one that exited (its
            # command line is empty for a moment): a node that is up is then found "already up".
            if args[0] not in ("start", "start-node") or "exited while starting" not in str(error):
                raise
            self.retries.append(f"{args[0]}: {str(error).splitlines()[-1]}")
            log(f"  note: local-cluster {' '.join(args)} said a node exited while starting; once more")
            return self._run_once(*args, timeout=timeout)

    def _run_once(self, *args, timeout=120):
        env = dict(os.environ, SCENESYNC_BIN=binary_path())
        if self.node_args:
            env["SCENESYNC_NODE_ARGS"] = " ".join(self.node_args)
        command = [LOCAL_CLUSTER, *args, "--dir", self.dir, "--port", str(self.port), "--nodes", str(self.nodes)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        if result.returncode != 0:
            raise ClusterError(f"{' '.join(command[1:2] + list(args[1:]))} exited {result.returncode}: "
                               f"{(result.stderr or result.stdout).strip()[-1500:]}")
        return result.stdout

    def start(self):
        self.started = True
        out = self._run("start", timeout=180)
        # local-cluster keeps PostgreSQL's port in DIR/pg/port and names the database `scenesync`.
        with open(os.path.join(self.dir, "pg", "port")) as f:
            self.database_url = f"postgres://postgres@127.0.0.1:{f.read().strip()}/scenesync"
        return out

    def node_port(self, k):
        return self.port + k

    def pid(self, k):
        try:
            with open(os.path.join(self.dir, "run", f"node{k}.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def kill_node(self, k):
        self._run("kill-node", str(k))

    def stop_node(self, k):
        self._run("stop-node", str(k))

    def start_node(self, k):
        self._run("start-node", str(k), timeout=120)

    def signal_node(self, k, sig):
        pid = self.pid(k)
        if pid is None:
            raise ClusterError(f"no pid for node {k}")
        os.kill(pid, sig)

    def node_log(self, k, lines=20):
        try:
            with open(os.path.join(self.dir, "logs", f"node{k}.log"), "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def psql(self, sql):
        """Rows of `sql` as lists of strings."""
        result = subprocess.run(["psql", self.database_url, "-X", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise ClusterError(f"psql: {result.stderr.strip()}")
        return [line.split("\t") for line in result.stdout.splitlines() if line]

    def nodes_of(self, sessions, scope):
        """{session: connected node} for the sessions given (None when not connected)."""
        rows = self.psql(f"SELECT id, coalesce(connected_node, '') FROM scenesync_session WHERE scope = '{scope}'")
        found = {row[0]: row[1] or None for row in rows}
        return {s: found.get(s) for s in sessions}

    def stop(self):
        if self.started:
            try:
                self._run("stop")
            except (ClusterError, subprocess.TimeoutExpired) as error:
                log(f"  note: local-cluster stop: {error}")
            self.started = False

    def cleanup(self, keep=False):
        self.stop()
        if keep:
            log(f"  the cluster's directory is kept: {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def node_number(name):
    """`nodeK` -> K."""
    if name and name.startswith("node") and name[4:].isdigit():
        return int(name[4:])
    return None


# MARK: - Chat windows


class ChatLoad:
    """`count` Chat windows through nginx, each a person, in conversations of GROUP."""

    def __init__(self, cluster, count, rng, resend, run_id):
        self.cluster, self.count, self.rng, self.resend, self.run_id = cluster, count, rng, resend, run_id
        self.windows = []
        self.rows = {}              # window index -> its conversation's row id
        self.stop = None
        self.tasks = []
        self.tag = None
        self.flaky = 0.0           # chance per burst that the window's connection is cut just after

    async def setup(self):
        port = self.cluster.port
        deadline = time.monotonic() + 60
        self.windows = [Window(i, "chat", port, device=os.urandom(16).hex(), source=f"127.0.0.{2 + i % 200}",
                               resend=self.resend, ping_interval=PING, silence_timeout=SILENCE,
                               rng=random.Random(self.rng.random()))
                        for i in range(self.count)]
        await asyncio.gather(*(backoff_connect(w, deadline) for w in self.windows))
        for w in self.windows:
            await self._answered(w, "sign-in", "commit", self.name(w))
        for w in self.windows:
            await self._until(w, lambda: w.node("new-conversation"), "the conversation list after signing in")
        for start in range(0, self.count, GROUP):
            group = self.windows[start:start + GROUP]
            leader, others = group[0], group[1:]
            title = f"Room {start // GROUP} {self.run_id}"
            participants = ", ".join(self.name(w) for w in others) or self.name(leader)
            for node, name, value in (("new-conversation", "tap", None), ("title", "commit", title),
                                      ("participants", "commit", participants), ("start", "tap", None)):
                await self._answered(leader, node, name, value)
            await self._until(leader, lambda: leader.node("composer"), "the new conversation's composer")
            row = next((i for i in leader.tree.nodes if i.startswith("conversation-")), None)
            if row is None:
                raise ClusterError(f"window {leader.index}: no conversation row after Start")
            for w in group:
                self.rows[w.index] = row
            for w in others:
                await self._until(w, lambda w=w: w.node(row), f"the row of {title!r}")
                await self._answered(w, row, "select")
                await self._until(w, lambda w=w: w.node("composer"), "the conversation's composer")
        self.routes = {w.index: w.screen_route for w in self.windows}

    def name(self, window):
        return f"W{window.index} {self.run_id}"

    async def _answered(self, window, node, name, value=None):
        intent = await window.act(node, name, value)
        if intent.answer != "ack":
            raise ClusterError(f"window {window.index}: {node} {name} {value!r} answered {intent.answer}")

    async def _until(self, window, condition, what, timeout=15.0):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise ClusterError(f"window {window.index}: no {what} within {timeout:.0f} s "
                                   f"(route {window.screen_route})")
            await window.sync()
            await asyncio.sleep(0.05)

    # MARK: The load

    def begin(self, tag):
        """Every window sends messages tagged `tag` until `end()`."""
        self.tag = tag
        self.stop = asyncio.Event()
        self.tasks = [asyncio.ensure_future(self._act(w)) for w in self.windows]

    async def _act(self, window):
        await asyncio.sleep(self.rng.uniform(0, THINK[1]))
        while not self.stop.is_set():
            if window.connected and not window.pending and window.node("composer"):
                burst = self.rng.choice((1, 1, 2, 3))
                for _ in range(burst):
                    window.send_action("composer", "send", f"{self.tag} w{window.index} r{window.next_ref}")
                if self.flaky and self.rng.random() < self.flaky:
                    # The window's network goes away just after it sent: the node carries the
                    # messages out (or not) and answers into a closed connection.
                    await asyncio.sleep(self.rng.uniform(0.0, 0.01))
                    if window.link is not None:
                        window.link.abort()
                try:
                    await asyncio.wait_for(self.stop.wait(), burst * self.rng.uniform(*THINK))
                except asyncio.TimeoutError:
                    pass
            else:
                await asyncio.sleep(0.05)

    async def end(self, timeout=DRAIN_TIMEOUT):
        """Stops sending; waits until every window is drawn and has no unanswered intent."""
        self.stop.set()
        await asyncio.gather(*self.tasks)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(w.connected and not w.pending for w in self.windows):
                return True
            await asyncio.sleep(0.1)
        return False

    def intents(self, tag):
        """(acked, refused, unanswered) texts of intents tagged `tag`, over every window."""
        prefix = f"{tag} "
        acked, refused, unanswered = [], [], []
        for w in self.windows:
            for bucket, target in ((w.acked, acked), (w.refused, refused), (w.pending, unanswered)):
                for intent in bucket.values():
                    if intent.name == "send" and isinstance(intent.value, str) and intent.value.startswith(prefix):
                        target.append(intent.value)
        return acked, refused, unanswered

    def marks(self):
        """Where each window's history is now: phases check only what came after."""
        return {w.index: (len(w.restorations), len(w.errors), len(w.unanswered_at_drop), w.resent, len(w.problems))
                for w in self.windows}


def stored_texts(cluster, tag):
    """{text: count} of Chat messages in the records whose text starts with `tag`."""
    rows = cluster.psql(
        "SELECT convert_from(value, 'UTF8')::json->>'text' AS text, count(*) FROM scenesync_record "
        f"WHERE app = 'chat' AND collection = 'messages' AND convert_from(value, 'UTF8')::json->>'text' LIKE '{tag} %' "
        "GROUP BY 1")
    return {text: int(count) for text, count in rows}


def committed_before(cluster, texts, wall):
    """Those of `texts` whose message was committed before `wall` (time.time()): its `sentAt`
    (seconds since 2001-01-01, the commit's moment on this machine's clock) is earlier."""
    quoted = ", ".join("'" + t.replace("'", "''") + "'" for t in texts)
    rows = cluster.psql(
        "SELECT convert_from(value, 'UTF8')::json->>'text', (convert_from(value, 'UTF8')::json->>'sentAt')::float8 "
        f"FROM scenesync_record WHERE app = 'chat' AND collection = 'messages' "
        f"AND convert_from(value, 'UTF8')::json->>'text' IN ({quoted})")
    return [text for text, sent in rows if float(sent) + 978307200 < wall]


def check_phase(result, cluster, load, tag, marks, figures, drained):
    """The checks after a phase: exactly once, restoration, no errors."""
    acked, refused, unanswered = load.intents(tag)
    stored = stored_texts(cluster, tag)
    lost = [t for t in acked if stored.get(t, 0) == 0]
    duplicated = [t for t in acked + unanswered + refused if stored.get(t, 0) > 1]
    refused_kept = [t for t in refused if stored.get(t, 0)]
    sent = set(acked) | set(refused) | set(unanswered)
    strangers = [t for t in stored if t not in sent]
    unanswered_kept = [t for t in unanswered if stored.get(t, 0) == 1]
    restorations, misplaced, errors, dropped_unanswered, resent, problems = [], [], [], 0, 0, []
    for w in load.windows:
        r0, e0, u0, s0, p0 = marks[w.index]
        for dropped_at, drawn_at, kind, before, after in w.restorations[r0:]:
            if dropped_at is None:
                continue
            restorations.append(drawn_at - dropped_at)
            if after != before:
                misplaced.append(f"window {w.index}: was on {before!r}, drawn on {after!r} ({kind})")
        errors += [(w.index, e) for e in w.errors[e0:]]
        dropped_unanswered += len(w.unanswered_at_drop) - u0
        resent += w.resent - s0
        problems += w.problems[p0:]
    # Resent intents the database already held when they were resent: answered, not done again.
    resent_intents = [w.intent(ref) for w in load.windows for ref in w.acked
                      if w.acked[ref].resent_wall and isinstance(w.acked[ref].value, str)
                      and w.acked[ref].value.startswith(f"{tag} ")]
    already = 0
    if resent_intents:
        # The first copy's commit, if a message is there more than once.
        committed = dict(cluster.psql(
            "SELECT convert_from(value, 'UTF8')::json->>'text', min((convert_from(value, 'UTF8')::json->>'sentAt')::float8) "
            "FROM scenesync_record WHERE app = 'chat' AND collection = 'messages' AND "
            f"convert_from(value, 'UTF8')::json->>'text' LIKE '{tag} %' GROUP BY 1"))
        already = sum(1 for i in resent_intents
                      if i.value in committed and float(committed[i.value]) + 978307200 < i.resent_wall)
    figures.update(acked=len(acked), refused=len(refused), unanswered=len(unanswered),
                   unanswered_kept=len(unanswered_kept), stored=sum(stored.values()), lost=len(lost),
                   duplicated=len(duplicated), unanswered_at_drops=dropped_unanswered, resent=resent,
                   resent_already_committed=already,
                   reconnects=len(restorations), misplaced=len(misplaced), errors=len(errors),
                   restore_p50_ms=ms(percentile(restorations, 0.5)), restore_p99_ms=ms(percentile(restorations, 0.99)),
                   restore_max_ms=ms(max(restorations) if restorations else None))
    name = figures.get("phase", tag)
    if lost:
        result.fail(f"{name}: {len(lost)} acknowledged messages are not in the records, e.g. {lost[:3]}")
    if duplicated:
        result.fail(f"{name}: {len(duplicated)} messages are in the records more than once, e.g. "
                    f"{[(t, stored[t]) for t in duplicated[:3]]}")
    if refused_kept:
        result.fail(f"{name}: {len(refused_kept)} refused messages are in the records, e.g. {refused_kept[:3]}")
    if strangers:
        result.fail(f"{name}: {len(strangers)} messages in the records that no window sent, e.g. {strangers[:3]}")
    if unanswered:
        result.fail(f"{name}: {len(unanswered)} intents still unanswered {DRAIN_TIMEOUT:.0f} s after the load stopped "
                    f"(windows not drawn: {sum(not w.connected for w in load.windows)}), e.g. {unanswered[:3]}")
    elif not drained:
        result.fail(f"{name}: {DRAIN_TIMEOUT:.0f} s after the load stopped, windows not drawn: "
                    f"{[w.index for w in load.windows if not w.connected][:10]}, windows with intents unanswered "
                    f"(of any phase): {[w.index for w in load.windows if w.pending][:10]}")
    if misplaced:
        result.fail(f"{name}: {len(misplaced)} reconnects drawn elsewhere than the window was: {misplaced[:3]}")
    if errors:
        codes = {}
        for _, e in errors:
            codes[e.get("code")] = codes.get(e.get("code"), 0) + 1
        result.fail(f"{name}: {len(errors)} error messages to windows ({codes}), e.g. {errors[:2]}")
    if problems:
        result.fail(f"{name}: {problems[:3]}")
    log(f"  {name}: {figures}")


# MARK: - The Chromium window


class BrowserWindow:
    """A Chromium window signed in to Chat through nginx, on a conversation, with a draft typed."""

    def __init__(self, base_url):
        browser_dir = os.path.join(REPO, "Tests", "Browser")
        if browser_dir not in sys.path:
            sys.path.insert(0, browser_dir)
        import conftest  # noqa: F401
        import test_chat
        import test_lootlogger
        self.chat, self.loot = test_chat, test_lootlogger
        self.base_url = base_url
        self.url = base_url  # what test_chat's helpers take as a server
        self.driver = conftest.chromium()
        self.driver.implicitly_wait(0)

    def prepare(self, name, title, draft):
        chat = self.chat
        chat.sign_in(self.driver, self, name)
        chat.open_conversation(self.driver, title)
        chat.composer(self.driver).send_keys(draft)
        self.session = self.driver.execute_script("return sessionStorage.getItem('scenesync.session.chat')")
        self.route = self.screen_route()
        return self.session

    def screen_route(self):
        return self.driver.execute_script(
            "const s = document.querySelector('[data-node-id=screen]'); return s && (s.dataset.route || s.getAttribute('data-route'))")

    def state(self):
        return self.driver.execute_script(
            "const e = document.querySelector('[data-state]'); return e && e.getAttribute('data-state')")

    def shown(self):
        """(title, composer text, notices and errors shown)."""
        chat = self.chat
        d = self.driver
        composer = d.find_elements(By.CSS_SELECTOR, "[data-node-id=composer] textarea, [data-node-id=composer] input")
        text = composer[0].get_attribute("value") if composer else None
        shown_errors = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".ss-toast, [data-kind=notice], [data-kind=alert]")
                        if e.text.strip()]
        error = chat.composer_error(d)
        if error:
            shown_errors.append(error)
        return chat.title(d), text, shown_errors

    def console_errors(self):
        try:
            return [e["message"] for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"
                    and "WebSocket" not in e["message"] and "ERR_CONNECTION" not in e["message"]]
        except Exception:
            return []

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass


try:
    from selenium.webdriver.common.by import By
except ImportError:  # checked when the browser is needed
    By = None


def draft_saved(cluster, session, text):
    rows = cluster.psql(f"SELECT convert_from(value, 'UTF8') FROM scenesync_draft WHERE scope = 'chat' "
                        f"AND session_id = '{session}'")
    return any(text in row[0] for row in rows)


def wait_for(condition, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    return condition()


# MARK: - The suite


async def run_async(options, result, cluster):
    rng = random.Random(options.seed)
    run_id = f"{options.seed % 100000:05d}"
    loop = asyncio.get_running_loop()
    load = ChatLoad(cluster, options.cluster_windows, rng, options.resend_mode, run_id)
    started = time.monotonic()
    await load.setup()
    figures = result.figures
    figures["windows"] = options.cluster_windows
    figures["setup_seconds"] = round(time.monotonic() - started, 1)
    sessions = {w.session: w.index for w in load.windows}
    spread = {}
    for node in cluster.nodes_of(list(sessions), "chat").values():
        spread[node] = spread.get(node, 0) + 1
    figures["spread"] = spread
    log(f"  {options.cluster_windows} Chat windows through nginx on port {cluster.port}, spread {spread}, "
        f"resend {options.resend_mode}")

    # The Chromium window: a person of its own in the first conversation.
    browser = None
    if options.browser:
        try:
            browser = await loop.run_in_executor(None, BrowserWindow, f"http://127.0.0.1:{cluster.port}")
        except Exception as error:
            result.fail(f"browser: Chromium could not start ({error.__class__.__name__}: {error}); "
                        f"apt-get install -y chromium chromium-driver and pip install selenium, or --no-browser")
            browser = None
    browser_figures = {}
    if browser is not None:
        try:
            await browser_prepare(browser, load, cluster, run_id, browser_figures)
        except Exception as error:
            result.fail(f"browser: preparing the window failed: {error.__class__.__name__}: {error}")
            browser.quit()
            browser = None

    # Failover: kill -9 a node under load, `kills` times; the first kill takes the browser's node.
    for cycle in range(options.kills):
        tag = f"F{cycle}-{run_id}"
        marks = load.marks()
        phase = {"phase": f"failover {cycle + 1}"}
        load.begin(tag)
        await asyncio.sleep(rng.uniform(*options.load_before))
        if cycle == 0 and browser is not None and browser_figures.get("node"):
            victim = browser_figures["node"]
        else:
            victim = 1 + (cycle % cluster.nodes)
        on_victim = [s for s, node in cluster.nodes_of(list(sessions), "chat").items() if node_number(node) == victim]
        victims = {sessions[s] for s in on_victim}
        in_flight_kill = cycle % 2 == 1
        if in_flight_kill:
            # Aimed at intents in flight: as soon as a window of the node has had a message out for
            # a millisecond or more, the node is frozen (SIGSTOP, at once), then killed. PostgreSQL,
            # another process, finishes a commit the node was waiting for: committed, never acknowledged.
            # The delay after the send is drawn from 0-4 ms: sooner, the node has not read it yet
            # (never carried out); later, it may be committing it, or have answered already.
            delay = rng.uniform(0.0, 0.004)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                now = time.monotonic()
                if any(now - i.sent_at >= delay for w in load.windows if w.index in victims for i in w.pending.values()):
                    break
                await asyncio.sleep(0)
            cluster.signal_node(victim, signal.SIGSTOP)
        killed_at, killed_wall = time.monotonic(), time.time()
        browser_check = None
        if cycle == 0 and browser is not None:
            browser_check = loop.run_in_executor(None, browser_after_kill, browser, cluster, browser_figures, result,
                                                 killed_at)
        await loop.run_in_executor(None, cluster.kill_node, victim)
        phase.update(killed=f"node{victim}", how="SIGSTOP with intents in flight, then kill-node" if in_flight_kill
                     else "kill-node at a random moment", windows_on_it=len(on_victim))
        await asyncio.sleep(options.load_after)
        if browser_check is not None:
            await browser_check
        await loop.run_in_executor(None, cluster.start_node, victim)
        await asyncio.sleep(2.0)
        drained = await load.end()
        # The intents the killed node's windows had out when their connection dropped, and which
        # of them it had committed before it died (so their resend had to be answered, not done).
        in_flight = [w.intent(ref).value for w in load.windows if w.index in victims
                     for ref in w.unanswered_at_drop[marks[w.index][2]:]]
        committed = committed_before(cluster, in_flight, killed_wall) if in_flight else []
        phase.update(in_flight_at_drop=len(in_flight), of_them_committed_before_kill=len(committed))
        moved = [w for w in load.windows if w.index in victims]
        times = [r[1] - killed_at for w in moved for r in w.restorations[marks[w.index][0]:] if r[0] is not None][:len(moved)]
        phase.update(victim_restored=len(times), victim_restore_p50_ms=ms(percentile(times, 0.5)),
                     victim_restore_max_ms=ms(max(times) if times else None))
        not_back = [w.index for w in moved if len(w.restorations) <= marks[w.index][0]]
        if not_back:
            result.fail(f"failover {cycle + 1}: windows {not_back[:10]} on the killed node never reconnected: "
                        + "; ".join(f"window {w.index}: {w.failed_connects} failed attempts, the last {w.last_failure}"
                                    for w in moved if w.index in not_back[:3]))
        check_phase(result, cluster, load, tag, marks, phase, drained)
        figures.setdefault("failover", []).append(phase)
    if browser is not None:
        figures["browser"] = browser_figures
        browser.quit()

    # Client drops: windows lose their own connection just after sending (flaky networks); no
    # node dies. Their resends meet messages already committed: answered, never done twice.
    tag = f"C-{run_id}"
    marks = load.marks()
    phase = {"phase": "client drops"}
    load.flaky = 0.15
    load.begin(tag)
    await asyncio.sleep(options.load_after)
    load.flaky = 0.0
    drained = await load.end()
    check_phase(result, cluster, load, tag, marks, phase, drained)
    figures["client_drops"] = phase

    # Rolling restart: SIGTERM then start, node by node.
    tag = f"R-{run_id}"
    marks = load.marks()
    phase = {"phase": "rolling restart"}
    load.begin(tag)
    await asyncio.sleep(1.0)
    for k in range(1, cluster.nodes + 1):
        begun = time.monotonic()
        await loop.run_in_executor(None, cluster.stop_node, k)
        stopped = time.monotonic()
        await loop.run_in_executor(None, cluster.start_node, k)
        phase[f"node{k}_stop_s"] = round(stopped - begun, 1)
        phase[f"node{k}_start_s"] = round(time.monotonic() - stopped, 1)
        await asyncio.sleep(options.load_after / 2)
    drained = await load.end()
    check_phase(result, cluster, load, tag, marks, phase, drained)
    figures["rolling"] = phase

    # Half-open: a node stops answering without closing anything.
    if options.half_open:
        tag = f"H-{run_id}"
        marks = load.marks()
        phase = {"phase": "half-open"}
        load.begin(tag)
        await asyncio.sleep(1.0)
        victim = 1 + rng.randrange(cluster.nodes)
        on_victim = {sessions[s] for s, node in cluster.nodes_of(list(sessions), "chat").items()
                     if node_number(node) == victim}
        stopped_at = time.monotonic()
        cluster.signal_node(victim, signal.SIGSTOP)
        try:
            deadline = stopped_at + options.half_open_seconds
            while time.monotonic() < deadline:
                if all(len(w.restorations) > marks[w.index][0] for w in load.windows if w.index in on_victim):
                    break
                await asyncio.sleep(0.2)
        finally:
            cluster.signal_node(victim, signal.SIGCONT)
        times = [r[1] - stopped_at for w in load.windows if w.index in on_victim
                 for r in w.restorations[marks[w.index][0]:marks[w.index][0] + 1]]
        phase.update(stopped=f"node{victim}", windows_on_it=len(on_victim), moved=len(times),
                     moved_p50_s=round(percentile(times, 0.5), 1) if times else None,
                     moved_max_s=round(max(times), 1) if times else None)
        if len(times) < len(on_victim):
            result.fail(f"half-open: {len(on_victim) - len(times)} of {len(on_victim)} windows of the stopped node "
                        f"were not drawn elsewhere within {options.half_open_seconds:.0f} s")
        await asyncio.sleep(3.0)
        drained = await load.end()
        check_phase(result, cluster, load, tag, marks, phase, drained)
        figures["half_open"] = phase

    for w in load.windows:
        w.finish()
    totals = {"acked": 0, "lost": 0, "duplicated": 0, "misplaced": 0, "errors": 0, "reconnects": 0, "resent": 0,
              "resent_already_committed": 0}
    for phase in figures.get("failover", []) + [figures.get(k, {}) for k in ("client_drops", "rolling", "half_open")]:
        for key in totals:
            totals[key] += phase.get(key, 0) or 0
    figures["totals"] = totals


async def browser_prepare(browser, load, cluster, run_id, figures):
    """Chromium signs in as a person, is added to a conversation with the first raw window, opens it
    and types a draft; returns once the draft is saved."""
    loop = asyncio.get_running_loop()
    leader = load.windows[0]
    name = f"Browser {run_id}"
    title = f"With the browser {run_id}"
    # The person must exist before a conversation can name it: sign in first.
    await loop.run_in_executor(None, browser.chat.sign_in, browser.driver, browser, name)
    # The leader starts a conversation with the browser's person, then goes back to its own.
    for node, action, value in (("new-conversation", "tap", None), ("title", "commit", title),
                                ("participants", "commit", name), ("start", "tap", None)):
        intent = await leader.act(node, action, value)
        if intent.answer != "ack":
            raise ClusterError(f"the leader starting {title!r}: {node} {action} answered {intent.answer}")
    own = load.rows[leader.index]
    await load._until(leader, lambda: leader.node(own), "its own conversation's row")
    intent = await leader.act(own, "select")
    await load._until(leader, lambda: leader.node("composer") and leader.screen_route == load.routes[leader.index],
                      "its own conversation again")
    draft = f"draft {run_id} typed before the kill"

    def in_browser():
        browser.chat.open_conversation(browser.driver, title)
        browser.chat.composer(browser.driver).send_keys(draft)
        return browser.driver.execute_script("return sessionStorage.getItem('scenesync.session.chat')")

    session = await loop.run_in_executor(None, in_browser)
    if not await loop.run_in_executor(None, wait_for, lambda: draft_saved(cluster, session, draft), 10.0):
        raise ClusterError("the browser's draft was not saved within 10 s")
    figures.update(session=session, draft=draft, title=title)
    node = cluster.nodes_of([session], "chat")[session]
    figures["node"] = node_number(node)
    figures["route_before"] = await loop.run_in_executor(None, browser.screen_route)
    log(f"  browser: on {title!r} with a draft, on {node}")


def browser_after_kill(browser, cluster, figures, result, killed_at):
    """After its node was killed: the window must reconnect by itself and show the same
    conversation and draft, and again after a reload; no error."""
    d = browser.driver
    title, draft = figures["title"], figures["draft"]
    back = wait_for(lambda: browser.state() == "connected" and browser.shown()[0] == title, 20.0)
    figures["reconnected_s"] = round(time.monotonic() - killed_at, 1) if back else None
    shown_title, text, errors = browser.shown()
    figures.update(after_kill=dict(title=shown_title, composer=text, errors=errors, route=browser.screen_route()))
    if not back:
        result.fail(f"browser: not connected on {title!r} within 20 s of its node's kill "
                    f"(state {browser.state()}, title {shown_title!r})")
    if text != draft:
        result.fail(f"browser: after the kill the composer holds {text!r}, expected the draft {draft!r}")
    if errors:
        result.fail(f"browser: after the kill the window shows {errors}")
    # A reload: nothing on screen, so the node it lands on draws it from the database.
    d.refresh()
    back = wait_for(lambda: browser.state() == "connected" and browser.shown()[0] == title
                    and browser.shown()[1] == draft, 20.0)
    shown_title, text, errors = browser.shown()
    node = cluster.nodes_of([figures["session"]], "chat")[figures["session"]]
    figures.update(after_reload=dict(title=shown_title, composer=text, errors=errors, node=node,
                                     route=browser.screen_route()))
    if not back:
        result.fail(f"browser: after a reload on {node} the window shows {shown_title!r} with {text!r} in the "
                    f"composer, expected {title!r} with the draft {draft!r}")
    if errors:
        result.fail(f"browser: after the reload the window shows {errors}")
    console = browser.console_errors()
    if console:
        result.fail(f"browser: console errors: {console[:3]}")
    log(f"  browser: {figures}")


def resend_supported():
    """Whether the wire contract names `resend` (the server refuses an unknown field)."""
    path = os.path.join(REPO, "Tests", "Fixtures", "Protocol", "messages.json")
    try:
        with open(path) as f:
            return '"resend"' in f.read()
    except OSError:
        return False


def run(options):
    """The suite, as reliability.py runs it."""
    result = Result("cluster")
    for key, value in (("cluster_windows", 12 if options.quick else 30), ("kills", 2 if options.quick else 9),
                       ("load_after", 6.0 if options.quick else 10.0), ("load_before", (2.0, 5.0)),
                       ("half_open", not options.quick), ("half_open_seconds", 40.0), ("browser", True),
                       ("resend_mode", None), ("keep", False)):
        if getattr(options, key, None) is None:
            setattr(options, key, value)
    if options.resend_mode is None:
        options.resend_mode = "flag" if resend_supported() else "plain"
    if options.resend_mode == "none":
        options.resend_mode = None
    if options.resend_mode != "flag":
        result.note(f"windows resend as {options.resend_mode!r}, not with `resend: true` "
                    f"(the wire contract does not name it yet)" if options.resend_mode else "windows do not resend")
    cluster = None
    try:
        cluster = Cluster(nodes=3)
        cluster.start()
        asyncio.run(run_async(options, result, cluster))
    except ClusterError as error:
        result.fail(str(error))
    finally:
        if cluster is not None:
            if cluster.retries:
                result.note(f"local-cluster said a node that was starting had exited, {len(cluster.retries)} times "
                            f"(asked again: {cluster.retries[:2]})")
            if not result.ok:
                for k in range(1, cluster.nodes + 1):
                    log(f"  node{k} log tail:\n{cluster.node_log(k, 8)}")
            cluster.cleanup(keep=options.keep or not result.ok)
    f = result.figures
    totals = f.get("totals", {})
    result.summary = (f"cluster: {f.get('windows', 0)} windows, {len(f.get('failover', []))} kills, rolling restart"
                      f"{', half-open' if 'half_open' in f else ''}: {n(totals.get('acked', 0))} acknowledged, "
                      f"{totals.get('lost', 0)} lost, {totals.get('duplicated', 0)} duplicated, "
                      f"{totals.get('reconnects', 0)} reconnects ({totals.get('misplaced', 0)} misplaced), "
                      f"{totals.get('resent', 0)} resent ({totals.get('resent_already_committed', 0)} already committed), "
                      f"{totals.get('errors', 0)} errors"
                      + (f"; browser back in {f['browser'].get('reconnected_s')} s" if f.get("browser") else ""))
    return result


# MARK: - Benchmarks


async def connect_many(windows, deadline, at_once=50):
    """Starts windows, `at_once` at a time (a thousand upgrades at once fill the listen queues)."""
    gate = asyncio.Semaphore(at_once)

    async def one(window):
        async with gate:
            await backoff_connect(window, deadline)
    await asyncio.gather(*(one(w) for w in windows))


def spread_of(cluster, windows, scope):
    nodes = cluster.nodes_of([w.session for w in windows], scope)
    spread = {}
    for node in nodes.values():
        spread[node] = spread.get(node, 0) + 1
    return nodes, spread


async def bench_restore(cluster, windows, rounds, figures):
    """(a) kill -9 of the node with the most windows; time until each of its windows is drawn again."""
    loop = asyncio.get_running_loop()
    results = []
    for number in range(rounds):
        nodes, spread = spread_of(cluster, windows, "lootlogger")
        victim_name = max((k for k in spread if k), key=lambda k: spread[k])
        victim = node_number(victim_name)
        marks = {w.index: len(w.restorations) for w in windows}
        on_victim = [w for w in windows if nodes[w.session] == victim_name]
        pid = cluster.pid(victim)
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)     # what `kill-node` does, timed here to the call
        deadline = killed_at + 60
        while time.monotonic() < deadline:
            if all(len(w.restorations) > marks[w.index] for w in on_victim):
                break
            await asyncio.sleep(0.02)
        times = [w.restorations[marks[w.index]][1] - killed_at for w in on_victim if len(w.restorations) > marks[w.index]]
        moved = [w for w in windows if len(w.restorations) > marks[w.index]]
        misplaced = sum(1 for w in moved if w.restorations[marks[w.index]][4] != w.restorations[marks[w.index]][3])
        kinds = {}
        for w in moved:
            kinds[w.restorations[marks[w.index]][2]] = kinds.get(w.restorations[marks[w.index]][2], 0) + 1
        late = [w for w in on_victim if len(w.restorations) <= marks[w.index]]
        failures = {}
        for w in on_victim:
            if w.last_failure:
                failures[w.last_failure[:80]] = failures.get(w.last_failure[:80], 0) + 1
        errors = {}
        for w in on_victim:
            for e in w.errors:
                errors[e.get("code")] = errors.get(e.get("code"), 0) + 1
        entry = dict(killed=victim_name, spread=spread, windows_on_it=len(on_victim), restored=len(times),
                     failed_attempts=sum(w.failed_connects for w in on_victim), last_failures=failures,
                     errors=errors, not_restored=len(late),
                     others_dropped=len(moved) - len(times), kinds=kinds, misplaced=misplaced,
                     p50_ms=ms(percentile(times, 0.5)), p99_ms=ms(percentile(times, 0.99)),
                     max_ms=ms(max(times) if times else None))
        log(f"  restore round {number + 1}: {entry}")
        results.append(entry)
        # The node's own start (and its pid file) through the script.
        try:
            await loop.run_in_executor(None, cluster.kill_node, victim)
        except ClusterError:
            pass
        await loop.run_in_executor(None, cluster.start_node, victim)
        await asyncio.sleep(2.0)
        # Windows stay where they reconnected: spread them over the three nodes again (each
        # reconnects once, as after a network change) so that the next kill takes about a third.
        if number + 1 < rounds:
            await rebalance(windows)
    figures["restore"] = results


async def rebalance(windows, timeout=60.0):
    marks = {w.index: len(w.restorations) for w in windows}
    for w in windows:
        if w.link is not None:
            w.link.abort()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(len(w.restorations) > marks[w.index] for w in windows):
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.0)


async def bench_fanout(windows, writer, rounds, label, figures):
    """(b) one writer taps Add; time from its send until each window has the row's insert."""
    arrivals = {}

    def watch(window, payload, now):
        if window.index not in arrivals and b'"op":"insert"' in payload and b'"id":"item-' in payload:
            arrivals[window.index] = now
    for w in windows:
        w.watch = watch
    latencies, acks, incomplete = [], [], 0
    for _ in range(rounds):
        arrivals.clear()
        sent = time.monotonic()
        intent = writer.send_action("add", "tap")
        deadline = sent + 15
        while (len(arrivals) < len(windows) or intent.answered_at is None) and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        if intent.answered_at is not None:
            acks.append(intent.answered_at - sent)
        if len(arrivals) < len(windows):
            incomplete += 1
        latencies.extend(t - sent for t in arrivals.values())
        await asyncio.sleep(0.3)
    for w in windows:
        w.watch = None
    entry = dict(windows=len(windows), adds=rounds, deliveries=len(latencies), incomplete_rounds=incomplete,
                 p50_ms=ms(percentile(latencies, 0.5)), p99_ms=ms(percentile(latencies, 0.99)),
                 max_ms=ms(max(latencies) if latencies else None), writer_ack_p50_ms=ms(percentile(acks, 0.5)))
    log(f"  fan-out {label}: {entry}")
    figures[label] = entry


async def bench_async(options, cluster, figures):
    count = options.windows
    deadline = time.monotonic() + 300
    rng = random.Random(options.seed)

    def make(i, port):
        return Window(i, "lootlogger", port, source=f"127.0.0.{2 + i % 200}", light=True,
                      rng=random.Random(rng.random()))
    started = time.monotonic()
    windows = [make(i, cluster.port) for i in range(count)]
    await connect_many(windows, deadline)
    figures["connect_seconds"] = round(time.monotonic() - started, 1)
    _, spread = spread_of(cluster, windows, "lootlogger")
    figures["spread"] = spread
    log(f"  {count} LootLogger windows through nginx in {figures['connect_seconds']} s: {spread}")
    if not options.skip_restore:
        await bench_restore(cluster, windows, options.rounds, figures)
    writer = Window(count, "lootlogger", cluster.port, source="127.0.0.1")
    await backoff_connect(writer, deadline)
    await bench_fanout(windows, writer, options.adds, "through_nginx_3_nodes", figures)
    for w in windows + [writer]:
        w.finish()
    await asyncio.sleep(1.0)
    # The same number of windows on one node, directly.
    port = cluster.node_port(1)
    windows = [make(i, port) for i in range(count)]
    await connect_many(windows, deadline)
    writer = Window(count, "lootlogger", port, source="127.0.0.1")
    await backoff_connect(writer, deadline)
    await bench_fanout(windows, writer, options.adds, "one_node_direct", figures)
    for w in windows + [writer]:
        w.finish()


def bench(options):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    figures = {"windows": options.windows, "machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start"}
    node_args = ["--max-connections", "65536", "--max-connections-per-address", "65536"]
    cluster = Cluster(nodes=3, node_args=node_args)
    try:
        cluster.start()
        asyncio.run(bench_async(options, cluster, figures))
    finally:
        figures["load_at_end"] = round(os.getloadavg()[0], 1)
        cluster.cleanup(keep=options.keep)
    log(json.dumps(figures, indent=2))
    if options.json:
        with open(options.json, "w") as f:
            json.dump(figures, f, indent=2)
            f.write("\n")
    return 0


# MARK: - Command line


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", nargs="?", choices=["suite", "bench"], default="suite")
    parser.add_argument("--quick", action="store_true", help="the bounded CI profile (suite)")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--keep", action="store_true", help="keep the cluster's directory (logs)")
    add_options(parser)
    parser.add_argument("--windows", type=int, default=100, help="bench: windows over the three nodes")
    parser.add_argument("--rounds", type=int, default=3, help="bench: kills of a node")
    parser.add_argument("--adds", type=int, default=20, help="bench: Adds timed for the fan-out")
    parser.add_argument("--skip-restore", action="store_true", help="bench: the fan-out only")
    options = parser.parse_args(argv)
    if options.seed is None:
        options.seed = random.randrange(1, 2**31)
    if options.mode == "bench":
        return bench(options)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    log(f"SceneSync reliability: cluster ({'quick' if options.quick else 'long'}), seed {options.seed}")
    result = run(options)
    log(f"  {'ok  ' if result.ok else 'FAIL'} {result.summary}")
    for failure in result.failures:
        log(f"       - {failure}")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"seed": options.seed, "suites": {"cluster": result.as_json()}}, f, indent=2)
    return 0 if result.ok else 1


def add_options(parser):
    """The suite's options (reliability.py adds them to its own)."""
    group = parser.add_argument_group("cluster")
    group.add_argument("--cluster-windows", type=int, help="Chat windows through nginx (12 quick, 30 long)")
    group.add_argument("--kills", type=int, help="kill -9 cycles (2 quick, 9 long)")
    group.add_argument("--load-after", type=float, help="seconds of load after each kill or restart")
    group.add_argument("--half-open", action="store_true", default=None, help="also SIGSTOP a node (long profile: on)")
    group.add_argument("--no-browser", dest="browser", action="store_false", default=None,
                       help="no Chromium window")
    group.add_argument("--resend", dest="resend_mode", choices=["flag", "plain", "none"],
                       help="how windows send unanswered intents again: resend: true (default once the wire "
                            "contract names it), the same ref without it, or not at all")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
