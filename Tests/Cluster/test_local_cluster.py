"""deploy/local-cluster brings up PostgreSQL, three scenesync nodes and nginx, and they work together.

Skipped when nginx or PostgreSQL is not installed, unless SCENESYNC_REQUIRE_CLUSTER=1 (then it
fails). SCENESYNC_BIN names the scenesync binary; without it the script builds one with swift.

    python3 -m pytest -q Tests/Cluster
"""
import glob
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "deploy", "local-cluster")
sys.path.insert(0, os.path.join(REPO, "Tests", "Reliability"))
import wsclient  # noqa: E402

NODES = 3


def tools_present():
    postgres = any(os.access(path, os.X_OK) for path in glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")) \
        or shutil.which("pg_ctl") is not None
    nginx = shutil.which("nginx") is not None or os.access("/usr/sbin/nginx", os.X_OK)
    return postgres and nginx


if not tools_present():
    if os.environ.get("SCENESYNC_REQUIRE_CLUSTER") == "1":
        raise RuntimeError("SCENESYNC_REQUIRE_CLUSTER=1 but nginx or PostgreSQL is not installed "
                           "(apt-get install -y nginx postgresql)")
    pytest.skip("nginx or PostgreSQL is not installed", allow_module_level=True)


def listening(port):
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def free_base_port():
    """A port P such that P, each node's P+K and PostgreSQL's P+100 are all free."""
    for _ in range(50):
        base = random.randrange(20000, 50000)
        if not any(listening(port) for port in [base, base + 100, *range(base + 1, base + NODES + 1)]):
            return base
    raise RuntimeError("no free ports")


def cluster(*arguments, directory, check=True, timeout=600):
    result = subprocess.run([SCRIPT, *arguments, "--dir", directory], capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"local-cluster {' '.join(arguments)} exited {result.returncode}:\n"
                             f"{result.stdout}\n{result.stderr}")
    return result


def statuses(output):
    """{'postgresql': 'up', 'node1': 'down', …} from `status`'s lines."""
    return {line.split(":")[0]: line.split(":")[1].split()[0] for line in output.splitlines() if ":" in line}


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def established_node(base):
    """The node (1…N) nginx holds an established connection to, from /proc/net/tcp."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            remote_port, state = int(fields[2].split(":")[1], 16), fields[3]
            if state == "01" and base + 1 <= remote_port <= base + NODES:
                found.add(remote_port - base)
    return found


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode("utf-8", "replace")


def open_window(base):
    window = wsclient.WebSocket.connect(base, "/ws/lootlogger")
    window.send_json(wsclient.hello())
    welcome = window.recv_json()
    assert welcome["type"] == "welcome", welcome
    render = window.recv_json()
    assert render["type"] == "render", render
    return window, welcome


def pid_file(directory, k):
    return os.path.join(directory, "run", f"node{k}.pid")


def node_pid(directory, k):
    return int(open(pid_file(directory, k)).read())


def rows(tree):
    """Every row in a rendered view tree, as (title, subtitle)."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.get("kind") == "row":
            found.append((node.get("props", {}).get("title"), node.get("props", {}).get("subtitle")))
        stack.extend(node.get("children", []))
    return found


def dashboard_rows(port):
    """The rows of the dashboard's first screen, drawn by the node on `port` (loopback: no token)."""
    window = wsclient.WebSocket.connect(port, "/ws/dashboard")
    try:
        window.send_json(wsclient.hello())
        assert window.recv_json()["type"] == "welcome"
        render = window.recv_json()
        assert render["type"] == "render", render
        return rows(render["root"])
    finally:
        window.close()


@pytest.fixture
def directory():
    # Under /tmp and open to other users: PostgreSQL runs as its own user when this runs as root.
    path = tempfile.mkdtemp(prefix="scenesync-lc-", dir="/tmp")
    os.chmod(path, 0o755)
    yield path
    subprocess.run([SCRIPT, "stop", "--dir", path], capture_output=True, timeout=300)
    shutil.rmtree(path, ignore_errors=True)


def test_the_cluster_comes_up_serves_through_nginx_survives_a_node_and_stops(directory):
    base = free_base_port()
    started = cluster("start", "--port", str(base), "--watchdog", "3", directory=directory)
    assert f"http://127.0.0.1:{base}/" in started.stdout

    status = cluster("status", directory=directory)
    parts = statuses(status.stdout)
    assert parts == {"postgresql": "up", **{f"node{k}": "up" for k in range(1, NODES + 1)}, "nginx": "up",
                     "watchdog": "up"}, status.stdout
    pids = [node_pid(directory, k) for k in range(1, NODES + 1)]
    pids.append(int(open(os.path.join(directory, "run", "nginx.pid")).read()))
    pids.append(int(open(os.path.join(directory, "run", "watchdog.pid")).read()))

    # Pages through nginx: the nodes accept the proxy's Host.
    code, home = get(f"http://127.0.0.1:{base}/")
    assert code == 200 and "lootlogger" in home
    code, page = get(f"http://127.0.0.1:{base}/lootlogger")
    assert code == 200 and "<html" in page.lower()

    # A window through nginx, with the proxy's Host and Origin.
    window, _ = open_window(base)
    deadline = time.monotonic() + 10
    while not (holding := established_node(base)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(holding) == 1, f"nginx's connections to the nodes: {holding}"
    victim = holding.pop()

    # The dashboard, on any node, lists all three (their reports go through PostgreSQL) and the
    # LootLogger window on one of them.
    names = {f"node{k}" for k in range(1, NODES + 1)}
    deadline = time.monotonic() + 15
    while True:
        listed = dashboard_rows(base + 1)
        nodes = {title: subtitle for title, subtitle in listed if title in names}
        if (set(nodes) == names and nodes[f"node{victim}"].startswith("1 window")) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert set(nodes) == names, f"the dashboard's rows: {listed}"
    assert nodes[f"node{victim}"].startswith("1 window"), nodes

    # Its node dies; a new window through nginx lands on another node.
    cluster("kill-node", str(victim), directory=directory)
    with pytest.raises((wsclient.Closed, OSError)):
        window.recv_json(timeout=10)
    window.close()
    parts = statuses(cluster("status", directory=directory, check=False).stdout)
    assert parts[f"node{victim}"] == "down"
    assert cluster("status", directory=directory, check=False).returncode != 0
    again, _ = open_window(base)
    again.close()

    # The node comes back; then everything stops and nothing is left running.
    cluster("start-node", str(victim), directory=directory)
    pids[victim - 1] = node_pid(directory, victim)
    assert cluster("status", directory=directory).returncode == 0

    # A node that hangs with its port open (SIGSTOP): nginx would keep handing it windows; the
    # watchdog kills it after 3 s without an answer and starts it again.
    hung = victim % NODES + 1
    stopped = node_pid(directory, hung)
    os.kill(stopped, signal.SIGSTOP)
    deadline = time.monotonic() + 60

    def restarted():
        path = pid_file(directory, hung)
        pid = int(open(path).read()) if os.path.exists(path) else None
        return pid if pid not in (None, stopped) and alive(pid) and not alive(stopped) else None
    while time.monotonic() < deadline and not (restarted() and cluster("status", directory=directory, check=False).returncode == 0):
        time.sleep(0.3)
    logs = os.path.join(directory, "logs")
    said = open(os.path.join(logs, "watchdog.log")).read()
    assert not alive(stopped), f"the watchdog left a hung node running; it said: {said}"
    assert restarted(), f"node{hung} was not started again; the watchdog said: {said}"
    assert f"node{hung} (pid {stopped}) has not answered" in said, said
    pids.append(restarted())
    window, _ = open_window(base)
    window.close()
    cluster("stop", directory=directory)
    cluster("stop", directory=directory)  # idempotent
    down = cluster("status", directory=directory, check=False)
    assert down.returncode != 0
    assert set(statuses(down.stdout).values()) == {"down"}, down.stdout
    assert [pid for pid in pids if alive(pid)] == []
    assert [port for port in [base, base + 100, *range(base + 1, base + NODES + 1)] if listening(port)] == []
