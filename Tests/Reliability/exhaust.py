"""exhaust: connection exhaustion under a lowered open-file limit.

The server runs with `ulimit -n` lowered (256 by default), so it can hold at most that many
descriptors; it lowers its own connection limit to fit (ConnectionLimits.reservedFileDescriptors).

"per-address": `--max-connections-per-address 100 --request-head-timeout 2`. Far more idle TCP
connections than the limit are opened from 127.0.0.2 (any 127.x.y.z is local on Linux); each sends
nothing. While they are held, the server must not spin (CPU time over 3 s, from /proc), and a
client from 127.0.0.1 must still get `GET /` 200 and a WebSocket window its `render`. Connections
over the limit must be answered `503 Service Unavailable` and closed; the idle ones closed after
the 2 s head timeout.

"fd-limit": no per-address limit to help: as many connections from three addresses (one may hold
at most half of the server's connections), more than the descriptor limit allows. Those over the server's limit must be answered 503 promptly (not after a
timeout), the server must not spin, and once the held connections are gone it must serve 200.

"descriptors": the same, but with `--reserved-descriptors 0 --max-connections 100000`, so that the
connection limit does not keep the server from running out of descriptors: accepting fails with
EMFILE. Accepting then pauses (NIO backs off a second after each failure) and resumes, the server
gives up a descriptor it holds in reserve so that waiting connections are accepted and answered 503
a few at a time instead of failing in a busy loop. Checked: no spin, every connection answered 503
or held, none otherwise, 200 again afterwards, and a warning in the log; the 503s are not prompt
here (those waiting in the kernel's queue are answered as accepting resumes).
"""
import errno
import selectors
import socket
import threading
import time

from report import Result, log, n
from server import Server, ServerError, get, parse_status
from wsclient import Closed, WebSocket, WebSocketError, hello

CPU_WINDOW = 3.0
CPU_LIMIT = 30.0          # percent of one core
PROMPT = 2.0              # seconds within which a refusal counts as prompt
BATCH = 50                # connections opened at once in a wave


class Idle:
    """One idle connection: when it opened, what the server answered, and when it closed."""

    def __init__(self, sock, opened):
        self.sock, self.opened = sock, opened
        self.data = b""
        self.established = self.first_byte = self.closed = None
        self.connect_error = None

    @property
    def status(self):
        return parse_status(self.data)


class Wave:
    """`count` connections from `source`, opened in quick batches (so that the listen backlog does
    not overflow into SYN retries) and then only watched, on a thread of its own, for the server's
    answer and close. Times count from when each connection was established."""

    def __init__(self, port, source, count):
        # One address, or several taken in turn: one address may hold at most half of the server's
        # connections, so filling the server takes more than one.
        sources = source if isinstance(source, (list, tuple)) else [source]
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.connections = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()
        started = time.monotonic()
        for index in range(count):
            if index and index % BATCH == 0:
                time.sleep(0.01)
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((sources[index % len(sources)], 0))
            connection = Idle(sock, time.monotonic())
            code = sock.connect_ex(("127.0.0.1", port))
            if code not in (0, errno.EINPROGRESS):
                connection.connect_error = errno.errorcode.get(code, code)
                connection.closed = time.monotonic()
            else:
                with self.lock:
                    self.selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, connection)
            self.connections.append(connection)
        self.open_seconds = time.monotonic() - started

    def _watch(self):
        while not self.stop.is_set():
            with self.lock:
                events = self.selector.select(0.02)
            for key, mask in events:
                connection = key.data
                if mask & selectors.EVENT_WRITE:
                    connection.established = time.monotonic()
                    with self.lock:
                        self.selector.modify(connection.sock, selectors.EVENT_READ, connection)
                    continue
                try:
                    chunk = connection.sock.recv(4096)
                except (ConnectionResetError, ConnectionRefusedError, BlockingIOError) as error:
                    if isinstance(error, BlockingIOError):
                        continue
                    chunk = b""
                now = time.monotonic()
                if chunk:
                    connection.first_byte = connection.first_byte or now
                    connection.data += chunk
                else:
                    connection.closed = now
                    with self.lock:
                        self.selector.unregister(connection.sock)
            if not events:
                time.sleep(0.005)

    def settle(self, limit=1.5):
        """Waits until every connection is established or closed, and no answer came for 0.2 s."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            quiet = all(c.established or c.closed for c in self.connections) and \
                all(not c.first_byte or time.monotonic() - c.first_byte > 0.2 for c in self.connections)
            if quiet:
                return
            time.sleep(0.05)

    def held(self):
        return [c for c in self.connections if c.established and c.closed is None and not c.data]

    def refused(self):
        return [c for c in self.connections if c.status == 503]

    def finish(self):
        self.stop.set()
        self.thread.join()
        for connection in self.connections:
            connection.sock.close()
        self.selector.close()


def cpu_percent(server):
    before = server.cpu_seconds()
    time.sleep(CPU_WINDOW)
    return (server.cpu_seconds() - before) / CPU_WINDOW * 100


def window_renders(port, timeout=5.0):
    """Seconds until a new window's first `render`, or None."""
    started = time.monotonic()
    try:
        ws = WebSocket.connect(port, "/ws/lootlogger", timeout=timeout)
    except (OSError, WebSocketError):
        return None
    try:
        ws.send_json(hello())
        while time.monotonic() - started < timeout:
            if ws.recv_json(timeout)["type"] == "render":
                return time.monotonic() - started
    except (OSError, Closed, WebSocketError, ValueError):
        return None
    finally:
        ws.close()
    return None


def timed_get(port):
    try:
        return get(port, timeout=5.0)
    except OSError as error:
        return error.__class__.__name__, None


def per_address(options, result, figures):
    limit = 100
    server = Server(args=["--max-connections-per-address", str(limit), "--request-head-timeout", "2"],
                    open_files=options.open_files)
    try:
        server.start()
        wave = Wave(server.port, "127.0.0.2", options.connections)
        wave.settle()
        status, get_seconds = timed_get(server.port)
        render_seconds = window_renders(server.port)
        cpu = cpu_percent(server)
        # The head timeout is 2 s; give the idle ones until 8 s after they opened.
        deadline = time.monotonic() + 5.0
        while wave.held() and time.monotonic() < deadline:
            time.sleep(0.1)
        wave.finish()
        refused = wave.refused()
        # Held: never answered (the idle ones are closed silently after the head timeout).
        idle = [c for c in wave.connections if not c.data and not c.connect_error]
        held = len(idle)
        idle_close = [c.closed - (c.established or c.opened) for c in idle if c.closed]
        slowest_refusal = max((c.first_byte - (c.established or c.opened) for c in refused), default=0.0)
        figures["per_address"] = dict(
            opened=options.connections, held=held, refused_503=len(refused), open_seconds=round(wave.open_seconds, 2),
            slowest_503_seconds=round(slowest_refusal, 3), get_status=status,
            get_seconds=round(get_seconds, 3) if get_seconds else None,
            render_seconds=round(render_seconds, 3) if render_seconds else None, cpu_percent=round(cpu, 1),
            idle_closed=len(idle_close), idle_close_seconds=[round(min(idle_close), 2), round(max(idle_close), 2)]
            if idle_close else None, connect_errors=sum(1 for c in wave.connections if c.connect_error))
        log(f"  per-address: {figures['per_address']}")
        if held > limit:
            result.fail(f"per-address: {held} connections from 127.0.0.2 held, over the limit of {limit}")
        if held == 0:
            result.fail("per-address: no connection from 127.0.0.2 was held")
        if len(refused) + held != options.connections:
            others = [(c.status, c.connect_error, c.data[:40]) for c in wave.connections if c.status not in (503, None)]
            result.fail(f"per-address: {options.connections - held - len(refused)} connections were neither held "
                        f"nor refused with 503: {others[:5]}")
        if status != 200:
            result.fail(f"per-address: GET / from 127.0.0.1 while they were held answered {status}")
        if render_seconds is None:
            result.fail("per-address: a window from 127.0.0.1 got no render while they were held")
        if cpu > CPU_LIMIT:
            result.fail(f"per-address: the server used {cpu:.0f}% of a core while they were held")
        if slowest_refusal > PROMPT:
            result.fail(f"per-address: a 503 took {slowest_refusal:.1f} s")
        if any(c.closed is None for c in refused):
            result.fail(f"per-address: {sum(c.closed is None for c in refused)} connections answered 503 were left open")
        still = [c for c in idle if not c.closed]
        if still:
            result.fail(f"per-address: {len(still)} idle connections still open well after the 2 s head timeout")
        if any(not 1.5 <= t <= 6.0 for t in idle_close):
            result.fail(f"per-address: idle connections closed after {min(idle_close):.1f}-{max(idle_close):.1f} s, "
                        f"not about the 2 s head timeout")
        if not server.alive():
            result.fail(f"per-address: the server exited:\n{server.log_tail()}")
    finally:
        server.cleanup()


def fd_limit(options, result, figures, key="fd_limit", extra_args=(), warning=None, prompt=True):
    # A head timeout longer than the test, so that the held connections stay until they are let go.
    server = Server(args=["--request-head-timeout", "60", *extra_args], open_files=options.open_files)
    name = key.replace("_", "-")
    try:
        server.start()
        wave = Wave(server.port, ["127.0.0.1", "127.0.0.3", "127.0.0.4"], options.connections)
        wave.settle()
        status_while_full, _ = timed_get(server.port)
        cpu = cpu_percent(server)
        # Held: still open and unanswered after all that (a connection the kernel had queued may
        # only be answered 503 once the server accepts it, well after it looked established).
        held = len(wave.held())
        refused = wave.refused()
        slowest_refusal = max((c.first_byte - (c.established or c.opened) for c in refused), default=0.0)
        unanswered = [c for c in wave.connections if c.status is None and c.closed]
        answered_otherwise = [c for c in wave.connections if c.status not in (503, None)]
        refused_open = sum(c.closed is None for c in refused)
        wave.finish()
        # The held ones are gone: the server must serve again.
        released = time.monotonic()
        recovered = None
        while time.monotonic() - released < 10.0:
            status, _ = timed_get(server.port)
            if status == 200:
                recovered = time.monotonic() - released
                break
            time.sleep(0.1)
        figures[key] = dict(
            opened=options.connections, open_files=options.open_files, held=held, refused_503=len(refused),
            slowest_503_seconds=round(slowest_refusal, 3), status_while_full=status_while_full,
            cpu_percent=round(cpu, 1), recovered_seconds=round(recovered, 3) if recovered is not None else None,
            closed_without_answer=len(unanswered))
        log(f"  {name}: {figures[key]}")
        if prompt and held >= options.open_files:
            result.fail(f"{name}: {held} connections held with an open-file limit of {options.open_files}")
        if not refused:
            result.fail(f"{name}: no connection was refused with 503")
        if prompt and slowest_refusal > PROMPT:
            result.fail(f"{name}: a 503 took {slowest_refusal:.1f} s (should be prompt)")
        if refused_open:
            result.fail(f"{name}: {refused_open} connections answered 503 were left open")
        if unanswered or answered_otherwise or held + len(refused) != options.connections:
            result.fail(f"{name}: of {options.connections} connections {held} were held and {len(refused)} refused "
                        f"with 503; {len(unanswered)} closed unanswered, {len(answered_otherwise)} answered otherwise")
        if cpu > CPU_LIMIT:
            result.fail(f"{name}: the server used {cpu:.0f}% of a core while full")
        if recovered is None:
            result.fail(f"{name}: GET / did not answer 200 within 10 s of the connections closing")
        if not server.alive():
            result.fail(f"{name}: the server exited:\n{server.log_tail()}")
        if warning and warning not in server.log_tail(200):
            result.fail(f"{name}: the log does not say {warning!r}")
    finally:
        server.cleanup()


def run(options):
    result = Result("exhaust")
    figures = {}
    log(f"exhaust: {n(options.connections)} idle connections against an open-file limit of {options.open_files}")
    try:
        per_address(options, result, figures)
        fd_limit(options, result, figures)
        fd_limit(options, result, figures, key="descriptors",
                 extra_args=("--reserved-descriptors", "0", "--max-connections", "100000"),
                 warning="Out of file descriptors", prompt=False)
    except (ServerError, OSError) as error:
        result.fail(f"{error.__class__.__name__}: {error}")
    result.figures = figures
    a, b, c = figures.get("per_address", {}), figures.get("fd_limit", {}), figures.get("descriptors", {})
    result.summary = (
        f"exhaust: per address: {n(a.get('held', 0))} held and {n(a.get('refused_503', 0))} refused with 503 of "
        f"{n(options.connections)} from 127.0.0.2, CPU {a.get('cpu_percent')}% of a core, GET / from 127.0.0.1 "
        f"{a.get('get_status')} in {a.get('get_seconds')} s, render in {a.get('render_seconds')} s, idle closed after "
        f"{a.get('idle_close_seconds')} s; fd limit {options.open_files}: {n(b.get('held', 0))} held, "
        f"{n(b.get('refused_503', 0))} refused with 503 (slowest {b.get('slowest_503_seconds')} s), "
        f"CPU {b.get('cpu_percent')}%, 200 again {b.get('recovered_seconds')} s after release; out of descriptors: "
        f"{n(c.get('held', 0))} held, {n(c.get('refused_503', 0))} refused with 503 (slowest "
        f"{c.get('slowest_503_seconds')} s), CPU {c.get('cpu_percent')}%, 200 again {c.get('recovered_seconds')} s after")
    return result
