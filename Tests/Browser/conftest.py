"""Fixtures for SceneSync's end-to-end tests: a real `scenesync` server on a free port with its
own data folder, and real headless Chromium windows driven through Selenium."""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVER = os.environ.get("SCENESYNC_BIN", os.path.join(ROOT, ".build", "debug", "scenesync"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `scenesync` process; can be stopped and started again on the same port and data.
    `args` are further command-line options, such as `["--kitchen-minute", "0.05"]`."""

    def __init__(self, args=()):
        self.args = [str(arg) for arg in args]
        self.port = free_port()
        self.data = tempfile.mkdtemp(prefix="scenesync-e2e-")
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.log = open(os.path.join(self.data, "server.log"), "ab")

    def start(self):
        self.process = subprocess.Popen(
            [SERVER, "--port", str(self.port), "--data-dir", self.data,
             "--log-level", os.environ.get("SCENESYNC_LOG_LEVEL", "info"), *self.args],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.url + "/", timeout=1).read()
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"scenesync exited with {self.process.returncode}: {self.log_text()}")
                time.sleep(0.1)
        raise RuntimeError("scenesync did not start: " + self.log_text())

    def stop(self):
        """Stops the server as an operator would (SIGTERM): it must exit by itself within 20 s,
        or it is killed and the test fails with its log."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise RuntimeError("scenesync did not stop within 20 s of SIGTERM:\n" + self.log_text())

    def log_text(self, limit=4000):
        self.log.flush()
        with open(os.path.join(self.data, "server.log"), "rb") as f:
            return f.read().decode(errors="replace")[-limit:]

    def close(self):
        try:
            self.stop()
        finally:
            self.log.close()
            shutil.rmtree(self.data, ignore_errors=True)


@pytest.fixture
def server():
    s = Server()
    s.start()
    yield s
    s.close()


@pytest.fixture
def start_server():
    """Starts servers with further options, each closed after the test:

        def test_kitchen(start_server):
            server = start_server("--kitchen-minute", "0.05")
    """
    servers = []

    def start(*args):
        s = Server(args=args)
        servers.append(s)
        s.start()
        return s
    yield start
    for s in servers:
        s.close()


def chromium(color_scheme="light"):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1024,900"):
        options.add_argument(flag)
    if color_scheme == "dark":
        options.add_argument("--force-dark-mode")
        options.add_argument("--blink-settings=preferredColorScheme=0")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        options.binary_location = binary
    driver_path = shutil.which("chromedriver")
    service = Service(driver_path) if driver_path else Service()
    return webdriver.Chrome(service=service, options=options)


@pytest.fixture
def browser():
    driver = chromium()
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


# The sizes of the README's pictures: a laptop window, and an iPad held upright.
SCREENSHOT_SIZES = ((1280, 800, ""), (820, 1180, "-820"))


def save_screenshots(driver, out, filename):
    """Saves the window in `out` (when set) as `filename` at 1280×800 and, with "-820" before
    ".png", at 820×1180; the window's own size is given back afterwards."""
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    stem, extension = os.path.splitext(filename)
    try:
        for width, height, suffix in SCREENSHOT_SIZES:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            driver.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            time.sleep(0.4)  # a layout that follows the width (split view, bars) settles
            driver.save_screenshot(os.path.join(out, stem + suffix + extension))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
