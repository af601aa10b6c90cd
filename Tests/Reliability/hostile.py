"""hostile: one hostile client on loopback, case by case. Each case starts its own server(s),
measures one figure and checks it against a bound; `--case` runs some of them only.

   1 silent      WebSocket upgrades that never say `hello`, on a server with --token
   2 unread      a LootLogger window that never reads, on a long list
   3 kitchen     a flood of big orders at Restaurant's `POST /order`
   4 followers   many widget followers (Server-Sent Events), half never reading, against Adds/s
   5 chat        one person flooding Chat with messages
   6 terminal    terminal escapes in an item's name, through `scenesync widget`
   7 pings       ping frames as fast as they go
   8 token       a blank --token, and the token on app assets (header and cookie)
   9 invisible   invisible and control characters in names
  10 headers     security headers, absolute-form targets, broken upgrades, SIGTERM with a stuck window

The connection-level cases (1, 7, 8, 10) are here; the apps' cases in hostile_apps.py (2-5) and
hostile_text.py (6, 9).
"""
import socket
import subprocess
import tempfile
import threading
import time

import hostile_apps
import hostile_text
from hostile_net import (Window, add_items, close_code, http, ms, percentile, readable, serve_flags, timed_get,
                         upgrade_request, wait_for_binary)
from report import Result, log, n
from server import Server, ServerError, binary_path, free_port
from wsclient import PING, Closed, WebSocketError, build_frame

TOKEN = "hostile-token-0123456789"
DEFAULT_HELLO_TIMEOUT = 5.0       # the server's --hello-timeout default
CLOSE_SLACK = 2.0                 # seconds after the hello timeout by which a silent socket must be closed
GET_P50_BOUND = 0.050             # seconds: `GET /` median while pings flood
GET_MAX_BOUND = 1.0
TERM_BOUND = 5.0                  # seconds from SIGTERM to exit with a window that never reads


# MARK: - 1 silent


def read_head(sock, deadline):
    data = b""
    while b"\r\n\r\n" not in data and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def silent(options, result, figures):
    flags = serve_flags()
    hello_timeout = options.hello_timeout if "--hello-timeout" in flags else DEFAULT_HELLO_TIMEOUT
    args = ["--token", TOKEN] + (["--hello-timeout", str(hello_timeout)] if "--hello-timeout" in flags else [])
    if "--hello-timeout" not in flags:
        result.note("silent: the server has no --hello-timeout option; waiting for the 5 s default")
    server = Server(args=args, open_files=options.open_files)
    try:
        server.start()
        port, path = server.port, "/ws/lootlogger"
        held, statuses, retry_after = [], {}, 0
        opened_at = time.monotonic()
        for _ in range(options.silent):
            sock = socket.socket()
            try:
                sock.connect(("127.0.0.1", port))
                sock.sendall(upgrade_request(port, path))
                head = read_head(sock, time.monotonic() + 5.0)
            except OSError as error:
                statuses[error.__class__.__name__] = statuses.get(error.__class__.__name__, 0) + 1
                sock.close()
                continue
            status = head[9:12].decode("latin-1") if head.startswith(b"HTTP/1.1 ") else "none"
            statuses[status] = statuses.get(status, 0) + 1
            if status == "101":
                held.append([sock, time.monotonic(), None, head.partition(b"\r\n\r\n")[2]])
            else:
                retry_after += b"\nretry-after:" in head.lower().replace(b"\r", b"")
                sock.close()
        open_seconds = time.monotonic() - opened_at
        # Meanwhile, another address.
        other_status, other_seconds = timed_get(port, "127.0.0.2")
        try:
            window = Window(port, "lootlogger", token=TOKEN, source="127.0.0.2").start(5.0)
            other_window = "render"
            window.close()
        except (OSError, Closed, WebSocketError, ValueError) as error:
            other_window = f"{error.__class__.__name__}: {error}"[:80]
        last = max((h[1] for h in held), default=time.monotonic())
        deadline = last + hello_timeout + CLOSE_SLACK
        codes = {}
        while time.monotonic() < deadline and any(h[2] is None for h in held):
            waiting = [h for h in held if h[2] is None]
            ready = readable([h[0] for h in waiting], 0.05)
            by_sock = {h[0]: h for h in waiting}
            for sock in ready:
                entry = by_sock[sock]
                try:
                    chunk = sock.recv(4096)
                except OSError:
                    chunk = b""
                entry[3] += chunk
                if not chunk:
                    entry[2] = time.monotonic()
                    code = close_code(entry[3])
                    codes[str(code)] = codes.get(str(code), 0) + 1
        still = [h for h in held if h[2] is None]
        lifetimes = [h[2] - h[1] for h in held if h[2] is not None]
        for h in held:
            h[0].close()
        figure = dict(opened=options.silent, hello_timeout=hello_timeout, open_files=options.open_files,
                      statuses=statuses, slots_taken=len(held), retry_after_on_503=retry_after,
                      open_seconds=round(open_seconds, 2), other_address_get=other_status,
                      other_address_get_ms=ms(other_seconds), other_address_window=other_window,
                      slots_held_after_timeout=len(still), close_codes=codes,
                      longest_held_seconds=round(max(lifetimes), 2) if lifetimes else None)
        figures["silent"] = figure
        log(f"  silent: {figure}")
        total = options.open_files - 64
        if still:
            result.fail(f"silent: {len(still)} of {len(held)} silent sockets still open {hello_timeout + CLOSE_SLACK:.0f} s "
                        f"after the last one opened (hello timeout {hello_timeout} s)")
        if len(held) > total // 2:
            result.fail(f"silent: one address took {len(held)} slots, more than half of the {total} the server has")
        refused = sum(v for k, v in statuses.items() if k != "101")
        if refused and statuses.get("503", 0) != refused:
            result.fail(f"silent: upgrades over the cap answered {statuses}, not 503")
        if statuses.get("503") and retry_after < statuses["503"]:
            result.fail(f"silent: {statuses['503'] - retry_after} of {statuses['503']} 503 answers without Retry-After")
        if other_status != 200:
            result.fail(f"silent: GET / from 127.0.0.2 answered {other_status} while the silent sockets were held")
        if other_window != "render":
            result.fail(f"silent: a window from 127.0.0.2 (with the token) got no render: {other_window}")
        if lifetimes and set(codes) - {"1008"}:
            result.fail(f"silent: silent sockets closed with codes {codes}, expected 1008")
    finally:
        server.cleanup()


# MARK: - 7 pings


class Flooder:
    """A window sending ping frames as fast as the socket takes them; `reads` drains the pongs."""

    def __init__(self, port, reads, stop):
        self.window = Window(port, "lootlogger").start()
        self.reads, self.stop = reads, stop
        self.pings, self.closed_after, self.code, self.received = 0, None, None, b""
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        sock = self.window.ws.sock
        batch = b"".join(build_frame(PING, b"hostile-ping") for _ in range(100))
        started = time.monotonic()
        sock.setblocking(False)
        out = b""
        try:
            while not self.stop.is_set():
                if not out:
                    out = batch
                    self.pings += 100
                try:
                    # Partial writes are kept: a frame cut in two would be a protocol error.
                    out = out[sock.send(out):]
                except BlockingIOError:
                    time.sleep(0.001)
                if self.reads and not out:
                    # A batch is out: read its pongs (or the close) before the next.
                    deadline = time.monotonic() + 0.05
                    while self.closed_after is None and time.monotonic() < deadline:
                        if readable([sock], 0.005):
                            self._drain(sock)
                    if self.closed_after is not None:
                        break
        except OSError:
            self.closed_after = self.closed_after or time.monotonic()
        if self.closed_after is not None:
            self.closed_after -= started
        # What the server sent (the pongs a non-reader left, then the close frame), for 3 s at most.
        deadline = time.monotonic() + 3.0
        try:
            while time.monotonic() < deadline:
                if not readable([sock], 0.2):
                    continue
                chunk = sock.recv(65536)
                if not chunk:
                    break
                self.received += chunk
        except OSError:
            pass
        self.code = close_code(self.window.ws.buffer + self.received)

    def _drain(self, sock):
        try:
            chunk = sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        self.received += chunk
        if not chunk or (b"\x88" in chunk and close_code(self.received) is not None):
            self.closed_after = time.monotonic()


def pings(options, result, figures):
    server = Server()
    try:
        server.start()
        stop = threading.Event()
        flooders = [Flooder(server.port, True, stop), Flooder(server.port, False, stop)]
        started = time.monotonic()
        times, statuses = [], {}
        while time.monotonic() - started < options.flood_seconds:
            status, seconds = timed_get(server.port, "127.0.0.2")
            times.append(seconds)
            statuses[str(status)] = statuses.get(str(status), 0) + 1
            time.sleep(0.03)
        stop.set()
        for flooder in flooders:
            flooder.thread.join(10)
        p50, worst = percentile(times, 0.5), max(times)
        figure = dict(seconds=options.flood_seconds, gets=len(times), get_statuses=statuses, get_p50_ms=ms(p50),
                      get_max_ms=ms(worst), pings_sent=[f.pings for f in flooders],
                      flooder_close_codes=[f.code for f in flooders],
                      flooders_closed_after_s=[round(f.closed_after, 2) if f.closed_after is not None else None for f in flooders])
        figures["pings"] = figure
        log(f"  pings: {figure}")
        if p50 > GET_P50_BOUND or worst > GET_MAX_BOUND:
            result.fail(f"pings: GET / from 127.0.0.2 took {ms(p50)} ms median, {ms(worst)} ms at most while pings "
                        f"flooded (bounds {ms(GET_P50_BOUND)} and {ms(GET_MAX_BOUND)} ms)")
        if set(statuses) != {"200"}:
            result.fail(f"pings: GET / answered {statuses}")
        for flooder, how in zip(flooders, ("reading pongs", "not reading")):
            if flooder.code != 1008:
                result.fail(f"pings: the flooder {how} was not closed with 1008 (close code {flooder.code}, "
                            f"{n(flooder.pings)} pings sent)")
    finally:
        server.cleanup()


# MARK: - 8 token


def token(options, result, figures):
    figure = {}
    for blank in (" ", ""):
        port = free_port()
        with tempfile.TemporaryDirectory(prefix="scenesync-hostile-") as data:
            process = subprocess.Popen([binary_path(), "serve", "--port", str(port), "--data-dir", data,
                                        "--token", blank], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            listened, started = False, time.monotonic()
            while process.poll() is None and time.monotonic() - started < 10:
                with socket.socket() as probe:
                    probe.settimeout(0.2)
                    listened = listened or probe.connect_ex(("127.0.0.1", port)) == 0
                time.sleep(0.05)
            if process.poll() is None:
                process.kill()
            output = process.communicate()[0].decode("utf-8", "replace").strip()
        key = f"token_{'space' if blank else 'empty'}"
        figure[key] = dict(status=process.returncode, listened=listened, message=next((line.strip() for line in output.splitlines() if line.strip()), "")[:120])
        if process.returncode in (0, None, -9) or listened or not output:
            result.fail(f"token: --token {blank!r}: exit status {process.returncode}, listened {listened}, "
                        f"said {output[-200:]!r}; expected a non-zero exit with a message, never listening")
    server = Server(args=["--token", TOKEN])
    try:
        server.start()
        port, asset = server.port, "/restaurant/assets/1.png"
        figure["asset_without_token"] = http(port, target=asset).status
        figure["asset_with_bearer"] = http(port, target=asset, headers=[("Authorization", f"Bearer {TOKEN}")]).status
        figure["asset_with_wrong_bearer"] = http(port, target=asset, headers=[("Authorization", "Bearer nope")]).status
        page = http(port, target=f"/restaurant?token={TOKEN}")
        cookies = page.headers.get("set-cookie", [])
        figure["page_status"], figure["set_cookie"] = page.status, [c.split("=", 1)[0] + "=…; " + "; ".join(
            p.strip() for p in c.split(";")[1:]) for c in cookies]
        pair = cookies[0].split(";", 1)[0] if cookies else None
        figure["asset_with_cookie"] = http(port, target=asset, headers=[("Cookie", pair)]).status if pair else None
        if pair:
            name = pair.split("=", 1)[0]
            figure["asset_with_wrong_cookie"] = http(port, target=asset, headers=[("Cookie", f"{name}=nope")]).status
        figures["token"] = figure
        log(f"  token: {figure}")
        expect = dict(asset_without_token=401, asset_with_bearer=200, asset_with_wrong_bearer=401, page_status=200,
                      asset_with_cookie=200)
        if pair:
            expect["asset_with_wrong_cookie"] = 401
        for key, wanted in expect.items():
            if figure.get(key) != wanted:
                result.fail(f"token: {key} answered {figure.get(key)}, expected {wanted}")
        if not cookies:
            result.fail(f"token: GET /restaurant?token=… set no cookie (status {page.status})")
        elif not all("httponly" in c.lower() for c in cookies):
            result.fail(f"token: the token cookie is not HttpOnly: {figure['set_cookie']}")
    finally:
        server.cleanup()


# MARK: - 10 headers


def headers(options, result, figures):
    server = Server()
    figure = {}
    try:
        server.start()
        port = server.port
        missing = http(port, target="/no-such-page")
        wanted = {"x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "no-referrer"}
        figure["404"] = dict(status=missing.status, **{k: missing.header(k) for k in wanted})
        if missing.status != 404 or any((missing.header(k) or "").lower() != v.lower() for k, v in wanted.items()):
            result.fail(f"headers: a 404 answered {figure['404']}, expected 404 with {wanted}")
        absolute = http(port, raw=(f"GET http://evil.example/lootlogger HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                   "Connection: close\r\n\r\n").encode())
        figure["absolute_form"] = absolute.status
        if absolute.status != 421:
            result.fail(f"headers: GET http://evil.example/lootlogger with Host 127.0.0.1 answered {absolute.status}, expected 421")
        no_key = http(port, raw=upgrade_request(port, "/ws/lootlogger", key=None))
        figure["upgrade_without_key"] = no_key.status
        if no_key.status != 400:
            result.fail(f"headers: an upgrade without Sec-WebSocket-Key answered {no_key.status}, expected 400")
        old = http(port, raw=upgrade_request(port, "/ws/lootlogger", version="8"))
        figure["upgrade_version_8"] = [old.status, old.header("sec-websocket-version")]
        if old.status != 426 or old.header("sec-websocket-version") != "13":
            result.fail(f"headers: an upgrade with Sec-WebSocket-Version 8 answered {figure['upgrade_version_8']}, "
                        f"expected 426 with Sec-WebSocket-Version: 13")
        # SIGTERM with a window that never reads and has much to read.
        add_items(port, 300)
        helper = Window(port, "lootlogger").start()
        row = helper.items()[0]
        helper.close()
        stuck = Window(port, "lootlogger", rcvbuf=4096)
        stuck.ws.sock.setblocking(False)
        for index in range(40):
            try:
                stuck.send_action(*(("navigationBar", "back") if index % 2 else (row, "select")))
            except (Closed, BlockingIOError):
                break
            time.sleep(0.025)
        time.sleep(0.3)
        started = time.monotonic()
        status = server.stop(timeout=TERM_BOUND + 10)
        figure["sigterm_exit_seconds"], figure["sigterm_status"] = round(time.monotonic() - started, 2), status
        stuck.ws.sock.close()
        if status is None or figure["sigterm_exit_seconds"] > TERM_BOUND:
            result.fail(f"headers: with a window that never reads, the server exited {figure['sigterm_exit_seconds']} s "
                        f"after SIGTERM (status {status}), bound {TERM_BOUND:.0f} s")
    finally:
        figures["headers"] = figure
        log(f"  headers: {figure}")
        server.cleanup()


# MARK: - The suite

CASES = [
    ("1", "silent", silent), ("2", "unread", hostile_apps.unread), ("3", "kitchen", hostile_apps.kitchen),
    ("4", "followers", hostile_apps.followers), ("5", "chat", hostile_apps.chat),
    ("6", "terminal", hostile_text.terminal), ("7", "pings", pings), ("8", "token", token),
    ("9", "invisible", hostile_text.invisible), ("10", "headers", headers),
]


def chosen(options):
    wanted = {w.strip() for w in (options.case or "").split(",") if w.strip()}
    unknown = wanted - {number for number, _, _ in CASES} - {name for _, name, _ in CASES}
    if unknown:
        raise SystemExit(f"hostile: no case {', '.join(sorted(unknown))} (cases: "
                         f"{', '.join(f'{a} {b}' for a, b, _ in CASES)})")
    return [c for c in CASES if not wanted or c[0] in wanted or c[1] in wanted]


def run(options):
    result = Result("hostile")
    figures = {}
    cases = chosen(options)
    log(f"hostile: cases {', '.join(name for _, name, _ in cases)}")
    for number, name, case in cases:
        started = time.monotonic()
        log(f" case {number} {name}")
        failures = len(result.failures)
        if not wait_for_binary():
            log(f"  no runnable server at {binary_path()} for 2 minutes")
        try:
            case(options, result, figures)
        except (ServerError, OSError, Closed, WebSocketError, ValueError, KeyError) as error:
            result.fail(f"{name}: {error.__class__.__name__}: {error}")
        log(f" case {number} {name}: {'ok' if len(result.failures) == failures else 'FAILED'} "
            f"in {time.monotonic() - started:.1f} s")
    result.figures = figures
    result.summary = summary(figures)
    return result


def summary(f):
    parts = []
    if "silent" in f:
        s = f["silent"]
        parts.append(f"silent: {s['slots_taken']} of {n(s['opened'])} upgrades held, "
                     f"{s['slots_held_after_timeout']} held after the {s['hello_timeout']} s hello timeout, "
                     f"other address GET {s['other_address_get']}")
    if "unread" in f:
        s = f["unread"]
        parts.append(f"unread: RSS +{s.get('rss_growth_mb')} MB, window closed {s.get('closed')} (code {s.get('close_code')})")
    if "kitchen" in f:
        s = f["kitchen"]
        parts.append(f"kitchen: {n(s.get('accepted', 0))} orders accepted, {n(s.get('refused', 0))} refused, "
                     f"next quote {s.get('next_quote_minutes')} min, disk +{s.get('disk_growth_mb')} MB")
    if "followers" in f:
        s = f["followers"]
        parts.append(f"followers: {s.get('followers_held')} held, adds/s {s.get('adds_per_second_alone')} -> "
                     f"{s.get('adds_per_second_followed')} (ratio {s.get('ratio')})")
    if "chat" in f:
        s = f["chat"]
        parts.append(f"chat: {s.get('rss_mb_per_hour')} MB/h, {n(s.get('refused', 0))} of {n(s.get('sent', 0))} refused, "
                     f"other send {s.get('other_send_p50_ms')} ms median")
    if "terminal" in f:
        parts.append(f"terminal: {f['terminal'].get('control_bytes')} control bytes in the widget's output")
    if "pings" in f:
        s = f["pings"]
        parts.append(f"pings: GET / {s['get_p50_ms']} ms median, {s['get_max_ms']} ms max, flooders closed "
                     f"{s['flooder_close_codes']}")
    if "token" in f:
        s = f["token"]
        parts.append(f"token: blank exits {s.get('token_space', {}).get('status')}, assets "
                     f"{s.get('asset_without_token')}/{s.get('asset_with_bearer')}/{s.get('asset_with_cookie')}")
    if "invisible" in f:
        s = f["invisible"]
        parts.append(f"invisible: {s.get('refused')} of {s.get('tried')} refused")
    if "headers" in f:
        s = f["headers"]
        parts.append(f"headers: absolute form {s.get('absolute_form')}, SIGTERM exit in {s.get('sigterm_exit_seconds')} s")
    return "hostile: " + "; ".join(parts)
