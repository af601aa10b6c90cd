"""The `scenesync` server as a child process, and plain HTTP probes against it."""
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVING = re.compile(r"SceneSync serving http://127\.0\.0\.1:(\d+)")
TICKS = os.sysconf("SC_CLK_TCK")


def binary_path():
    """`SCENESYNC_BIN`, or the debug build, relative to the repository root."""
    path = os.environ.get("SCENESYNC_BIN", ".build/debug/scenesync")
    return path if os.path.isabs(path) else os.path.join(REPO, path)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerError(Exception):
    pass


class Server:
    """One `scenesync serve` on a fixed port and data directory, which can be killed and started
    again on both. Its output (log and the "serving" line) is kept in a file in the data
    directory's parent, drained by a thread so that a full pipe never stalls the server."""

    def __init__(self, args=(), open_files=None):
        self.binary = binary_path()
        if not os.access(self.binary, os.X_OK):
            raise ServerError(f"no scenesync executable at {self.binary} (set SCENESYNC_BIN)")
        self.workdir = tempfile.mkdtemp(prefix="scenesync-reliability-")
        self.data_dir = os.path.join(self.workdir, "data")
        self.port = free_port()
        self.args = list(args)
        self.open_files = open_files
        self.log_path = os.path.join(self.workdir, "server.log")
        self.process = None
        self.starts = 0

    def start(self, timeout=60.0):
        """Starts the server and waits for its "serving" line; returns the time that took."""
        command = [self.binary, "serve", "--port", str(self.port), "--data-dir", self.data_dir,
                   "--log-level", "warning"] + self.args
        limit = self.open_files

        def lower_open_files():
            # The same as `ulimit -n` in a shell before exec: soft and hard limit in the child only.
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        started = time.monotonic()
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            preexec_fn=lower_open_files if limit else None)
        self.starts += 1
        serving = threading.Event()
        threading.Thread(target=self._drain, args=(self.process, serving), daemon=True).start()
        while not serving.wait(0.05):
            if self.process.poll() is not None:
                raise ServerError(f"the server exited with status {self.process.returncode} while starting:\n"
                                  + self.log_tail())
            if time.monotonic() - started > timeout:
                self.kill()
                raise ServerError(f"the server did not say it was serving within {timeout:.0f} s")
        return time.monotonic() - started

    def _drain(self, process, serving):
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts} ---\n".encode())
            for line in process.stdout:
                log.write(line)
                log.flush()
                match = SERVING.search(line.decode("utf-8", "replace"))
                if match and int(match.group(1)) == self.port:
                    serving.set()

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self):
        """SIGKILL, and waits for the process to be gone."""
        if self.alive():
            self.process.send_signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait()

    def stop(self, timeout=30.0):
        """SIGTERM, as an operator stops it: returns its exit status, or None if it had to be killed."""
        if not self.alive():
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def cpu_seconds(self):
        """User plus system CPU time the server has used, from /proc/PID/stat."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # After the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        return (int(fields[11]) + int(fields[12])) / TICKS

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)


def http_request(port, raw, timeout=2.0):
    """Sends raw request bytes to 127.0.0.1:`port` and reads the response head.

    Returns (status or None, seconds until the head arrived); raises OSError/socket.timeout."""
    started = time.monotonic()
    with socket.socket() as sock:
        sock.settimeout(timeout)
        sock.connect(("127.0.0.1", port))
        sock.sendall(raw)
        data = b""
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
            if time.monotonic() - started > timeout:
                raise socket.timeout()
    status = parse_status(data)
    return status, time.monotonic() - started


def get(port, path="/", timeout=2.0):
    """`GET path`; returns (status or None, seconds)."""
    raw = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    return http_request(port, raw, timeout)


def parse_status(data):
    match = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return int(match.group(1)) if match else None


class Monitor:
    """Asks `GET /` every `interval` seconds on a thread of its own and records every answer that
    was not a 200 within `limit` seconds (a stall), and the slowest answer."""

    def __init__(self, port, interval=0.25, limit=5.0):
        self.port, self.interval, self.limit = port, interval, limit
        self.requests = 0
        self.stalls = []
        self.slowest = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                status, elapsed = get(self.port, timeout=self.limit)
            except OSError as error:
                status, elapsed = f"{error.__class__.__name__}", time.monotonic() - started
            self.requests += 1
            self.slowest = max(self.slowest, elapsed)
            if status != 200:
                self.stalls.append((round(time.monotonic(), 3), status, round(elapsed, 3)))
            self._stop.wait(self.interval)
