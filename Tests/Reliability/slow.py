"""slow: slow and oversized requests, all at once against one server started with
`--request-head-timeout` and `--request-body-timeout` both at 3 s (--head-timeout).

Each case opens its own connection, writes on a thread of its own (so that a server that answers
and closes early does not block it) and reads until the server closes, recording the status of the
first answer, when it came and when the connection closed. Expected, from ConnectionLimits:

  head sent one line every 500 ms    408 Request Timeout after the head timeout, then closed
  nothing sent                       closed after the head timeout, with no answer
  a 100 KB header                    431 Request Header Fields Too Large, closed
  10,000 headers                     431, closed
  a 1 MB URL                         414 URI Too Long, closed
  a garbage request line             400 Bad Request, closed
  keep-alive, then 150 headers       200, then 400 for the second request
  a body of 1,000 bytes, one a second  closed with no answer after the body timeout (POST /order,
                                     Restaurant's JSON API)
"""
import re
import socket
import threading
import time

from report import Result, log
from server import Server, ServerError, get

CLOSE_GRACE = 3.0    # seconds after the head timeout (or after an answer) by which the close must come


class Exchange:
    """One connection: `write(sock, stop)` runs on a thread; the reads are recorded here."""

    def __init__(self, port, write, limit):
        self.data = b""
        self.answered = self.closed = None
        self.write_error = None
        started = time.monotonic()
        stop = threading.Event()
        with socket.create_connection(("127.0.0.1", port), timeout=limit) as sock:
            writer = threading.Thread(target=self._write, args=(write, sock, stop), daemon=True)
            writer.start()
            deadline = started + limit
            while time.monotonic() < deadline:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    break
                except ConnectionResetError:
                    chunk = b""
                if not chunk:
                    self.closed = time.monotonic() - started
                    break
                self.answered = self.answered or time.monotonic() - started
                self.data += chunk
            stop.set()
            writer.join()

    def _write(self, write, sock, stop):
        try:
            write(sock, stop)
        except OSError as error:
            self.write_error = error.__class__.__name__

    @property
    def statuses(self):
        return [int(s) for s in re.findall(rb"HTTP/1\.1 (\d{3}) ", self.data)]


def request(port, extra="", target="/", method="GET", close=False):
    head = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}"
    return (head + ("Connection: close\r\n" if close else "") + "\r\n").encode()


def cases(port, head_timeout):
    """(name, writer, how long to listen, the statuses expected or None, whether no answer is expected)."""

    def slow_head(sock, stop):
        sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        line = 0
        while not stop.wait(0.5):
            line += 1
            sock.sendall(f"X-Slow-{line}: {line}\r\n".encode())

    def silent(sock, stop):
        stop.wait()

    def once(data):
        def write(sock, stop):
            sock.sendall(data)
            stop.wait()
        return write

    def keep_alive(sock, stop):
        sock.sendall(request(port))
        many = "".join(f"X-Many-{i}: {i}\r\n" for i in range(150))
        # The second request only after the first answer is in: it must be a later request.
        time.sleep(0.5)
        sock.sendall(request(port, many))
        stop.wait()

    def slow_body(sock, stop):
        sock.sendall(request(port, "Content-Type: application/json\r\nContent-Length: 1000\r\n",
                             target="/order", method="POST"))
        body = (b'{"menuIds": [1' + b", 1" * 400)[:1000]
        for byte in body:
            if stop.wait(1.0):
                return
            sock.sendall(bytes([byte]))

    head_limit = head_timeout + CLOSE_GRACE + 1
    return [
        ("head line every 500 ms", slow_head, head_limit, [408], False),
        ("nothing sent", silent, head_limit, [], True),
        ("100 KB header", once(request(port, "X-Big: " + "b" * 100_000 + "\r\n")), CLOSE_GRACE, [431], False),
        ("10,000 headers", once(request(port, "".join(f"X-H-{i}: {i}\r\n" for i in range(10_000)))), CLOSE_GRACE,
         [431], False),
        ("1 MB URL", once(request(port, target="/" + "u" * 1_000_000)), CLOSE_GRACE, [414], False),
        ("garbage request line", once(b"\x16\x03\x01\x02\x00 nonsense \xff\r\n\r\n"), CLOSE_GRACE, [400], False),
        ("keep-alive, then 150 headers", keep_alive, 2.0 + CLOSE_GRACE, [200, 400], False),
        ("slow body, a byte a second", slow_body, head_limit, [], True),
    ]


def run(options):
    result = Result("slow")
    figures = {}
    server = Server(args=["--request-head-timeout", str(options.head_timeout),
                          "--request-body-timeout", str(options.head_timeout)])
    log(f"slow: head and body timeout {options.head_timeout} s")
    try:
        server.start()
        exchanges = {}

        def one(name, write, limit):
            try:
                exchanges[name] = Exchange(server.port, write, limit)
            except OSError as error:
                exchanges[name] = error

        case_list = cases(server.port, options.head_timeout)
        threads = [threading.Thread(target=one, args=(name, write, limit)) for name, write, limit, _, _ in case_list]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for name, _, limit, expected, silent in case_list:
            exchange = exchanges[name]
            if isinstance(exchange, OSError):
                result.fail(f"{name}: could not connect: {exchange}")
                continue
            figure = dict(statuses=exchange.statuses, answer_seconds=_round(exchange.answered),
                          close_seconds=_round(exchange.closed))
            if exchange.write_error:
                figure["write_error"] = exchange.write_error
            figures[name] = figure
            log(f"  {name}: {figure}")
            if exchange.statuses != expected or (silent and exchange.data):
                result.fail(f"{name}: answered {exchange.statuses or exchange.data[:60]!r}, expected "
                            f"{expected or 'no answer'}")
            if exchange.closed is None:
                result.fail(f"{name}: not closed within {limit:.0f} s")
            elif expected in ([408], []) and not options.head_timeout - 0.5 <= exchange.closed <= options.head_timeout + CLOSE_GRACE:
                result.fail(f"{name}: closed after {exchange.closed:.1f} s, timeout {options.head_timeout} s")
        status, _ = get(server.port)
        if status != 200 or not server.alive():
            result.fail(f"GET / answered {status} after the slow cases (server alive: {server.alive()})")
    except (ServerError, OSError) as error:
        result.fail(f"{error.__class__.__name__}: {error}")
    finally:
        server.cleanup()
    result.figures = figures
    parts = []
    for name, figure in figures.items():
        status = "/".join(map(str, figure["statuses"])) or "no answer"
        closed = f"closed at {figure['close_seconds']} s" if figure["close_seconds"] is not None else "still open"
        parts.append(f"{name}: {status}, {closed}")
    result.summary = "slow: " + "; ".join(parts)
    return result


def _round(value):
    return round(value, 2) if value is not None else None
