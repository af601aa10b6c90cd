"""fuzz: a seeded protocol fuzzer against one running server.

Connections follow one another (a few at a time, `--workers`). Most say `hello` and then send
mutants of the corpus (Tests/Reliability/corpus/, one message a file), one at a time, each
followed by a barrier: an action with a unique `ref` on a node that does not exist, which the
server answers with an `error` naming that `ref`. Messages are handled in order, so whatever
arrives before the barrier's answer is the mutant's answer. Some connections send their first
mutant before `hello` (then a `hello` is the barrier). Now and then a step is a frame-level case
instead (mutate.FrameCase), or a mutant sent as a fragmented message.

Checks: the server never exits; `GET /` answers 200 within 5 s throughout (server.Monitor); every
malformed message (mutate.classify) is answered with an `error` or a close with a code; no message
the protocol takes is refused as malformed; every broken frame closes the connection with a code;
a ping's pong echoes its payload; every barrier is answered (else the server stalled). Mutants that
name a node the window really has are never sent (see mutate.names_real_node), so the LootLogger
list a fresh window sees must be the same before and after.
"""
import collections
import json
import random
import socket
import threading
import time

import mutate
from report import Result, log, n
from server import Monitor, Server, ServerError
from viewtree import ViewTree
from wsclient import Closed, WebSocket, WebSocketError, build_frame, hello

PATH = "/ws/lootlogger"
BARRIER_NODE = "reliability-barrier"
BARRIER_REFS = 7_000_000_000    # barrier refs count up from here, far from any corpus ref
ANSWER_TIMEOUT = 5.0            # a barrier not answered in this long is a stall
CLOSE_WAIT = 2.0                # how long a broken frame may take to be closed
PRE_HELLO_SHARE = 0.15
DECODE_CODES = {"malformed", "unknownType", "unsupportedVersion", "tooLarge"}
# The per-connection message budget is burst 100, then 50 a second: keep under it, so that no
# mutant is dropped unread as `rateLimited`.
BURST, PER_SECOND = 90, 45.0
SEEDED_ITEMS = 5


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.frames = self.mutants = self.connections = self.skipped_real = 0
        self.abandoned = self.stalls = self.unanswered = self.tolerated = 0
        self.classes = collections.Counter()
        self.close_codes = collections.Counter()
        self.error_codes = collections.Counter()
        self.frame_cases = collections.Counter()

    def add(self, **counts):
        with self.lock:
            for key, value in counts.items():
                setattr(self, key, getattr(self, key) + value)


class Budget:
    """Frames left to send and the time limit, shared by the workers."""

    def __init__(self, frames, seconds):
        self.frames = frames
        self.deadline = time.monotonic() + seconds

    def left(self, stats):
        return stats.frames < self.frames and time.monotonic() < self.deadline


class Pace:
    """A client-side copy of the server's token bucket."""

    def __init__(self):
        self.tokens, self.at = BURST, time.monotonic()

    def take(self, count):
        while True:
            now = time.monotonic()
            self.tokens = min(BURST, self.tokens + (now - self.at) * PER_SECOND)
            self.at = now
            if self.tokens >= count:
                self.tokens -= count
                return
            time.sleep((count - self.tokens) / PER_SECOND)


class Connection:
    """One fuzzing connection and what it has learnt."""

    def __init__(self, port, worker, result, stats):
        self.ws = WebSocket.connect(port, PATH)
        self.worker, self.result, self.stats = worker, result, stats
        self.pace = Pace()
        self.barrier_ref = BARRIER_REFS + worker * 10_000_000

    def send(self, data, frames, messages):
        self.pace.take(messages)
        self.stats.add(frames=frames)
        self.ws.send_raw(data)

    def barrier(self):
        self.barrier_ref += 1
        message = {"type": "action", "v": 1, "ref": self.barrier_ref, "node": BARRIER_NODE, "name": "tap"}
        self.send(build_frame(1, json.dumps(message).encode()), 1, 1)
        return self.barrier_ref

    def answers(self, until, timeout=ANSWER_TIMEOUT):
        """Messages received until `until(message)` is true (that message included), as
        (messages, outcome): outcome "answered", "closed" or "timeout"."""
        messages = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                _, payload = self.ws.recv_message(max(0.0, deadline - time.monotonic()))
            except socket.timeout:
                return messages, "timeout"
            except Closed:
                return messages, "closed"
            message = json.loads(payload)
            messages.append(message)
            if message["type"] == "error":
                with self.stats.lock:
                    self.stats.error_codes[message["code"]] += 1
            if until(message):
                return messages, "answered"

    def fail(self, what, description, payload=b""):
        shown = payload[:120]
        self.result.fail(f"{what}: {description} (payload {len(payload)} bytes, starts {shown!r})")

    def ended(self):
        """Records how the connection ended: a close frame's code, or none."""
        closed = self.ws.closed
        code = closed.code if closed else None
        with self.stats.lock:
            self.stats.close_codes[str(code) if code is not None else "no close frame"] += 1
        return code

    def judge(self, verdict, messages, outcome, description, payload):
        """The answer to one message against what `verdict` (mutate.classify) says it deserves."""
        mine = [m for m in messages if m.get("ref") != self.barrier_ref]
        errors = [m for m in mine if m["type"] == "error"]
        if outcome == "timeout":
            self.stats.add(stalls=1)
            self.fail("no answer within 5 s (stall)", description, payload)
        elif outcome == "closed":
            # A message in a well-formed frame closes the connection only as the 21st protocol
            # violation (1008), for text that is not UTF-8 (1007), or over 1 MiB (1009). A valid
            # message is a violation only when refused as such (a second `hello`).
            code = self.ended()
            allowed = {"valid": {1008} if errors else set(), "invalid-utf8": {1007, 1008}}.get(verdict, {1008})
            if len(payload) > mutate.MAX_FRAME:
                allowed = {1009}
            if code is None:
                self.fail("closed without a close code after", description, payload)
            elif code not in allowed:
                self.fail(f"closed ({code}) after a {verdict} message", description, payload)
        elif verdict in ("malformed", "invalid-utf8") and not errors:
            self.stats.add(unanswered=1)
            self.fail(f"{verdict} message not answered with an error", description, payload)
        if verdict == "valid" and any(e["code"] in DECODE_CODES for e in errors):
            self.fail(f"a valid message refused: {errors[0]['message']}", description, payload)

    # MARK: - Steps

    def greet(self, first=None):
        """Says hello, after `first` (description, payload, verdict) if given: a mutant sent before
        `hello`, so that `hello` is its barrier. Returns False if the connection ended."""
        if first is None:
            self.send(build_frame(1, json.dumps(hello()).encode()), 1, 1)
            _, outcome = self.answers(lambda m: m["type"] == "welcome")
            if outcome != "answered":
                self.fail("hello not answered with welcome", "hello")
            return outcome == "answered"
        description, payload, verdict = first
        self.send(build_frame(1, payload), 1, 1)
        self.send(build_frame(1, json.dumps(hello()).encode()), 1, 1)
        # The mutant was refused (an error, then the barrier's welcome), or taken as a hello
        # (a welcome, then the barrier's `repeatedHello`).
        seen_error = []

        def done(message):
            if message["type"] == "error" and message["code"] == "repeatedHello":
                return True
            if message["type"] == "error":
                seen_error.append(message)
            return message["type"] == "welcome" and bool(seen_error)

        messages, outcome = self.answers(done)
        if outcome != "answered":
            self.judge(verdict, messages, outcome, description, payload)
        elif any(m["type"] == "error" and m["code"] == "repeatedHello" for m in messages):
            if verdict in ("malformed", "invalid-utf8"):
                self.fail("a malformed first message was taken as hello", description, payload)
        else:
            self.judge(verdict, seen_error[:1], outcome, description, payload)
        return outcome == "answered"

    def wait_pongs(self, count, timeout=1.0):
        """Reads until `count` pongs have arrived (a control frame's answer may trail the
        messages sent after it), or `timeout` passes."""
        deadline = time.monotonic() + timeout
        while len(self.ws.pongs) < count and time.monotonic() < deadline:
            try:
                self.ws.recv_message(max(0.0, deadline - time.monotonic()))
            except (socket.timeout, Closed):
                return

    def message_step(self, description, payload, verdict, rng):
        """Sends one mutant (whole, or fragmented with pings between) and its barrier."""
        if rng.random() < 0.1 and len(payload) > 1:
            data, frames, pings = mutate.fragmented(payload, rng)
            description += " (fragmented)"
        else:
            data, frames, pings = build_frame(1, payload), 1, []
        self.ws.pongs.clear()
        try:
            self.send(data, frames, 1)
            ref = self.barrier()
        except Closed:
            # Closed while writing: what the server sent before it closed says why.
            messages, outcome = self.answers(lambda m: False, timeout=CLOSE_WAIT)
            self.judge(verdict, messages, outcome, description, payload)
            return False
        messages, outcome = self.answers(lambda m: m.get("ref") == ref)
        self.judge(verdict, messages, outcome, description, payload)
        if outcome == "answered" and pings:
            self.wait_pongs(len(pings))
        if outcome == "answered" and self.ws.pongs != pings:
            self.fail("pings between fragments not answered in order with their payloads", description, payload)
        return outcome == "answered"

    def frame_step(self, case):
        """Sends one frame-level case and checks what the server owes for it."""
        with self.stats.lock:
            self.stats.frame_cases[case.name.split(" ")[0]] += 1
        self.ws.pongs.clear()
        try:
            self.send(case.data, case.frames, 1)
        except Closed:
            self.answers(lambda m: False, timeout=CLOSE_WAIT)
            self.ended()
            return False
        if case.expect in ("close", "ends"):
            # Nothing more is sent: the server must close by itself, and a late barrier could be
            # cut off by its reset.
            _, outcome = self.answers(lambda m: False, timeout=CLOSE_WAIT)
            if outcome == "closed":
                if self.ended() is None:
                    self.fail("closed without a close code after", case.name)
                return False
            self.stats.add(tolerated=1)
            self.fail(f"not closed within {CLOSE_WAIT:.0f} s after", case.name)
            return False
        if case.expect == "stuck":
            _, outcome = self.answers(lambda m: False, timeout=0.5)
            if outcome == "closed":
                self.ended()
            else:
                self.stats.add(abandoned=1)
            return False
        try:
            ref = self.barrier()
        except Closed:
            self.ended()
            return False
        messages, outcome = self.answers(lambda m: m.get("ref") == ref)
        if outcome == "closed":
            code = self.ended()
            if code is None:
                self.fail("closed without a close code after", case.name)
            elif case.expect != "either":
                self.fail(f"closed ({code}) after", case.name)
            return False
        if outcome == "timeout":
            self.stats.add(stalls=1)
            self.fail("no answer within 5 s (stall) after", case.name)
            return False
        answers = [m for m in messages if m.get("ref") != ref and m["type"] in ("error", "pong", "ack")]
        if case.expect == "nothing" and answers:
            self.fail(f"answered with {answers[0]}", case.name)
        if case.expect == "echo":
            self.wait_pongs(1)
        if case.expect == "echo" and self.ws.pongs != [case.payload]:
            self.fail("a ping's pong did not echo its payload", case.name, case.payload)
        return True


def worker(port, index, seed, real_ids, budget, stats, result):
    rng = random.Random(seed * 1_000 + index)
    mutator = mutate.Mutator(rng, mutate.load_corpus())
    valid_seeds = [s for s in mutator.corpus if mutate.classify(s[1]) == "valid"]
    while budget.left(stats) and len(result.failures) < 20:
        try:
            connection = Connection(port, index, result, stats)
        except (OSError, WebSocketError) as error:
            result.fail(f"a fuzz connection could not be opened: {error}")
            return
        stats.add(connections=1)
        # Each connection its own mix: how often a step is a frame-level case, or a corpus message
        # as it is (which keeps a connection open longer: only malformed messages count towards
        # the server's limit of 20).
        frame_share = rng.choice([0.01, 0.03, 0.1])
        plain_share = rng.choice([0.2, 0.5, 0.8])
        limit = stats.frames + rng.randint(100, 400)
        try:
            first = next_mutant(mutator, real_ids, stats) if rng.random() < PRE_HELLO_SHARE else None
            open_ = connection.greet(first)
            while open_ and budget.left(stats) and stats.frames < limit:
                if rng.random() < frame_share:
                    _, message = rng.choice(valid_seeds)
                    open_ = connection.frame_step(mutate.frame_case(rng, message))
                elif rng.random() < plain_share:
                    name, message = rng.choice(valid_seeds)
                    if not mutate.names_real_node(message, real_ids):
                        open_ = connection.message_step(name, message, "valid", rng)
                else:
                    description, payload, verdict = next_mutant(mutator, real_ids, stats)
                    open_ = connection.message_step(description, payload, verdict, rng)
        except (OSError, WebSocketError, ValueError) as error:
            result.fail(f"fuzz connection {stats.connections}: {error.__class__.__name__}: {error}")
        finally:
            connection.ws.close()


def next_mutant(mutator, real_ids, stats):
    """A mutant that does not name a real node; (description, payload, verdict)."""
    while True:
        description, payload = mutator.message()
        if mutate.names_real_node(payload, real_ids):
            stats.add(skipped_real=1)
            continue
        verdict = mutate.classify(payload)
        with stats.lock:
            stats.mutants += 1
            stats.classes[verdict] += 1
        return description, payload, verdict


def fresh_list(port, add=0):
    """The item list a fresh window sees (after adding `add` rows), and every node id it has."""
    ws = WebSocket.connect(port, PATH)
    try:
        ws.send_json(hello())
        tree = None
        while tree is None:
            message = ws.recv_json(10)
            if message["type"] == "render":
                tree = ViewTree(message["root"])
        expected = len(tree.item_ids()) + add
        for ref in range(1, add + 1):
            ws.send_json({"type": "action", "v": 1, "ref": ref, "node": "add", "name": "tap"})
        acked = 0
        ws.send_json({"type": "ping", "v": 1})
        pong = False
        # An add's ack says it is committed; the patch that shows its row may come after the ack
        # (and after the pong): wait for every row, not only for the answers.
        while not (pong and acked == add and len(tree.item_ids()) == expected):
            message = ws.recv_json(10)
            if message["type"] == "patch":
                tree.apply(message["ops"])
            acked += message["type"] == "ack"
            pong = pong or message["type"] == "pong"
        rows = [(node_id, tree.nodes[node_id]["props"]) for node_id in tree.item_ids()]
        ws.send_json({"type": "closing", "v": 1})
        return rows, tree.ids()
    finally:
        ws.close()


def run(options):
    result = Result("fuzz")
    stats = Stats()
    log(f"fuzz: seed {options.seed}, up to {n(options.frames)} frames or {options.seconds:.0f} s, "
        f"{options.workers} connections at a time")
    server = Server()
    monitor = None
    try:
        server.start()
        before, ids = fresh_list(server.port, add=SEEDED_ITEMS)
        # Every node the window has, and the tab its window would have: none may be named.
        real_ids = ids | {"tab-main"}
        budget = Budget(options.frames, options.seconds)
        started = time.monotonic()
        with Monitor(server.port) as monitor:
            threads = [threading.Thread(target=worker, args=(server.port, i, options.seed, real_ids, budget, stats, result))
                       for i in range(options.workers)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        elapsed = time.monotonic() - started
        crashed = not server.alive()
        if crashed:
            result.fail(f"the server exited (status {server.process.returncode}):\n{server.log_tail()}")
        else:
            after, _ = fresh_list(server.port)
            if after != before:
                result.fail(f"the list changed under fuzzing: {len(before)} rows before, {len(after)} after")
            status = server.stop()
            if status != 0:
                result.fail(f"the server exited with status {status} on SIGTERM after fuzzing")
        for stall in monitor.stalls:
            result.fail(f"GET / did not answer 200 within 5 s: {stall}")
        result.figures = dict(
            frames=stats.frames, mutants=stats.mutants, connections=stats.connections,
            frames_per_connection=round(stats.frames / max(1, stats.connections), 1),
            seconds=round(elapsed, 1), crashes=int(crashed),
            server_stalls=len(monitor.stalls) + stats.stalls, slowest_get_seconds=round(monitor.slowest, 3),
            unanswered_malformed=stats.unanswered, skipped_real_node=stats.skipped_real,
            broken_frames_not_closed=stats.tolerated, abandoned_stuck=stats.abandoned, classes=dict(stats.classes),
            close_codes=dict(sorted(stats.close_codes.items())), error_codes=dict(sorted(stats.error_codes.items())),
            frame_cases=dict(sorted(stats.frame_cases.items())))
    except (ServerError, OSError, WebSocketError) as error:
        result.fail(f"{error.__class__.__name__}: {error}\nserver log:\n{server.log_tail()}")
    finally:
        server.cleanup()
    figures = result.figures
    if figures:
        codes = ", ".join(f"{code}: {n(count)}" for code, count in figures["close_codes"].items())
        result.summary = (
            f"fuzz: {n(figures['frames'])} frames ({n(figures['mutants'])} mutants) on {n(figures['connections'])} "
            f"connections, {figures['crashes']} crashes, {figures['server_stalls']} server stalls "
            f"(slowest GET / {figures['slowest_get_seconds']:.2f} s), {figures['unanswered_malformed']} malformed "
            f"unanswered; close codes {{{codes}}}; seed {options.seed}")
    else:
        result.summary = f"fuzz: did not run to the end; seed {options.seed}"
    return result
