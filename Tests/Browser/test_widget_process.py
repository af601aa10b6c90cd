"""`scenesync widget`, the widget as a separate process, against a real server: the cached summary
at once, the server's only if it changed, stale with its age when the server is gone, and every
change with --follow. Output is piped, so each drawing is one line, and drawings can be counted."""
import json
import os
import pty
import select
import socket
import subprocess
import threading
import time
import urllib.request

from conftest import SERVER, Server


class Widget:
    """One `scenesync widget` process; its output lines, each with when it came."""

    def __init__(self, *args, terminal=False):
        if terminal:
            leader, follower = pty.openpty()
            self.process = subprocess.Popen([SERVER, "widget", *args], stdout=follower, stderr=subprocess.PIPE)
            os.close(follower)
            self.output = leader
        else:
            self.process = subprocess.Popen([SERVER, "widget", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.output = self.process.stdout.fileno()
        self.started = time.monotonic()
        self.raw = b""
        self.lines = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        while True:
            try:
                chunk = os.read(self.output, 4096)
            except OSError:
                return
            if not chunk:
                return
            self.raw += chunk
            while b"\n" in self.raw[sum(len(line) + 1 for line, _ in self.lines):]:
                rest = self.raw[sum(len(line) + 1 for line, _ in self.lines):]
                line = rest[:rest.index(b"\n")]
                self.lines.append((line, time.monotonic() - self.started))

    def texts(self):
        return [line.decode() for line, _ in self.lines]

    def wait_for_lines(self, count, timeout=10):
        deadline = time.monotonic() + timeout
        while len(self.lines) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.texts()

    def finish(self, timeout=20):
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def order(server, ids):
    request = urllib.request.Request(server.url + "/order", data=json.dumps({"menuIds": ids}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    return json.load(urllib.request.urlopen(request, timeout=5))


def test_the_first_run_shows_the_servers_summary_and_a_second_draws_it_once_from_the_cache(server, tmp_path):
    first = Widget("lootlogger", "--server", server.url, "--cache-dir", str(tmp_path))
    assert first.finish() == 0
    assert first.texts() == ["LootLogger | Items: 0 | Total value: $0 | Most valuable: —"]
    assert len(list(tmp_path.iterdir())) == 1, "the summary is cached"

    second = Widget("lootlogger", "--server", server.url, "--cache-dir", str(tmp_path))
    assert second.finish() == 0
    assert second.texts() == first.texts(), "drawn once: the server said it has not changed (304)"


def test_the_cached_summary_shows_before_the_server_answers_and_goes_stale_when_it_does_not(tmp_path):
    server = Server()
    server.start()
    try:
        assert Widget("lootlogger", "--server", server.url, "--cache-dir", str(tmp_path)).finish() == 0
    finally:
        server.close()
    # Something listens on the server's port now, but never answers.
    silent = socket.socket()
    silent.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    silent.bind(("127.0.0.1", server.port))
    silent.listen(8)
    try:
        widget = Widget("lootlogger", "--server", server.url, "--cache-dir", str(tmp_path), "--timeout", "2")
        assert widget.finish() == 2
        texts = widget.texts()
        assert texts[0] == "LootLogger | Items: 0 | Total value: $0 | Most valuable: —"
        assert widget.lines[0][1] < 1.5, "the cached summary came before the server could answer"
        assert len(texts) == 2
        assert texts[1].startswith(texts[0] + " | stale: the server cannot be reached; from ")
        assert widget.lines[1][1] >= 1.9, "stale only once the server did not answer in time"
    finally:
        silent.close()


def test_with_the_server_stopped_the_cached_summary_is_marked_stale_and_nothing_cached_is_an_error(tmp_path):
    server = Server()
    server.start()
    url = server.url
    try:
        assert Widget("restaurant", "--server", url, "--cache-dir", str(tmp_path)).finish() == 0
    finally:
        server.close()
    stale = Widget("restaurant", "--server", url, "--cache-dir", str(tmp_path))
    assert stale.finish() == 2
    assert stale.texts()[0] == "Restaurant | In the order: 0 dishes | Next ready: Nothing in the kitchen"
    assert "| stale: the server cannot be reached; from 0 s ago" in stale.texts()[1]

    nothing = Widget("restaurant", "--server", url, "--cache-dir", str(tmp_path / "empty"))
    assert nothing.finish() == 3
    assert nothing.texts() == []
    assert b"cannot be reached" in nothing.process.stderr.read()


def test_an_app_without_a_widget_is_refused(server, tmp_path):
    widget = Widget("nosuchapp", "--server", server.url, "--cache-dir", str(tmp_path))
    assert widget.finish() == 4
    assert b"no widget" in widget.process.stderr.read()


def test_follow_draws_every_change_and_only_changes(server, tmp_path):
    widget = Widget("restaurant", "--server", server.url, "--cache-dir", str(tmp_path), "--follow")
    try:
        assert widget.wait_for_lines(1)[0].endswith("Next ready: Nothing in the kitchen")
        order(server, [1, 2])
        texts = widget.wait_for_lines(2)
        assert len(texts) == 2 and "Next ready: Order 1 at " in texts[1]
        # A slower order is not the next one ready: the summary does not change, nothing is drawn.
        order(server, [1, 2, 3, 4, 5, 6])
        time.sleep(1.5)
        assert len(widget.texts()) == 2
        # The server goes away: the summary is marked stale, once.
        server.stop()
        texts = widget.wait_for_lines(3)
        assert len(texts) == 3 and "| stale: " in texts[2]
        time.sleep(1.5)
        assert len(widget.texts()) == 3
        # It comes back: the summary is drawn again, fresh.
        server.start()
        texts = widget.wait_for_lines(4, timeout=15)
        assert len(texts) == 4 and "stale" not in texts[3] and "Order 1 at " in texts[3]
    finally:
        widget.stop()


def test_on_a_terminal_the_summary_is_one_block_redrawn_in_place(server, tmp_path):
    widget = Widget("restaurant", "--server", server.url, "--cache-dir", str(tmp_path), "--follow", terminal=True)
    try:
        widget.wait_for_lines(4)
        order(server, [1])
        deadline = time.monotonic() + 10
        while b"\x1b[4F" not in widget.raw and time.monotonic() < deadline:
            time.sleep(0.05)
        first, _, second = widget.raw.partition(b"\x1b[4F")
        assert second, "the second drawing goes back up over the first"
        lines = [line for line in second.split(b"\n") if line]
        assert len(lines) == 4, "the same four lines: title, two values, status"
        assert all(line.startswith(b"\x1b[2K") for line in lines)
        assert b"Next ready" in lines[2] and b"Order 1 at " in lines[2]
    finally:
        widget.stop()
