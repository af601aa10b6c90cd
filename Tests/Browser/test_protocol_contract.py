"""The window protocol's names, as the renderer's protocol.js has them, against the contract in
Tests/Fixtures/Protocol/messages.json (the Swift side is checked against the same file).

A name in protocol.js and not in the contract fails, and so does one in the contract and not in
protocol.js. The renderer's other modules are read too: every message it sends must be a window →
server message and every one the protocol has must be sent; every message it handles must be a
server → window message and every one must be handled; every prop must be read by some component
(a name in protocol.js alone draws nothing). And the messages it really sends (in the harness) must
have the fields the contract gives them, as must those the harness's fake server sends it, so the
harness tests the renderer against what a real server says.
"""
import json
import os
import re
import time

import pytest

from run_harness import make_driver, serve

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
JS = os.path.join(ROOT, "Sources", "SceneSyncServer", "Public", "js")
CONTRACT = os.path.join(ROOT, "Tests", "Fixtures", "Protocol", "messages.json")


def contract():
    with open(CONTRACT, encoding="utf-8") as f:
        return json.load(f)


def fields_of(specs):
    return {field for spec in specs.values() for field in spec["required"] + spec["optional"]}


def direction(name):
    return {message for message, spec in contract()["messages"].items() if spec["direction"] == name}


def same(name, renderer, expected, side="protocol.js"):
    """Fails naming what is on one side only."""
    renderer, expected = set(renderer), set(expected)
    assert renderer == expected, (
        f"{name}: only in {side}: {sorted(renderer - expected)}; only in messages.json: {sorted(expected - renderer)}")


@pytest.fixture(scope="module")
def browser_pages():
    httpd, base = serve()
    driver = make_driver()
    try:
        yield driver, base
    finally:
        driver.quit()
        httpd.shutdown()


def ready(driver, timeout=10):
    deadline = time.time() + timeout
    while driver.execute_script("return document.documentElement.dataset.ready") != "true":
        assert time.time() < deadline, "the page did not get ready"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def tables(browser_pages):
    driver, base = browser_pages
    driver.get(base + "/Tests/Browser/harness/protocol.html")
    ready(driver)
    return json.loads(driver.execute_script("return window.protocolTables"))


def values(table):
    assert table is not None, "protocol.js does not export the table"
    return table.values()


def test_version_and_size(tables):
    spec = contract()
    assert tables["VERSION"] == spec["version"]
    assert tables["MAX_MESSAGE_SIZE"] == spec["maxMessageSize"]


def test_message_types(tables):
    same("MSG", values(tables["MSG"]), contract()["messages"])


def test_message_fields(tables):
    spec = contract()
    same("F", values(tables["F"]), set(spec["envelope"]) | fields_of(spec["messages"]))


def test_node_fields_and_kinds(tables):
    spec = contract()
    same("N", values(tables["N"]), spec["node"])
    same("KIND", values(tables["KIND"]), spec["kinds"])


def test_patch_ops_and_fields(tables):
    spec = contract()
    same("OP", values(tables["OP"]), spec["ops"])
    same("OPF", values(tables["OPF"]), {spec["opField"]} | fields_of(spec["ops"]))
    same("TRANSITION", values(tables["TRANSITION"]), spec["transitions"])


def test_props(tables):
    spec = contract()
    same("P", values(tables["P"]), spec["props"])
    same("ITEM", values(tables["ITEM"]), spec["itemFields"])


def renderer_sources():
    """The renderer's modules but protocol.js, by path relative to js/."""
    for folder, _, files in os.walk(JS):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".js") and path != os.path.join(JS, "protocol.js"):
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, JS), f.read()


def test_every_prop_is_read_by_the_renderer(tables):
    read = set()
    for _, source in renderer_sources():
        read |= set(re.findall(r"\bP\.(\w+)", source))
    names = tables["P"]
    same("props the renderer reads", {names[key] for key in read if key in names}, contract()["props"],
         side="what the renderer reads")


def test_actions_and_window_nodes(tables):
    spec = contract()
    same("ACTION", values(tables["ACTION"]), spec["actions"])
    same("NODE_ID", values(tables["NODE_ID"]), spec["windowNodes"])


def test_directions_in_the_renderer_source():
    sent, handled = set(), set()
    for name in os.listdir(JS):
        if not name.endswith(".js") or name == "protocol.js":
            continue
        with open(os.path.join(JS, name), encoding="utf-8") as f:
            source = f.read()
        sent |= set(re.findall(r"\[F\.type\]:\s*MSG\.(\w+)", source))
        handled |= set(re.findall(r"case\s+MSG\.(\w+)\s*:", source))
    same("window → server messages", sent, direction("client"), side="what the renderer sends")
    same("server → window messages", handled, direction("server"), side="what the renderer handles")


def test_messages_the_renderer_sends_have_the_contract_fields(browser_pages):
    driver, base = browser_pages
    driver.get(base + "/Tests/Browser/harness/harness.html?motion=0")
    ready(driver)
    driver.execute_script(
        "const row = document.querySelector('[data-kind=row]');"
        "harness.app.socket.action(row.dataset.nodeId, 'select');"
        "harness.app.socket.action('value', 'commit', '12');"
        "window.dispatchEvent(new PageTransitionEvent('pagehide', {persisted: false}));")
    spec = contract()
    sent = driver.execute_script("return harness.server.sent")
    assert {"hello", "action", "closing"} <= {message["type"] for message in sent}, sent
    for message in sent:
        kind = message["type"]
        assert kind in direction("client"), message
        fields = set(message) - set(spec["envelope"])
        required = set(spec["messages"][kind]["required"])
        allowed = required | set(spec["messages"][kind]["optional"])
        assert required <= fields <= allowed, message
        assert message["v"] == spec["version"], message


def test_the_fake_server_sends_what_the_contract_says(browser_pages):
    driver, base = browser_pages
    driver.get(base + "/Tests/Browser/harness/harness.html?motion=0")
    ready(driver)
    spec = contract()
    delivered = driver.execute_script("return harness.server.delivered")
    assert {"welcome", "render"} <= {message["type"] for message in delivered}, delivered
    for message in delivered:
        kind = message["type"]
        assert kind in direction("server"), message
        fields = set(message) - set(spec["envelope"])
        required = set(spec["messages"][kind]["required"])
        allowed = required | set(spec["messages"][kind]["optional"])
        assert required <= fields <= allowed, message
    welcome = next(message for message in delivered if message["type"] == "welcome")
    # Whole milliseconds since 1970 on the server's clock (here the browser's: no skew asked for).
    now = driver.execute_script("return Date.now()")
    assert isinstance(welcome["time"], int) and abs(welcome["time"] - now) < 60_000, welcome
