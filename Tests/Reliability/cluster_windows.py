"""Windows for the cluster suite: many raw WebSocket windows in one asyncio loop, each behaving as
the browser's renderer does across a lost connection (Public/js/socket.js):

- it keeps its `session`, `seq` and the `route` of the last `render`, and says them in the `hello`
  of every connection;
- it numbers its actions with refs that only increase over the session's whole life;
- it reconnects with full-jitter backoff (a random wait below 1 s, doubling to 10 s, as the
  renderer's socket.js), or after a
  `shutdown`'s `retryAfter` plus up to 250 ms;
- once drawn again (`render` or `resumed`) it sends every action that was never answered again,
  with the SAME ref and `resend: true` (PROTOCOL.md);
- optionally the silence rule: a ping every `ping_interval`, and a connection over which nothing
  came for `silence_timeout` is dropped and made again (the browser: 20 s and 45 s).

The WebSocket is an asyncio.Protocol over a plain TCP connection; frames are parsed with wsclient's
`parse_frame`. Every message's arrival time (time.monotonic()) is taken as its bytes are read, before
any JSON is decoded, so that the benchmarks measure the server and not this client.
"""
import asyncio
import base64
import json
import os
import random
import re
import time

from viewtree import OutOfStep, ViewTree
from wsclient import CLOSE, PING, PONG, TEXT, CONTINUATION, build_frame, parse_frame

BACKOFF_INITIAL = 1.0
BACKOFF_MAX = 10.0
SEQ = re.compile(rb'"seq":(\{[^}]*\})')
HELLO_ANSWER_TIMEOUT = 10.0   # seconds for a hello's render/resumed before the connection is given up


class Link(asyncio.Protocol):
    """One WebSocket connection: upgrade, masked text frames out, whole text messages in."""

    def __init__(self, host_port, path, on_message):
        self.host_port, self.path, self.on_message = host_port, path, on_message
        self.transport = None
        self.buffer = bytearray()
        self.upgraded = asyncio.get_running_loop().create_future()
        self.lost = asyncio.get_running_loop().create_future()
        self.head_done = False
        self.parts = []
        self.close_code = None

    def connection_made(self, transport):
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        authority = f"127.0.0.1:{self.host_port}"
        lines = [f"GET {self.path} HTTP/1.1", f"Host: {authority}", f"Origin: http://{authority}",
                 "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                 "Sec-WebSocket-Version: 13"]
        transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())

    def data_received(self, data):
        now = time.monotonic()
        self.buffer += data
        if not self.head_done:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1")
            del self.buffer[:end + 4]
            self.head_done = True
            if not head.startswith("HTTP/1.1 101"):
                if not self.upgraded.done():
                    self.upgraded.set_exception(ConnectionError(f"upgrade refused: {head.splitlines()[0]}"))
                self.transport.close()
                return
            self.upgraded.set_result(True)
        while True:
            try:
                frame, used = parse_frame(self.buffer)
            except Exception as error:  # a masked server frame: the server broke the protocol
                self.close_code = f"protocol: {error}"
                self.transport.close()
                return
            if frame is None:
                return
            del self.buffer[:used]
            if frame.opcode == PING:
                self.transport.write(build_frame(PONG, frame.payload))
            elif frame.opcode == PONG:
                pass
            elif frame.opcode == CLOSE:
                self.close_code = int.from_bytes(frame.payload[:2], "big") if len(frame.payload) >= 2 else None
                try:
                    self.transport.write(build_frame(CLOSE, frame.payload[:2]))
                except Exception:
                    pass
                self.transport.close()
                return
            elif frame.opcode in (TEXT, CONTINUATION):
                self.parts.append(frame.payload)
                if frame.fin:
                    payload, self.parts = b"".join(self.parts), []
                    self.on_message(payload, now)

    def connection_lost(self, exc):
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError(f"connection lost before the upgrade: {exc}"))
        if not self.lost.done():
            self.lost.set_result(exc)

    def send_json(self, message):
        if self.transport is None or self.transport.is_closing():
            return False
        self.transport.write(build_frame(TEXT, json.dumps(message, separators=(",", ":")).encode()))
        return True

    def abort(self):
        if self.transport is not None:
            self.transport.abort()


async def open_link(port, path, on_message, source=None, timeout=10.0):
    loop = asyncio.get_running_loop()
    link = Link(port, path, on_message)
    local = (source, 0) if source else None
    await asyncio.wait_for(loop.create_connection(lambda: link, "127.0.0.1", port, local_addr=local), timeout)
    try:
        await asyncio.wait_for(link.upgraded, timeout)
    except BaseException:
        link.abort()
        raise
    return link


class Intent:
    __slots__ = ("ref", "node", "name", "value", "sent_at", "sends", "answered_at", "answer", "acked_at", "resent_wall")

    def __init__(self, ref, node, name, value, sent_at):
        self.ref, self.node, self.name, self.value, self.sent_at = ref, node, name, value, sent_at
        self.sends = 1
        self.answered_at = None
        self.answer = None
        self.resent_wall = None     # time.time() of its first resend


class Window:
    """One browser window of `app`, over connections made again as needed until `finish()`.

    What it learnt is kept for the suite's checks: acknowledged and refused intents (by ref), the
    refs left unanswered each time a connection dropped, every `error` the server sent, and every
    restoration: (when the connection dropped, when it was drawn again, "render" or "resumed", the
    route before, the route drawn).
    """

    def __init__(self, index, app, port, device=None, source=None, resend="flag", light=False,
                 ping_interval=None, silence_timeout=None, rng=None):
        self.index, self.app, self.port, self.device, self.source = index, app, port, device, source
        self.path = f"/ws/{app}"
        self.resend = resend              # "flag", "plain" or None: see connect_once
        self.light = light                # do not keep a view tree (benchmarks: 1,000 windows)
        self.ping_interval, self.silence_timeout = ping_interval, silence_timeout
        self.rng = rng or random.Random(index)
        self.session = None
        self.seq = None
        self.route = None                 # the route of the last render (what hello.route carries)
        self.tree = None
        self.next_ref = 1
        self.pending = {}                 # ref -> Intent sent, not answered
        self.acked = {}                   # ref -> Intent
        self.refused = {}                 # ref -> Intent answered with an error
        self.errors = []                  # every error message (dicts)
        self.unanswered_at_drop = []      # refs pending when a connection dropped
        self.resent = 0
        self.drops = []                   # monotonic times connections dropped (not by finish())
        self.restorations = []            # (dropped_at, drawn_at, kind, route_before, route_after)
        self.problems = []                # what this window saw that no window may see
        self.link = None
        self.drawn = asyncio.Event()      # drawn on the current connection
        self.ready = False                # drawn, and what was unanswered sent again
        self.retry_after = None
        self.finishing = False
        self.connects = 0
        self.trace = []                   # (time, what): the last events, for a failure's message
        self.failed_connects = 0
        self.last_failure = None
        self.last_heard = 0.0
        self.watch = None                 # callable(window, payload bytes, time) for benchmarks
        self.answer_waiters = {}          # ref -> future
        self.pong_waiters = []
        self.task = None
        self._dropped_at = None           # when the connection being made again dropped
        self._route_before = None         # the screen the window showed when it dropped

    # MARK: - Messages

    def _on_message(self, payload, now):
        self.last_heard = now
        if self.watch is not None:
            self.watch(self, payload, now)
        if self.light and b'"type":"patch"' in payload:
            # Patches are not applied without a tree: only their seq is kept, without decoding
            # the JSON, so that a thousand windows cost this client little per patch.
            match = SEQ.search(payload)
            if match:
                try:
                    self.seq = json.loads(match.group(1))
                except ValueError:
                    pass
            return
        try:
            message = json.loads(payload)
        except ValueError:
            self.problems.append(f"window {self.index}: a message that is not JSON: {payload[:80]!r}")
            return
        kind = message.get("type")
        if kind == "welcome":
            self.session = message["session"]
        elif kind == "render":
            self.seq = message["seq"]
            self.route = message["route"]
            if not self.light:
                self.tree = ViewTree(message["root"])
            self._drawn("render", now)
        elif kind == "resumed":
            self.seq = message["seq"]
            self._drawn("resumed", now)
        elif kind == "patch":
            self.seq = message["seq"]
            if not self.light and self.tree is not None:
                try:
                    self.tree.apply(message["ops"])
                except OutOfStep as error:
                    self.problems.append(f"window {self.index}: a patch does not apply: {error}")
                    self.tree = None
        elif kind == "ack":
            self._answered(message["ref"], "ack", now)
        elif kind == "error":
            self.errors.append(message)
            if message.get("ref") is not None:
                self._answered(message["ref"], message, now)
        elif kind == "shutdown":
            self.note(f"shutdown {message.get('retryAfter')}")
            self.retry_after = message.get("retryAfter", 0) / 1000
        elif kind == "pong":
            waiters, self.pong_waiters = self.pong_waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(now)

    def _drawn(self, kind, now):
        if self.drawn.is_set():
            return  # a second render on one connection: a navigation, or a redraw
        # The screen's route (the `screen` node's), before and after; without a tree, the route
        # of the last render.
        self.restorations.append((self._dropped_at, now, kind, self._route_before, self.screen_route))
        self.drawn.set()

    def note(self, what):
        self.trace.append((round(time.monotonic(), 3), what))
        del self.trace[:-40]

    def _answered(self, ref, answer, now):
        self.note(f"{'ack' if answer == 'ack' else 'error'} {ref} (connection {self.connects})")
        intent = self.pending.pop(ref, None)
        if intent is None:
            if ref in self.acked and answer == "ack":
                self.problems.append(f"window {self.index}: ref {ref} acknowledged twice; last events: {self.trace[-16:]}")
            return
        intent.answered_at, intent.answer = now, answer
        (self.acked if answer == "ack" else self.refused)[ref] = intent
        waiter = self.answer_waiters.pop(ref, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(intent)

    # MARK: - Connecting

    def hello(self):
        message = {"type": "hello", "v": 1, "visible": True, "focused": True}
        if self.session:
            message["session"] = self.session
            if self.seq:
                message["seq"] = self.seq
            if self.route is not None:
                message["route"] = self.route
        if self.device:
            message["device"] = self.device
        return message

    async def connect_once(self):
        """One connection: upgrade, hello, until drawn. Raises on failure."""
        self.drawn.clear()
        self.ready = False
        self._route_before = self.screen_route
        # What to send again: what was out when the connection dropped, or queued since.
        again = sorted(self.pending)
        link = await open_link(self.port, self.path, self._on_message, self.source)
        self.link = link
        self.connects += 1
        link.send_json(self.hello())
        done, _ = await asyncio.wait([asyncio.ensure_future(self.drawn.wait()), link.lost],
                                     timeout=HELLO_ANSWER_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        if not self.drawn.is_set():
            link.abort()
            raise ConnectionError("not drawn after hello" if not link.lost.done() else "closed before drawn")
        if self.resend:
            # "flag": as the browser does (resend: true); "plain": the same ref without the flag,
            # as a client that does not know the field would.
            for ref in again:
                intent = self.pending.get(ref)
                if intent is None:
                    continue                        # answered meanwhile (on the old connection)
                sent_before = intent.sends > 0      # one queued while disconnected goes as new
                intent.sends += 1
                self.resent += sent_before
                if sent_before and intent.resent_wall is None:
                    intent.resent_wall = time.time()
                self._send_action(intent, resend=sent_before and self.resend == "flag")
        self.ready = True

    async def start(self):
        """Connects the first time (no retries)."""
        await self.connect_once()
        self.task = asyncio.ensure_future(self._stay_connected())
        return self

    async def _stay_connected(self):
        attempt = 0
        while True:
            link = self.link
            if self.ping_interval:
                lost = await self._watch_silence(link)
            else:
                await link.lost
            if self.finishing:
                return
            now = time.monotonic()
            self.note(f"dropped (connection {self.connects}, close {link.close_code})")
            self.drops.append(now)
            self._dropped_at = now
            if self.pending:
                self.unanswered_at_drop.extend(sorted(self.pending))
            while True:
                if self.retry_after is not None:
                    delay = self.retry_after + self.rng.random() * 0.25
                    self.retry_after = None
                else:
                    base = min(BACKOFF_MAX, BACKOFF_INITIAL * 2 ** attempt)
                    delay = self.rng.random() * base  # full jitter, as the renderer does
                attempt += 1
                await asyncio.sleep(delay)
                if self.finishing:
                    return
                try:
                    await self.connect_once()
                    attempt = 0
                    break
                except (OSError, ConnectionError, asyncio.TimeoutError) as error:
                    self.last_failure = f"{error.__class__.__name__}: {error}"
                    self.failed_connects += 1
                    continue

    async def _watch_silence(self, link):
        """Pings every `ping_interval`; drops the connection when nothing came for `silence_timeout`."""
        self.last_heard = time.monotonic()
        while not link.lost.done():
            try:
                await asyncio.wait_for(asyncio.shield(link.lost), self.ping_interval)
            except asyncio.TimeoutError:
                pass
            if link.lost.done() or self.finishing:
                break
            if time.monotonic() - self.last_heard > self.silence_timeout:
                link.abort()
                break
            link.send_json({"type": "ping", "v": 1})
        if not link.lost.done():
            await link.lost

    def finish(self):
        """Closes for good (not a reload: no `closing`)."""
        self.finishing = True
        if self.link is not None:
            self.link.abort()
        if self.task is not None:
            self.task.cancel()

    @property
    def connected(self):
        return self.link is not None and not self.link.lost.done() and self.ready

    # MARK: - Acting

    def _send_action(self, intent, resend=False):
        self.note(f"{'resend' if resend else 'send'} {intent.ref} (connection {self.connects})")
        message = {"type": "action", "v": 1, "ref": intent.ref, "node": intent.node, "name": intent.name}
        if intent.value is not None:
            message["value"] = intent.value
        if resend:
            message["resend"] = True
        return self.link is not None and self.link.send_json(message)

    def send_action(self, node, name, value=None):
        """Sends an action now if connected (else it waits, pending, for the next connection, as
        the browser queues it); returns its Intent."""
        intent = Intent(self.next_ref, node, name, value, time.monotonic())
        self.next_ref += 1
        self.pending[intent.ref] = intent
        if self.connected:
            self._send_action(intent)
        else:
            intent.sends = 0
        return intent

    async def act(self, node, name, value=None, timeout=15.0):
        """Sends an action and waits for its answer; then for a pong (the screen's patches follow
        the ack). Returns the Intent (`answer` is "ack" or the error message)."""
        intent = self.send_action(node, name, value)
        waiter = asyncio.get_running_loop().create_future()
        self.answer_waiters[intent.ref] = waiter
        await asyncio.wait_for(waiter, timeout)
        await self.sync(timeout)
        return intent

    async def sync(self, timeout=15.0):
        waiter = asyncio.get_running_loop().create_future()
        self.pong_waiters.append(waiter)
        self.link.send_json({"type": "ping", "v": 1})
        await asyncio.wait_for(waiter, timeout)

    def intent(self, ref):
        return self.acked.get(ref) or self.refused.get(ref) or self.pending.get(ref)

    def node(self, node_id):
        return self.tree.nodes.get(node_id) if self.tree is not None else None

    @property
    def screen_route(self):
        return self.tree.route if self.tree is not None else self.route


async def backoff_connect(window, deadline):
    """Starts a window, trying again with backoff until `deadline` (a node may be starting)."""
    attempt = 0
    while True:
        try:
            return await window.start()
        except (OSError, ConnectionError, asyncio.TimeoutError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(min(2.0, 0.1 * 2 ** attempt))
            attempt += 1
