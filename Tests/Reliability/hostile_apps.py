"""The hostile suite's cases on the apps: a window that never reads (LootLogger), a flood of orders
(Restaurant's kitchen), widget followers that do not read, and a Chat flood. See hostile.py.
"""
import json
import socket
import threading
import time

from hostile_net import (MIB, Adder, Window, add_items, add_rate, close_code, dir_bytes, http, json_body, ms,
                         percentile, readable, rss_bytes, socket_states)
from report import log, n
from server import Server
from wsclient import Closed, WebSocketError

UNREAD_RSS_BOUND = 64 * MIB        # memory a window that never reads may cost the server
CLOSE_WAIT = 10.0                  # seconds the non-reading window's socket is watched for the close
QUOTE_BOUND = 60                   # minutes: another customer's one-dish quote after the flood (the
                                   # slowest dish, plus 2 a head for the flooder's orders in the kitchen)
KITCHEN_PER_ADDRESS = 10           # orders one address may have in preparation (OrderLimits)
DISK_BOUND = 16 * MIB              # the flood's growth of the data directory
FOLLOWER_RATIO_BOUND = 0.5         # Adds/s with followers over Adds/s without
FOLLOWERS_PER_ADDRESS = 16         # the server's bound per address (WidgetHub); followers come from
                                   # as many addresses (127.0.0.1 and up) as take them all
ADDERS = 32                        # windows tapping Add at once (each under its message budget)
CHAT_GROWTH_BOUND = 256            # MB per hour of the server's RSS while one person floods Chat
CHAT_OTHER_BOUND = 1.0             # seconds: another person's send while the flood goes on
CHAT_FLOODERS = 4                  # windows of the flooding person


def sample_rss(pid, stop, samples):
    while not stop.is_set():
        try:
            samples.append((time.monotonic(), rss_bytes(pid)))
        except OSError:
            return
        stop.wait(0.1)


def watch_close(sock, limit):
    """Reads `sock` until the server ends it or `limit` seconds pass with nothing read; returns
    (closed, bytes read, close code or None, how)."""
    sock.setblocking(True)
    data = bytearray()
    deadline = time.monotonic() + limit
    idle_since = time.monotonic()
    while time.monotonic() < deadline:
        if not readable([sock], 0.2):
            if time.monotonic() - idle_since > 2.0:
                return False, len(data), None, "open, nothing more sent"
            continue
        try:
            chunk = sock.recv(1 << 20)
        except ConnectionResetError:
            return True, len(data), close_code(bytes(data)), "reset"
        if not chunk:
            return True, len(data), close_code(bytes(data)), "end of stream"
        data += chunk
        idle_since = time.monotonic()
    return False, len(data), None, "still sending"


# MARK: - 2 unread


def unread(options, result, figures):
    server = Server()
    figure = {}
    try:
        server.start()
        port = server.port
        added, problems = add_items(port, options.items)
        figure["items"] = added
        if problems:
            result.fail(f"unread: seeding {options.items} items: {problems[:3]}")
        helper = Window(port, "lootlogger").start()
        row = helper.items()[0]
        helper.close()
        stuck = Window(port, "lootlogger", rcvbuf=4096)
        time.sleep(0.5)
        baseline = rss_bytes(server.pid)
        samples, stop = [], threading.Event()
        sampler = threading.Thread(target=sample_rss, args=(server.pid, stop, samples), daemon=True)
        sampler.start()
        # Another window makes changes while the stuck one goes to an item's detail and back to
        # the list, again and again under its message budget: each Back redraws the whole list.
        adder_stop = threading.Event()
        adder = Adder(port, adder_stop)
        adder.thread.start()
        navigations, send_failed, started = 0, None, time.monotonic()
        while time.monotonic() - started < options.flood_seconds:
            try:
                if navigations % 2:
                    stuck.send_action("navigationBar", "back")
                else:
                    stuck.send_action(row, "select")
                navigations += 1
            except (Closed, OSError) as error:
                send_failed = f"{error.__class__.__name__} after {time.monotonic() - started:.1f} s"
                break
            time.sleep(1 / 45)
        adder_stop.set()
        adder.thread.join()
        closed, read, code, how = watch_close(stuck.ws.sock, CLOSE_WAIT)
        stop.set()
        sampler.join()
        stuck.ws.sock.close()
        peak = max((rss for _, rss in samples), default=baseline)
        figure.update(navigations=navigations, adds=adder.acked, send_stopped=send_failed,
                      baseline_rss_mb=round(baseline / MIB, 1), peak_rss_mb=round(peak / MIB, 1),
                      rss_growth_mb=round((peak - baseline) / MIB, 1), closed=closed, close_code=code, how=how,
                      bytes_read_after=read)
        if peak - baseline > UNREAD_RSS_BOUND:
            result.fail(f"unread: the server's RSS grew {(peak - baseline) / MIB:.0f} MB for a window that never reads "
                        f"({navigations} navigations on {added} rows), bound {UNREAD_RSS_BOUND // MIB} MB")
        if not closed:
            result.fail(f"unread: the window that never reads was not closed by the server ({how}, "
                        f"{n(read)} bytes read after the load)")
        elif code not in (1001, None):
            result.fail(f"unread: the window that never reads was closed with {code}, expected 1001")
        if not server.alive():
            result.fail(f"unread: the server exited:\n{server.log_tail()}")
    finally:
        figures["unread"] = figure
        log(f"  unread: {figure}")
        server.cleanup()


# MARK: - 3 kitchen


def post_order(port, ids, source=None):
    body = json.dumps({"menuIds": ids}).encode()
    return http(port, "POST", "/order", [("Content-Type", "application/json")], body, source=source, timeout=10.0)


def kitchen(options, result, figures):
    """One address floods `POST /order` from four connections at once, alternating orders of 1,000
    dishes (over the cap) and of 50 (the most allowed); then another address orders one dish."""
    server = Server()
    figure = {}
    try:
        server.start()
        port = server.port
        menu = json_body(http(port, target="/menu"))
        ids = [item["id"] for item in menu["items"]]
        orders = {"big": (ids * (1000 // len(ids) + 1))[:1000], "full": (ids * (50 // len(ids) + 1))[:50]}
        disk_before = dir_bytes(server.data_dir)
        statuses = {kind: {} for kind in orders}
        codes, lock, stop = {}, threading.Lock(), threading.Event()
        missing_retry_after = [0]

        def flood(kind):
            while not stop.is_set():
                try:
                    answer = post_order(port, orders[kind])
                    key = str(answer.status)
                    code = (json_body(answer) or {}).get("error")
                    with lock:
                        codes[code] = codes.get(code, 0) + 1
                        missing_retry_after[0] += answer.status in (429, 503) and not answer.header("retry-after")
                except OSError as error:
                    key = error.__class__.__name__
                with lock:
                    statuses[kind][key] = statuses[kind].get(key, 0) + 1

        threads = [threading.Thread(target=flood, args=(kind,), daemon=True) for kind in ("big", "full") * 2]
        for thread in threads:
            thread.start()
        time.sleep(options.flood_seconds)
        stop.set()
        for thread in threads:
            thread.join()
        quote = post_order(port, [ids[0]], source="127.0.0.2")
        body = json_body(quote) or {}
        time.sleep(1.0)
        disk_after = dir_bytes(server.data_dir)
        accepted = sum(s.get("200", 0) for s in statuses.values())
        refused = sum(v for s in statuses.values() for k, v in s.items() if k != "200")
        figure.update(seconds=options.flood_seconds, statuses=statuses, codes={str(k): v for k, v in codes.items()},
                      accepted=accepted, refused=refused, missing_retry_after=missing_retry_after[0],
                      next_status=quote.status, next_quote_minutes=body.get("preparation_time"),
                      next_error=body.get("error"), next_seconds=round(quote.seconds, 3),
                      disk_growth_mb=round((disk_after - disk_before) / MIB, 2))
        if quote.status != 200 or not isinstance(body.get("preparation_time"), int):
            result.fail(f"kitchen: the next customer's one-dish order from 127.0.0.2 answered {quote.status} {body}")
        elif body["preparation_time"] > QUOTE_BOUND:
            result.fail(f"kitchen: after the flood a one-dish order is quoted {body['preparation_time']} minutes, "
                        f"bound {QUOTE_BOUND}")
        if statuses["big"].get("200"):
            result.fail(f"kitchen: {statuses['big']['200']} orders of 1,000 dishes were accepted")
        if accepted > KITCHEN_PER_ADDRESS:
            result.fail(f"kitchen: one address got {accepted} orders into the kitchen at once, "
                        f"bound {KITCHEN_PER_ADDRESS}")
        if disk_after - disk_before > DISK_BOUND:
            result.fail(f"kitchen: the data directory grew {(disk_after - disk_before) / MIB:.1f} MB in "
                        f"{options.flood_seconds:.0f} s of flood, bound {DISK_BOUND // MIB} MB")
        if missing_retry_after[0]:
            result.fail(f"kitchen: {missing_retry_after[0]} answers 429 or 503 came without Retry-After")
    finally:
        figures["kitchen"] = figure
        log(f"  kitchen: {figure}")
        server.cleanup()


# MARK: - 4 followers


def open_follower(port, source, reads):
    sock = socket.socket()
    if not reads:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((source, 0))
    sock.settimeout(5.0)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /lootlogger/widget/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 f"Accept: text/event-stream\r\n\r\n".encode())
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    status = data[9:12].decode("latin-1") if data.startswith(b"HTTP/1.1 ") else "none"
    return sock, status


def drain(socks, stop, counts):
    while not stop.is_set():
        live = [s for s in socks if s.fileno() >= 0]
        if not live:
            return
        for sock in readable(live, 0.05):
            try:
                chunk = sock.recv(65536)
            except OSError:
                chunk = b""
            counts["bytes"] += len(chunk)
            if not chunk:
                counts["ended"] += 1
                socks.remove(sock)


def ended(socks, seconds):
    """How many of `socks` the server has ended: each is read, all at once, for `seconds`."""
    live, done = set(socks), 0
    deadline = time.monotonic() + seconds
    while live and time.monotonic() < deadline:
        for sock in readable(live, 0.1):
            try:
                chunk = sock.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                done += 1
                live.discard(sock)
    return done


def followers(options, result, figures):
    # The rate alone is measured on a server of its own, so that both runs start from an empty list.
    baseline = Server()
    try:
        baseline.start()
        alone, problems = add_rate(baseline.port, options.flood_seconds, ADDERS)
    finally:
        baseline.cleanup()
    server = Server()
    figure = {}
    socks = []
    try:
        server.start()
        port = server.port
        statuses, readers, sleepers = {}, [], []
        addresses = min(250, -(-options.followers // FOLLOWERS_PER_ADDRESS))
        for index in range(options.followers):
            source = f"127.0.0.{1 + index % addresses}"
            reads = index % 2 == 0
            try:
                sock, status = open_follower(port, source, reads)
            except OSError as error:
                statuses[error.__class__.__name__] = statuses.get(error.__class__.__name__, 0) + 1
                continue
            statuses[status] = statuses.get(status, 0) + 1
            socks.append(sock)
            if status == "200":
                (readers if reads else sleepers).append(sock)
        counts, stop = {"bytes": 0, "ended": 0}, threading.Event()
        drainer = threading.Thread(target=drain, args=(list(readers), stop, counts), daemon=True)
        drainer.start()
        opened = time.monotonic()
        followed, more = add_rate(port, options.flood_seconds, ADDERS)
        problems += more
        # Non-readers the server dropped: it ended their connection (what it sent before may be
        # unread in the socket). The summary keeps changing meanwhile; the wait ends when all are.
        adder_stop = threading.Event()
        adder = Adder(port, adder_stop)
        adder.thread.start()
        # A follower that does not read is dropped once its buffers fill (a 16 KiB send buffer on
        # the server) and a write has waited 10 s: at a summary of a few hundred bytes four times a
        # second that takes a minute or two, so only the long profile waits for it.
        drop_wait = 0.0 if options.quick else 240.0
        states = socket_states(sleepers)
        while time.monotonic() - opened < drop_wait and any(v == "ESTABLISHED" for v in states.values()):
            time.sleep(0.5)
            states = socket_states(sleepers)
        dropped = sum(v != "ESTABLISHED" for v in states.values())
        adder_stop.set()
        adder.thread.join()
        stop.set()
        drainer.join()
        ratio = followed / alone if alone else None
        figure.update(followers=options.followers, addresses=addresses, statuses=statuses,
                      followers_held=len(readers) + len(sleepers), readers=len(readers), non_readers=len(sleepers),
                      non_readers_dropped=dropped, drop_wait_seconds=drop_wait, readers_ended=counts["ended"],
                      read_mb=round(counts["bytes"] / MIB, 1), adders=ADDERS,
                      adds_per_second_alone=round(alone, 1), adds_per_second_followed=round(followed, 1),
                      ratio=round(ratio, 2) if ratio is not None else None)
        if problems:
            result.fail(f"followers: windows tapping Add: {problems[:3]}")
        if ratio is None or ratio < FOLLOWER_RATIO_BOUND:
            result.fail(f"followers: {len(readers) + len(sleepers)} followers took Adds from {alone:.0f}/s to "
                        f"{followed:.0f}/s (ratio {ratio and round(ratio, 2)}, bound {FOLLOWER_RATIO_BOUND})")
        others = {k: v for k, v in statuses.items() if k not in ("200", "429", "503")}
        if others:
            result.fail(f"followers: followers answered {others}, expected 200, or 429/503 over the bound")
        if sleepers and not dropped and not options.quick:
            result.fail(f"followers: none of the {len(sleepers)} followers that never read was dropped within "
                        f"{drop_wait:.0f} s of their opening")
    finally:
        for sock in socks:
            sock.close()
        figures["followers"] = figure
        log(f"  followers: {figure}")
        server.cleanup()


# MARK: - 5 chat


def chat_window(port, device, name=None, conversation=None):
    """A Chat window of `device`: signed in as `name` if given; showing `conversation` if given."""
    window = Window(port, "chat", device=device).start()
    if name is not None and window.node("sign-in"):
        answer = window.act("sign-in", "commit", name)
        if answer["type"] != "ack":
            raise WebSocketError(f"signing in as {name!r}: {answer}")
    if conversation is not None:
        deadline = time.monotonic() + 5
        while not window.node(conversation) and time.monotonic() < deadline:
            window.sync()
        answer = window.act(conversation, "select")
        if answer["type"] != "ack" or not window.node("composer"):
            raise WebSocketError(f"opening {conversation}: {answer}")
    return window


def start_conversation(window, title, other):
    for node, name, value in (("new-conversation", "tap", None), ("title", "commit", title),
                              ("participants", "commit", other), ("start", "tap", None)):
        answer = window.act(node, name, value)
        if answer["type"] != "ack":
            raise WebSocketError(f"starting a conversation: {node} {name}: {answer}")
    rows = [i for i in window.tree.nodes if i.startswith("conversation-")]
    if not rows:
        raise WebSocketError("starting a conversation: no conversation row")
    return rows[0]


class ChatFlooder:
    def __init__(self, window, stop, text):
        self.window, self.stop, self.text = window, stop, text
        self.sent = self.acked = self.refused = 0
        self.codes, self.problem = {}, None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        interval, next_at = 1 / 45, time.monotonic()
        try:
            while not self.stop.is_set():
                if time.monotonic() >= next_at:
                    self.window.send_action("composer", "send", f"{self.sent} {self.text}")
                    self.sent += 1
                    next_at += interval
                try:
                    message = self.window.ws.recv_json(max(0.0, min(0.01, next_at - time.monotonic())))
                except socket.timeout:
                    continue
                if message["type"] == "ack":
                    self.acked += 1
                elif message["type"] == "error":
                    self.refused += 1
                    self.codes[message.get("code")] = self.codes.get(message.get("code"), 0) + 1
        except (OSError, Closed, WebSocketError, ValueError) as error:
            self.problem = f"{error.__class__.__name__}: {error}"


def chat(options, result, figures):
    server = Server()
    figure = {}
    try:
        server.start()
        port = server.port
        ana_device, bo_device = "a" * 32, "b" * 32
        bo = chat_window(port, bo_device, "Bo")
        ana = chat_window(port, ana_device, "Ana")
        row = start_conversation(ana, "Flood", "Bo")
        bo.close()
        bo = chat_window(port, bo_device, conversation=row)
        flooders = [ana] + [chat_window(port, ana_device, conversation=row) for _ in range(CHAT_FLOODERS - 1)]
        for window in flooders:
            if not window.node("composer"):
                window.act(row, "select")
        samples, stop = [], threading.Event()
        sampler = threading.Thread(target=sample_rss, args=(server.pid, stop, samples), daemon=True)
        flood_stop = threading.Event()
        started = time.monotonic()
        sampler.start()
        text = "flood " * 330
        workers = [ChatFlooder(w, flood_stop, text) for w in flooders]
        latencies, other_problems = [], []
        while time.monotonic() - started < options.flood_seconds:
            before = time.monotonic()
            answer = bo.act("composer", "send", f"Bo at {before - started:.1f} s")
            latencies.append(time.monotonic() - before)
            if answer["type"] != "ack":
                other_problems.append(answer)
            time.sleep(max(0.0, 0.5 - (time.monotonic() - before)))
        flood_stop.set()
        for worker in workers:
            worker.thread.join(10)
        stop.set()
        sampler.join()
        # The growth rate over the flood's later two thirds (the first third warms caches up).
        later = [(t, rss) for t, rss in samples if t >= started + options.flood_seconds / 3]
        slope = _slope(later)
        sent = sum(w.sent for w in workers)
        refused = sum(w.refused for w in workers)
        codes = {}
        for worker in workers:
            for code, count in worker.codes.items():
                codes[code] = codes.get(code, 0) + count
        figure.update(seconds=options.flood_seconds, flooding_windows=len(workers), sent=sent,
                      accepted=sum(w.acked for w in workers), refused=refused, refusal_codes=codes,
                      rss_start_mb=round(samples[0][1] / MIB, 1) if samples else None,
                      rss_end_mb=round(samples[-1][1] / MIB, 1) if samples else None,
                      rss_mb_per_hour=round(slope * 3600 / MIB) if slope is not None else None,
                      other_sends=len(latencies), other_send_p50_ms=ms(percentile(latencies, 0.5)),
                      other_send_max_ms=ms(max(latencies) if latencies else None), other_refused=len(other_problems))
        problems = [w.problem for w in workers if w.problem]
        if problems:
            result.fail(f"chat: flooding windows: {problems[:2]}")
        if slope is None or slope * 3600 / MIB > CHAT_GROWTH_BOUND:
            result.fail(f"chat: the server's RSS grows {figure['rss_mb_per_hour']} MB/h while one person floods, "
                        f"bound {CHAT_GROWTH_BOUND} MB/h")
        if not refused:
            result.fail(f"chat: none of {n(sent)} messages flooded in {options.flood_seconds:.0f} s was refused")
        if other_problems:
            result.fail(f"chat: another person's sends were refused: {other_problems[:2]}")
        if latencies and max(latencies) > CHAT_OTHER_BOUND:
            result.fail(f"chat: another person's send took up to {max(latencies) * 1000:.0f} ms during the flood, "
                        f"bound {CHAT_OTHER_BOUND * 1000:.0f} ms")
        for window in flooders + [bo]:
            window.close()
    finally:
        figures["chat"] = figure
        log(f"  chat: {figure}")
        server.cleanup()


def _slope(points):
    """Least-squares slope of (t, value) points, per second."""
    if len(points) < 3:
        return None
    mean_t = sum(t for t, _ in points) / len(points)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / spread if spread else None
