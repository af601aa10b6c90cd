"""The hostile suite's cases on text: terminal escapes through the widget process, and invisible
or control characters in names. See hostile.py.
"""
import json
import socket
import subprocess
import tempfile
import threading
import time

from hostile_net import Window
from report import log
from server import Server, binary_path
from viewtree import DETAIL_ROUTE_PREFIX
from wsclient import WebSocketError

ESCAPE_NAME = "\x1b]0;PWNED\x07\x1b[2J"


# MARK: - 6 terminal


def open_detail(window):
    """Adds an item and opens its detail; returns its row id."""
    window.act("add", "tap")
    row = window.items()[-1]
    window.act(row, "select")
    if not (window.tree.route or "").startswith(DETAIL_ROUTE_PREFIX):
        raise WebSocketError(f"selecting {row} did not open its detail ({window.tree.route})")
    return row


def commit_refused(window, node, value):
    """Commits `value` to the field `node`: whether it was refused with an `error` (or the field's
    `error` property), and the field's value afterwards."""
    answer = window.act(node, "commit", value)
    field = window.node(node)["props"]
    return answer["type"] == "error" or bool(field.get("error")), field.get("value")


def run_widget(server_url):
    """`scenesync widget lootlogger` once, then with --follow for 1.5 s, then once more from its
    cache; returns (everything it wrote, the first run)."""
    with tempfile.TemporaryDirectory(prefix="scenesync-widget-") as cache:
        command = [binary_path(), "widget", "lootlogger", "--server", server_url, "--cache-dir", cache, "--timeout", "3"]
        once = subprocess.run(command, capture_output=True, timeout=30)
        follow = subprocess.Popen(command + ["--follow"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.5)
        follow.terminate()
        followed, follow_err = follow.communicate(timeout=10)
        cached = subprocess.run(command, capture_output=True, timeout=30)
    return once.stdout + once.stderr + followed + follow_err + cached.stdout + cached.stderr, once


class StandIn:
    """A server of one widget summary (`/lootlogger/widget.json` and `/lootlogger/widget/events`)
    whose most valuable item is named with terminal escapes."""

    def __init__(self):
        summary = {"title": "LootLogger\x1b[31m", "lines": [
            {"label": "Items", "text": "1"}, {"label": "Total value", "text": "$5\x07"},
            {"label": "Most valuable", "text": ESCAPE_NAME + ", $5"}]}
        body = json.dumps(summary).encode()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.answers = {
            "/lootlogger/widget.json": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"e1\"\r\n"
                                       b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
            "/lootlogger/widget/events": b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                         b"Cache-Control: no-cache\r\n\r\nevent: summary\nid: \"e1\"\ndata: %s\n\n" % body,
        }
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection):
        with connection:
            try:
                connection.settimeout(5)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = connection.recv(4096)
                    if not chunk:
                        return
                    head += chunk
                path = head.split(b" ")[1].decode("latin-1").split("?")[0]
                connection.sendall(self.answers.get(path, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"))
                if path.endswith("/events"):
                    time.sleep(3)
            except OSError:
                pass

    def close(self):
        self.listener.close()


def terminal(options, result, figures):
    server = Server()
    figure = {}
    try:
        server.start()
        port = server.port
        window = Window(port, "lootlogger").start()
        open_detail(window)
        refused_value, _ = commit_refused(window, "value", "999999")
        refused_name, shown = commit_refused(window, "name", ESCAPE_NAME)
        window.act("navigationBar", "back")
        window.close()
        figure.update(name_refused=refused_name, value_refused=refused_value, name_shown=repr(shown))
        output, once = run_widget(f"http://127.0.0.1:{port}")
        # The widget itself, whatever the server keeps: a stand-in server whose summary has the name.
        stand_in = StandIn()
        try:
            stand_in_output, stand_in_once = run_widget(f"http://127.0.0.1:{stand_in.port}")
        finally:
            stand_in.close()
        figure["stand_in_status"] = stand_in_once.returncode
        figure["stand_in_control_bytes"] = sum(stand_in_output.count(b) for b in (b"\x1b", b"\x07"))
        figure["stand_in_output"] = stand_in_once.stdout.decode("utf-8", "replace").strip()[:200]
        if stand_in_once.returncode != 0 or "PWNED" not in stand_in_output.decode("utf-8", "replace"):
            result.fail(f"terminal: the widget against a stand-in server exited {stand_in_once.returncode}, "
                        f"output {stand_in_output[:200]!r}")
        if figure["stand_in_control_bytes"]:
            result.fail(f"terminal: given a summary with terminal escapes, the widget wrote "
                        f"{figure['stand_in_control_bytes']} ESC or BEL bytes: {stand_in_output[:200]!r}")
        controls = sum(output.count(b) for b in (b"\x1b", b"\x07"))
        figure.update(widget_status=once.returncode, output_bytes=len(output), control_bytes=controls,
                      output=(once.stdout.decode("utf-8", "replace").strip()[:200]))
        if once.returncode != 0:
            result.fail(f"terminal: the widget exited {once.returncode}: {once.stderr[-200:]!r}")
        if controls:
            result.fail(f"terminal: the widget's output has {controls} ESC or BEL bytes: {output[:200]!r}")
        if not refused_name and "PWNED" not in output.decode("utf-8", "replace"):
            result.fail("terminal: the name was kept but the widget did not show it (the most valuable item)")
    finally:
        figures["terminal"] = figure
        log(f"  terminal: {figure}")
        server.cleanup()


# MARK: - 9 invisible

INVISIBLE_ITEM_NAMES = {"NUL": "\x00", "BOM alone": "\ufeff", "RLO alone": "\u202e", "C1 NEL inside": "Lamp\u0085Shade",
                        "ESC inside": "Lamp\x1bShade", "private use inside": "Lamp\ue000Shade"}
INVISIBLE_CHAT_NAMES = {"braille blank": "\u2800", "hangul filler": "\u3164", "combining marks only": "\u0301\u0302\u0303"}


def invisible(options, result, figures):
    server = Server()
    figure = {"items": {}, "chat": {}}
    try:
        server.start()
        port = server.port
        window = Window(port, "lootlogger").start()
        open_detail(window)
        original = window.node("name")["props"]["value"]
        for label, name in INVISIBLE_ITEM_NAMES.items():
            refused, shown = commit_refused(window, "name", name)
            figure["items"][label] = "refused" if refused else f"kept as {shown!r}"
            if not refused:
                result.fail(f"invisible: the item name {name!r} ({label}) was not refused")
                window.act("name", "commit", original)
        window.close()
        for index, (label, name) in enumerate(INVISIBLE_CHAT_NAMES.items()):
            chat_window_ = Window(port, "chat", device=f"{index + 1:032x}").start()
            answer = chat_window_.act("sign-in", "commit", name)
            refused = answer["type"] == "error" or bool((chat_window_.node("sign-in") or {}).get("props", {}).get("error"))
            signed_in = chat_window_.node("sign-in") is None
            figure["chat"][label] = "refused" if refused and not signed_in else "signed in"
            if not refused or signed_in:
                result.fail(f"invisible: the Chat name {name!r} ({label}) was not refused")
            chat_window_.close()
        figure["tried"] = len(INVISIBLE_ITEM_NAMES) + len(INVISIBLE_CHAT_NAMES)
        figure["refused"] = sum(v == "refused" for part in ("items", "chat") for v in figure[part].values())
    finally:
        figures["invisible"] = figure
        log(f"  invisible: {figure}")
        server.cleanup()
