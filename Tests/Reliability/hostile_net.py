"""Helpers of the hostile suite: plain HTTP with headers, the server's memory and disk, and windows
that act on the apps (LootLogger, Chat) over the window protocol.
"""
import json
import os
import re
import select
import socket
import struct
import subprocess
import threading
import time

from server import binary_path
from viewtree import ITEM_ROW_PREFIX, OutOfStep, ViewTree
from wsclient import CLOSE, Closed, WebSocket, WebSocketError, hello, parse_frame

MIB = 1024 * 1024
# A window's message budget (PROTOCOL.md `rateLimited`): burst 100, then 50 per second. The
# windows here stay a little under it.
BUDGET_BURST = 90
BUDGET_RATE = 45.0


def serve_flags():
    """The options `scenesync serve --help` lists, to tell a server that has not got an option yet
    from one that misbehaves."""
    try:
        text = subprocess.run([binary_path(), "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return set(re.findall(r"(--[a-z][a-z0-9-]+)", text))


def rss_bytes(pid):
    """The process's resident memory (VmRSS), in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def dir_bytes(path):
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:
                pass
    return total


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


# MARK: - HTTP


class Answer:
    def __init__(self, status, headers, body, seconds):
        self.status, self.headers, self.body, self.seconds = status, headers, body, seconds

    def header(self, name):
        values = self.headers.get(name.lower())
        return values[0] if values else None


def http(port, method="GET", target="/", headers=(), body=b"", source=None, timeout=5.0, raw=None):
    """One request on a connection of its own (`Connection: close`); returns an `Answer` with the
    status, the headers (lowercase name: [values]) and the body, or raises OSError."""
    started = time.monotonic()
    if raw is None:
        lines = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in headers]
        if body or method in ("POST", "PUT"):
            lines.append(f"Content-Length: {len(body)}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
    with socket.socket() as sock:
        sock.settimeout(timeout)
        if source:
            sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sock.sendall(raw)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                break
            data += chunk
            head_end = data.find(b"\r\n\r\n")
            if head_end >= 0:
                length = re.search(rb"\r\ncontent-length:\s*(\d+)", data[:head_end], re.I)
                if length and len(data) >= head_end + 4 + int(length.group(1)):
                    break
                if re.match(rb"HTTP/1\.1 (1\d\d|204|304)", data):
                    break
            if time.monotonic() - started > timeout:
                raise socket.timeout("no whole answer")
    head, _, rest = data.partition(b"\r\n\r\n")
    match = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    headers = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.decode("latin-1").partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return Answer(int(match.group(1)) if match else None, headers, rest, time.monotonic() - started)


def timed_get(port, source="127.0.0.2", timeout=5.0):
    """(status or an error's name, seconds) of `GET /` from `source`."""
    started = time.monotonic()
    try:
        answer = http(port, source=source, timeout=timeout)
        return answer.status, answer.seconds
    except OSError as error:
        return error.__class__.__name__, time.monotonic() - started


def upgrade_request(port, path, extra=(), key="dGhlIHNhbXBsZSBub25jZQ==", version="13"):
    """The bytes of a WebSocket upgrade as a page of the server sends it."""
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Origin: http://127.0.0.1:{port}",
             "Upgrade: websocket", "Connection: Upgrade"]
    if key:
        lines.append(f"Sec-WebSocket-Key: {key}")
    if version:
        lines.append(f"Sec-WebSocket-Version: {version}")
    return ("\r\n".join(lines + list(extra)) + "\r\n\r\n").encode()


# MARK: - Windows


class Window:
    """A window of one app over the protocol: its tree, and actions answered with `ack` or `error`."""

    def __init__(self, port, app, token=None, device=None, visible=True, source=None, rcvbuf=None, timeout=15.0):
        self.ws = WebSocket.connect(port, f"/ws/{app}", timeout=timeout, source=source, rcvbuf=rcvbuf)
        self.tree = None
        self.next_ref = 1
        self.errors = []
        message = hello(visible=visible, focused=visible)
        if token is not None:
            message["token"] = token
        if device is not None:
            message["device"] = device
        self.ws.send_json(message)

    def start(self, timeout=15.0):
        """Waits for the first `render`; returns self."""
        deadline = time.monotonic() + timeout
        while self.tree is None:
            self.receive(self.ws.recv_json(max(0.01, deadline - time.monotonic())))
        return self

    def receive(self, message):
        kind = message["type"]
        if kind == "render":
            self.tree = ViewTree(message["root"])
        elif kind == "patch" and self.tree is not None:
            self.tree.apply(message["ops"])
        elif kind == "error":
            self.errors.append(message)
        return message

    def send_action(self, node, name, value=None):
        ref = self.next_ref
        self.next_ref += 1
        message = {"type": "action", "v": 1, "ref": ref, "node": node, "name": name}
        if value is not None:
            message["value"] = value
        self.ws.send_json(message)
        return ref

    def act(self, node, name, value=None, timeout=15.0):
        """Sends an action and applies what comes until it is answered, then what the server sent
        before a `pong` (the screen's patches may follow the ack). Returns the `ack` or `error`."""
        ref = self.send_action(node, name, value)
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(self.ws.recv_json(max(0.01, deadline - time.monotonic())))
            if message["type"] in ("ack", "error") and message.get("ref") == ref:
                break
        self.sync(timeout)
        return message

    def sync(self, timeout=15.0):
        self.ws.send_json({"type": "ping", "v": 1})
        deadline = time.monotonic() + timeout
        while self.receive(self.ws.recv_json(max(0.01, deadline - time.monotonic())))["type"] != "pong":
            pass

    def node(self, node_id):
        return self.tree.nodes.get(node_id) if self.tree else None

    def items(self):
        section = self.node("items")
        return [c["id"] for c in section["children"] if c["id"].startswith(ITEM_ROW_PREFIX)] if section else []

    def close(self):
        self.ws.close()


class Adder:
    """One LootLogger window tapping Add as fast as its message budget allows, on a thread of its
    own, counting acknowledged Adds; hidden, so that it is not sent every row."""

    def __init__(self, port, stop, source=None, limit=None):
        self.port, self.stop, self.source, self.limit = port, stop, source, limit
        self.acked, self.refused, self.problem = 0, 0, None
        self.ack_times = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            window = Window(self.port, "lootlogger", visible=False, source=self.source).start()
        except (OSError, Closed, WebSocketError, ValueError) as error:
            self.problem = f"{error.__class__.__name__}: {error}"
            return
        tokens, last, pending = float(BUDGET_BURST), time.monotonic(), set()
        try:
            while not self.stop.is_set() or pending:
                now = time.monotonic()
                tokens = min(BUDGET_BURST, tokens + (now - last) * BUDGET_RATE)
                last = now
                done = self.limit is not None and self.acked + len(pending) >= self.limit
                if self.stop.is_set() and now - self.stop_time() > 3:
                    break  # answers this late count for nothing; the window is closed
                while tokens >= 1 and len(pending) < 40 and not self.stop.is_set() and not done:
                    pending.add(window.send_action("add", "tap"))
                    tokens -= 1
                    done = self.limit is not None and self.acked + len(pending) >= self.limit
                if done and not pending:
                    break
                try:
                    message = window.ws.recv_json(0.02)
                except socket.timeout:
                    continue
                if message["type"] in ("ack", "error") and message.get("ref") in pending:
                    pending.discard(message["ref"])
                    if message["type"] == "ack":
                        self.acked += 1
                        self.ack_times.append(time.monotonic())
                    else:
                        self.refused += 1
        except (OSError, Closed, WebSocketError, ValueError, OutOfStep) as error:
            self.problem = f"{error.__class__.__name__}: {error}"
        finally:
            window.close()

    _stopped_at = None

    def stop_time(self):
        if self._stopped_at is None:
            self._stopped_at = time.monotonic()
        return self._stopped_at


def add_items(port, count, windows=8):
    """Adds `count` LootLogger items through `windows` windows at once; returns (added, problems)."""
    stop = threading.Event()
    share = [count // windows + (1 if i < count % windows else 0) for i in range(windows)]
    adders = [Adder(port, stop, limit=s) for s in share if s]
    for adder in adders:
        adder.thread.start()
    for adder in adders:
        adder.thread.join()
    return sum(a.acked for a in adders), [a.problem for a in adders if a.problem]


def add_rate(port, seconds, windows, warmup=1.0):
    """Acknowledged Adds per second over `seconds` (after `warmup`) with `windows` windows tapping
    Add at once; returns (rate, problems)."""
    stop = threading.Event()
    adders = [Adder(port, stop) for _ in range(windows)]
    for adder in adders:
        adder.thread.start()
    time.sleep(warmup)
    begin = time.monotonic()
    time.sleep(seconds)
    end = time.monotonic()
    stop.set()
    for adder in adders:
        adder.thread.join()
    counted = sum(1 for a in adders for t in a.ack_times if begin <= t < end)
    return counted / (end - begin), [a.problem for a in adders if a.problem]


def json_body(answer):
    try:
        return json.loads(answer.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def socket_states(socks):
    """Each socket's TCP state as the kernel has it (/proc/net/tcp): "ESTABLISHED", "CLOSE_WAIT"
    (the server ended it; what it sent before may still be unread), or "gone" (reset)."""
    names = {"01": "ESTABLISHED", "08": "CLOSE_WAIT", "07": "CLOSE", "06": "TIME_WAIT", "04": "FIN_WAIT1",
             "05": "FIN_WAIT2", "09": "LAST_ACK", "0B": "CLOSING"}
    wanted = {}
    for sock in socks:
        try:
            host, port = sock.getsockname()
        except OSError:
            continue
        wanted[(host, port)] = sock
    states = {sock: "gone" for sock in socks}
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            address, port = fields[1].split(":")
            host = socket.inet_ntoa(bytes.fromhex(address)[::-1])
            sock = wanted.get((host, int(port, 16)))
            if sock is not None:
                states[sock] = names.get(fields[3], fields[3])
    return states


def close_code(data):
    """The code of the first close frame in `data` (server frames), or None."""
    buffer = bytearray(data)
    while True:
        try:
            frame, used = parse_frame(buffer)
        except WebSocketError:
            return None
        if frame is None:
            return None
        del buffer[:used]
        if frame.opcode == CLOSE:
            return struct.unpack("!H", frame.payload[:2])[0] if len(frame.payload) >= 2 else 1005


def readable(socks, timeout):
    """The sockets of `socks` with something to read (or ended) within `timeout` seconds. poll,
    not select: descriptors above 1,023 are common here."""
    poller = select.poll()
    by_fd = {}
    for sock in socks:
        fd = sock.fileno()
        if fd >= 0:
            by_fd[fd] = sock
            poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    return [by_fd[fd] for fd, _ in poller.poll(timeout * 1000)]


def wait_for_binary(limit=120.0):
    """Waits (up to `limit` seconds) while the server's executable is missing or being written, as
    when it is rebuilt during a run; returns whether it runs."""
    deadline = time.monotonic() + limit
    while True:
        try:
            subprocess.run([binary_path(), "--help"], capture_output=True, timeout=30)
            return True
        except (OSError, subprocess.TimeoutExpired):
            if time.monotonic() > deadline:
                return False
            time.sleep(2.0)
