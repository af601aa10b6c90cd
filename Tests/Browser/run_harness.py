#!/usr/bin/env python3
"""Drives the renderer harness in headless Chromium: checks behaviour, takes screenshots.

    apt-get install -y chromium chromium-driver && pip install selenium
    python3 Tests/Browser/run_harness.py [--shots DIR]

Serves the repository root over HTTP on a free port, opens Tests/Browser/harness/harness.html
(which runs the real renderer modules against a fake server), runs the checks below, saves
screenshots of each scene in light and dark, and fails on any browser console error.
"""
import argparse
import functools
import http.server
import json
import os
import re
import socketserver
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.action_chains import ActionChains

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS = "/Tests/Browser/harness/harness.html"
SCENES = ["list", "edit", "menu", "focus", "toast", "detail", "changed", "invalid", "alert", "notice", "empty", "countdown", "reconnecting"]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def serve():
    handler = functools.partial(Quiet, directory=ROOT)
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def make_driver(width=1024, height=768):
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver") if os.path.exists("/usr/bin/chromedriver") else None
    return webdriver.Chrome(options=options, service=service)


class Run:
    def __init__(self, driver, base):
        self.d = driver
        self.base = base
        self.failures = []
        self.console_errors = []

    def open(self, query="", dark=False):
        self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
        self.d.get(f"{self.base}{HARNESS}?{query}")
        self.wait("document.documentElement.dataset.ready === 'true'")

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def wait(self, condition, timeout=5):
        end = time.time() + timeout
        while time.time() < end:
            if self.js(f"return Boolean({condition})"):
                return True
            time.sleep(0.03)
        raise AssertionError(f"timed out waiting for {condition}")

    def sent(self, kind=None):
        messages = self.js("return harness.server.sent")
        return [m for m in messages if kind is None or m["type"] == kind]

    def check(self, name, condition, detail=""):
        print(("ok   " if condition else "FAIL ") + name + (f" — {detail}" if detail and not condition else ""))
        if not condition:
            self.failures.append(name)

    def node(self, node_id):
        return self.d.find_element(By.CSS_SELECTOR, f'[data-node-id="{node_id}"]')

    def rows(self):
        """The harness items' row ids (`item-<UUID>`, as ItemsScreen names rows), in their first order."""
        return self.js("return harness.items.map(harness.rowId)")

    def route(self, index=None):
        """SceneWindow.routeKey for the list, or for item `index`'s detail screen."""
        return self.js("return harness.routeKey(arguments[0] === null ? null : harness.items[arguments[0]])", index)

    def collect_logs(self, label):
        for entry in self.d.get_log("browser"):
            if entry["level"] == "SEVERE":
                self.console_errors.append(f"{label}: {entry['message']}")

    def shot(self, directory, name):
        path = os.path.join(directory, f"{name}.png")
        self.d.save_screenshot(path)
        return path


def behaviour(r, motion="0"):
    r.open(f"motion={motion}")
    a1, b2, c3, d4, e5 = r.rows()
    hello = r.sent("hello")[0]
    r.check("hello has v, visible, focused and no unknown fields",
            hello["v"] == 1 and "visible" in hello and "focused" in hello and set(hello) <= {"type", "v", "session", "seq", "route", "open", "token", "device", "visible", "focused"}, json.dumps(hello))
    device = hello.get("device")
    r.check("hello has the profile's device id, kept in localStorage",
            isinstance(device, str) and re.fullmatch(r"[0-9a-f]{32}", device) is not None
            and r.js("return localStorage.getItem('scenesync.device')") == device, json.dumps(hello))
    r.check("indicator says connected", r.js("return document.getElementById('scenesync-connection').dataset.state") == "connected")
    r.check("every element has data-node-id and data-kind", r.js("return [...document.querySelectorAll('[data-node-id]')].every(e => e.dataset.kind)"))
    r.check("session stored", r.js("return sessionStorage.getItem('scenesync.session.lootlogger')") == "0123456789abcdef0123456789abcdef")
    r.check("seq stored", json.loads(r.js("return sessionStorage.getItem('scenesync.seq.lootlogger')")) == {"lootlogger": 1})
    r.check("table is a list named Items", r.js("return document.querySelector('[role=list]').getAttribute('aria-label')") == "Items")
    r.check("footer shows total", "5 items — $210 total" in r.node("items").text)
    r.check("render route is the tab and the screen's route", r.js("return harness.server.delivered.find(m => m.type === 'render').route") == "main:items")
    r.check("screen route is the list's", r.node("screen").get_attribute("data-route") == "items")

    # Row: select via keyboard.
    main = r.node(b2).find_element(By.CSS_SELECTOR, ".ss-row-main")
    r.check("row button's accessible name is the title", main.get_attribute("aria-label") == "Rusty Bear")
    main.send_keys(Keys.ENTER)
    r.wait("document.querySelector('[data-node-id=name]')")
    action = r.sent("action")[-1]
    r.check("Enter on a row sends select", action["node"] == b2 and action["name"] == "select" and isinstance(action["ref"], int), json.dumps(action))
    r.check("detail screen route is item/<UUID>", r.node("screen").get_attribute("data-route") == "item/" + b2[len("item-"):])
    r.check("back button named Back", r.d.find_element(By.CSS_SELECTOR, ".ss-back").get_attribute("aria-label") == "Back")
    name_input = r.d.find_element(By.CSS_SELECTOR, '[data-node-id="name"] input')
    r.check("text field labelled Name", r.js("return arguments[0].labels[0].textContent", name_input) == "Name")
    r.check("numeric field has inputmode", r.node("value").find_element(By.CSS_SELECTOR, "input").get_attribute("inputmode") == "numeric")

    # Typing: draft debounced, commit on Enter once.
    name_input.click()
    name_input.send_keys(Keys.END, " II")
    time.sleep(0.8)
    drafts = [a for a in r.sent("action") if a["name"] == "draft"]
    # One draft when the keys come quickly; a loaded machine may pause between keys.
    r.check("typing sends a debounced draft", 1 <= len(drafts) < 3 and drafts[-1]["value"] == "Rusty Bear II", json.dumps(drafts))
    name_input.send_keys(Keys.ENTER)
    r.wait("document.querySelector('.ss-navbar-title').textContent === 'Rusty Bear II'")
    commits = [a for a in r.sent("action") if a["name"] == "commit"]
    r.check("Enter commits", len(commits) == 1 and commits[0]["value"] == "Rusty Bear II", json.dumps(commits))
    r.js("arguments[0].blur()", name_input)
    time.sleep(0.1)
    r.check("blur after commit does not commit again", len([a for a in r.sent("action") if a["name"] == "commit"]) == 1)

    # A server value arriving while typing keeps the user's text.
    name_input.click()
    name_input.send_keys(Keys.END, " mine")
    r.js("harness.server.patch([{op:'set', id:'name', props:{value:'Theirs'}}])")
    time.sleep(0.1)
    r.check("typing survives a set", name_input.get_attribute("value") == "Rusty Bear II mine", name_input.get_attribute("value"))
    r.check("changed elsewhere shown", r.node("name").get_attribute("data-changed-elsewhere") == "true" and "Changed in another window" in r.node("name").text)
    name_input.send_keys(Keys.ESCAPE)
    r.check("Escape reverts to the server value", name_input.get_attribute("value") == "Theirs" and r.node("name").get_attribute("data-changed-elsewhere") is None)

    # A full render keeps the element being typed in, its focus and its text.
    serial = r.node("serialNumber").find_element(By.CSS_SELECTOR, "input")
    serial.click()
    serial.send_keys(Keys.END, "X")
    r.js("arguments[0].__mark = 1; harness.server.render()", serial)
    time.sleep(0.1)
    kept = r.js("const i = document.querySelector('[data-node-id=serialNumber] input'); return i.__mark === 1 && document.activeElement === i && i.value")
    r.check("render reconciles in place (focus and typing survive)", kept == "1B7E9A02X", str(kept))
    serial.send_keys(Keys.ESCAPE)

    # An invalid value: the server sets the field's error, shown under the field.
    value_input = r.node("value").find_element(By.CSS_SELECTOR, "input")
    value_input.click()
    value_input.send_keys(Keys.CONTROL, "a")
    value_input.send_keys("lots", Keys.ENTER)
    r.wait("!document.querySelector('[data-node-id=value] .ss-field-error').hidden")
    r.check("error shown near the field with aria-invalid", value_input.get_attribute("aria-invalid") == "true")

    # Back: pop restores focus to the row that was opened.
    r.d.find_element(By.CSS_SELECTOR, ".ss-back").click()
    r.wait("document.querySelector('[data-node-id=items]')")
    time.sleep(0.1)
    r.check("back sends navigationBar/back", r.sent("action")[-1]["node"] == "navigationBar" and r.sent("action")[-1]["name"] == "back")
    focused = r.js("return document.activeElement.closest('[data-node-id]')?.dataset.nodeId")
    r.check("focus returns to the row after pop", focused == b2, str(focused))

    # A patch touches only its node: siblings keep their elements.
    r.js("document.querySelectorAll('.ss-row').forEach(e => e.__mark = 1)")
    r.js("harness.server.patch([{op:'set', id:arguments[0], props:{detail:'$96'}}])", c3)
    r.check("set updates in place", r.js("return [...document.querySelectorAll('.ss-row')].every(e => e.__mark === 1)") and "$96" in r.node(c3).text)
    r.js("harness.server.patch([{op:'set', id:arguments[0], props:{detail:'$95'}}])", c3)

    # Edit mode: Delete and Reorder; keyboard move; no local change before the patch.
    r.node("edit").click()
    r.wait("document.querySelector('[data-node-id=items-table]').classList.contains('ss-editing')")
    delete = r.node(c3).find_element(By.CSS_SELECTOR, ".ss-row-delete")
    r.check("Delete visible in edit mode", delete.is_displayed() and delete.get_attribute("aria-label") == "Delete…")
    # Two steps, as in UIKit: the minus shows the row's Delete (and focuses it), sending nothing;
    # Escape puts it away, focus back on the minus.
    sent_before = len(r.sent("action"))
    delete.click()
    confirm = r.node(c3).find_element(By.CSS_SELECTOR, ".ss-row-confirm-delete")
    r.check("the minus shows the row's Delete, focused, and sends nothing",
            confirm.is_displayed() and confirm.text == "Delete" and len(r.sent("action")) == sent_before
            and r.js("return document.activeElement.classList.contains('ss-row-confirm-delete')"))
    confirm.send_keys(Keys.ESCAPE)
    r.check("Escape puts the Delete away, focus back on the minus",
            not confirm.is_displayed() and r.js("return document.activeElement.classList.contains('ss-row-delete')")
            and len(r.sent("action")) == sent_before)
    handle = r.node(c3).find_element(By.CSS_SELECTOR, ".ss-row-handle")
    r.check("Reorder handle visible", handle.is_displayed() and handle.get_attribute("aria-label") == "Reorder")
    r.node(c3).find_element(By.CSS_SELECTOR, ".ss-row-main").send_keys(Keys.ALT, Keys.ARROW_UP)
    move = r.sent("action")[-1]
    r.check("Alt+Up sends move to index-1", move["name"] == "move" and move["node"] == c3 and move["value"] == 1, json.dumps(move))
    r.wait(f"document.querySelectorAll('[data-node-id=items] .ss-row')[1].dataset.nodeId === '{c3}'")
    r.check("server move patch reorders", True)
    r.check("focus stays on the moved row", r.js("return document.activeElement.closest('[data-node-id]')?.dataset.nodeId") == c3)

    # Drag the last row to the top.
    last = r.node(e5).find_element(By.CSS_SELECTOR, ".ss-row-handle")
    first = r.node(a1)
    ActionChains(r.d).click_and_hold(last).move_by_offset(0, -10).move_to_element_with_offset(first, 0, -20).release().perform()
    time.sleep(0.3)
    move = r.sent("action")[-1]
    r.check("drag sends move to index 0", move["name"] == "move" and move["node"] == e5 and move["value"] == 0, json.dumps(move))
    r.wait(f"document.querySelector('[data-node-id=items] .ss-row').dataset.nodeId === '{e5}'")

    before = r.js("return document.querySelectorAll('[data-node-id=items] > .ss-section-body > .ss-row').length")
    r.node(a1).find_element(By.CSS_SELECTOR, ".ss-row-delete").click()
    r.node(a1).find_element(By.CSS_SELECTOR, ".ss-row-confirm-delete").click()
    r.wait(f"!document.querySelector('[data-node-id=\"{a1}\"]')")
    r.check("delete sends delete and the patch removes the row", r.sent("action")[-1]["name"] == "delete" and before == 5)
    r.check("footer updated by set", "4 items" in r.node("items").text)

    # Insert by Add.
    r.node("add").click()
    r.wait("document.querySelectorAll('[data-node-id=items] .ss-row[data-node-id]').length === 5")
    r.check("Add inserts a row", True)
    r.node("edit").click()

    # Row action menu → open message → window.open.
    more = r.node(c3).find_element(By.CSS_SELECTOR, ".ss-row-more")
    more.click()
    item = r.node(c3).find_element(By.CSS_SELECTOR, '[role="menuitem"]')
    r.check("menu item named Open in New Window", item.text == "Open in New Window")
    item.click()
    r.wait("harness.opened.length === 1")
    action = r.sent("action")[-1]
    r.check("the menu item sends openInNewWindow", action["node"] == c3 and action["name"] == "openInNewWindow", json.dumps(action))
    r.check("open message opens the URL", r.js("return harness.opened[0]") == "/lootlogger?open=tok-" + c3[len("item-"):])

    # Alert (presented by the server): focus, trap, Escape = cancel, focus back where it was.
    r.node(d4).find_element(By.CSS_SELECTOR, ".ss-row-main").click()
    r.wait("document.querySelector('[data-node-id=serialNumber] input')")
    time.sleep(0.4)
    r.node("serialNumber").find_element(By.CSS_SELECTOR, "input").click()
    r.js("harness.server.present(harness.deleteAlert(harness.server.current))")
    r.wait("document.querySelector('[role=alertdialog]')")
    r.check("alert focuses its first button", r.js("return document.activeElement.textContent") == "Cancel")
    r.check("content behind the alert is inert", r.js("return document.querySelector('.ss-screen').inert") is True)
    r.d.switch_to.active_element.send_keys(Keys.TAB)
    r.d.switch_to.active_element.send_keys(Keys.TAB)
    r.check("Tab is trapped in the alert", r.js("return document.activeElement.closest('[role=alertdialog]') !== null"))
    r.d.switch_to.active_element.send_keys(Keys.ESCAPE)
    r.wait("!document.querySelector('[data-node-id^=alert-]')")
    action = r.sent("action")[-1]
    r.check("Escape chooses the cancel button", action["name"] == "cancel" and action["node"].startswith("alert-"), json.dumps(action))
    r.check("focus returns after the alert", r.js("return document.activeElement.closest('[data-node-id]')?.dataset.nodeId") == "serialNumber",
            r.js("return document.activeElement.outerHTML.slice(0, 120)"))

    # Out of step: an op on an unknown node → reconnect without route, server redraws.
    hellos = len(r.sent("hello"))
    r.js("harness.server.patch([{op:'remove', id:'nope'}])")
    r.wait(f"harness.server.sent.filter(m => m.type === 'hello').length === {hellos + 1}")
    hello = r.sent("hello")[-1]
    r.check("out-of-step hello has session and no route", "route" not in hello and hello.get("session") == "0123456789abcdef0123456789abcdef", json.dumps(hello))
    r.wait("harness.server.delivered.at(-1).type === 'render'")
    # Every refusal resyncs, not only an unknown node: an index out of range, an id already shown.
    for label, op in (("an out-of-range index", "{op:'insert', parent:'overlay', index:5, node:{id:'notice-x', kind:'notice', props:{message:'x'}, children:[]}}"),
                      ("an id already shown", "{op:'insert', parent:'overlay', index:0, node:{id:'name', kind:'notice', props:{message:'x'}, children:[]}}")):
        hellos = len(r.sent("hello"))
        r.js(f"harness.server.patch([{op}])")
        r.wait(f"harness.server.sent.filter(m => m.type === 'hello').length === {hellos + 1}")
        r.check(f"{label} resyncs", "route" not in r.sent("hello")[-1])
        r.wait("harness.server.delivered.at(-1).type === 'render'")
    r.check("nothing of the refused ops is left", r.js("return !document.querySelector('[data-node-id=notice-x]')"))
    hellos = len(r.sent("hello"))

    # Reconnect after a drop: hello carries route and seq, server resumes.
    r.js("harness.server.transport.close()")
    r.wait(f"harness.server.sent.filter(m => m.type === 'hello').length === {hellos + 1}", timeout=5)
    hello = r.sent("hello")[-1]
    r.check("reconnect hello carries route and seq", hello.get("route") == r.route(3) and hello.get("seq") == {"lootlogger": r.js("return harness.server.seq")}, json.dumps(hello))
    r.wait("harness.server.delivered.at(-1).type === 'resumed'")

    # An action whose answer a lost connection never brought is sent again after the reconnect,
    # under the same ref, marked `resend`; the server (here: the fake) does it once.
    r.js("harness.server.autoAnswer = false")
    r.d.find_element(By.CSS_SELECTOR, '[data-node-id="navigationBar"] button[aria-label="Back"]').click()
    r.wait("harness.server.sent.at(-1).type === 'action'")
    lost = r.sent("action")[-1]
    hellos = len(r.sent("hello"))
    r.js("harness.server.autoAnswer = true; harness.server.transport.close()")
    r.wait(f"harness.server.sent.filter(m => m.type === 'action' && m.ref === {lost['ref']}).length === 2", timeout=5)
    again = [m for m in r.sent("action") if m["ref"] == lost["ref"]][-1]
    r.check("an unanswered action is sent again after the reconnect, marked resend",
            again.get("resend") is True and again["node"] == lost["node"] and again["name"] == lost["name"]
            and "resend" not in lost and len(r.sent("hello")) == hellos + 1, json.dumps([lost, again]))
    r.wait(f"harness.server.delivered.some(m => m.type === 'ack' && m.ref === {lost['ref']})")
    r.check("the action sent again took effect once", r.js("return harness.server.shown") is None)
    r.js("harness.server.transport.close()")
    r.wait(f"harness.server.sent.filter(m => m.type === 'hello').length === {hellos + 2}", timeout=5)
    r.wait("['resumed', 'render'].includes(harness.server.delivered.at(-1).type)")
    r.check("an answered action is not sent again", len([m for m in r.sent("action") if m["ref"] == lost["ref"]]) == 2)
    last_ref = max(m["ref"] for m in r.sent("action"))

    # Shutdown: indicator reconnecting, then reconnects after retryAfter.
    r.js("harness.server.send({type:'shutdown', retryAfter: 300}); harness.server.transport.close()")
    r.check("shutdown shows reconnecting", r.js("return document.getElementById('scenesync-connection').dataset.state") == "reconnecting")
    r.wait("document.getElementById('scenesync-connection').dataset.state === 'connected'", timeout=3)

    # Notice: dismiss button.
    r.js("harness.server.overlay.push({id:'notice-9', kind:'notice', props:{message:'Saved in another window.'}, children:[]});"
         "harness.server.patch([{op:'insert', parent:'overlay', index:0, node: harness.server.overlay.at(-1)}])")
    shown = [b for b in r.node("notice-9").find_elements(By.CSS_SELECTOR, "button") if b.is_displayed()]
    r.check("notice has a Dismiss button, and no Undo without `undo`",
            [b.get_attribute("aria-label") for b in shown] == ["Dismiss"] and r.node("notice-9").get_attribute("role") == "status")
    shown[0].click()
    r.wait("!document.querySelector('[data-node-id=notice-9]')")
    r.check("dismiss removes the notice via the server", r.sent("action")[-1]["name"] == "dismiss")

    # A notice with `undo`: its button, and Ctrl+Z outside a text field, send `tap` once.
    r.js("harness.server.overlay.push({id:'notice-10', kind:'notice', props:{message:'“Spork” deleted.', undo:'Undo'}, children:[]});"
         "harness.server.patch([{op:'insert', parent:'overlay', index:0, node: harness.server.overlay.at(-1)}])")
    undo = [b for b in r.node("notice-10").find_elements(By.CSS_SELECTOR, "button") if b.is_displayed() and b.text == "Undo"]
    r.check("a notice with undo has an Undo button", len(undo) == 1)
    r.js("document.body.focus(); document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'z', ctrlKey: true, bubbles: true}))")
    r.check("Ctrl+Z taps the notice once", [m["name"] for m in r.sent("action") if m["node"] == "notice-10"] == ["tap"])
    undo[0].click()
    r.check("and its button does not tap it again", [m["name"] for m in r.sent("action") if m["node"] == "notice-10"] == ["tap"])
    r.js("harness.server.patch([{op:'remove', id:'notice-10'}])")

    # Reload: session kept, no route (nothing on screen), open token consumed.
    r.d.get(f"{r.base}{HARNESS}?reset=0&motion={motion}")
    r.wait("document.documentElement.dataset.ready === 'true'")
    hello = r.sent("hello")[0]
    r.check("reload sends session and seq but no route", hello.get("session") and hello.get("seq") and "route" not in hello, json.dumps(hello))
    r.wait("harness.server.delivered.at(-1).type === 'render'")
    r.js("document.querySelector('[data-node-id=\"edit\"]').click()")
    r.wait("harness.server.sent.some(m => m.type === 'action')")
    r.check("refs go on growing after a reload", r.sent("action")[0]["ref"] > last_ref, json.dumps([r.sent("action")[0], last_ref]))
    r.d.get(f"{r.base}{HARNESS}?reset=0&motion={motion}&open=tok-1&token=secret")
    r.wait("document.documentElement.dataset.ready === 'true'")
    hello = r.sent("hello")[0]
    r.check("open token sent, inherited session dropped", hello.get("open") == "tok-1" and "session" not in hello and hello.get("token") == "secret", json.dumps(hello))
    r.check("open and token removed from the URL", "open=" not in r.d.current_url and "token=" not in r.d.current_url, r.d.current_url)

    # pagehide (not persisted) sends closing.
    r.js("window.dispatchEvent(new PageTransitionEvent('pagehide', {persisted: false}))")
    r.check("pagehide sends closing", r.sent()[-1]["type"] == "closing")

    # A duplicated tab (same session in sessionStorage while the owner is alive) connects as a new window.
    first = r.d.current_window_handle
    r.d.switch_to.new_window("tab")
    r.open(f"motion={motion}")
    r.d.get(f"{r.base}{HARNESS}?reset=0&motion={motion}")
    r.wait("document.documentElement.dataset.ready === 'true'")
    hello = r.sent("hello")[0]
    r.check("duplicated tab drops the session it inherited", "session" not in hello and "seq" not in hello, json.dumps(hello))
    r.check("every tab of the profile sends the same device id", hello.get("device") == device, json.dumps(hello))
    r.d.close()
    r.d.switch_to.window(first)

    # Tabs.
    r.open(f"motion={motion}&tabs=1")
    tab = r.d.find_element(By.CSS_SELECTOR, '[role="tab"][aria-selected="true"]')
    r.check("tab selected with badge", tab.get_attribute("aria-label") == "Items, 5 items" and "5" in tab.text and r.node("tab-main") == tab)
    r.d.find_element(By.CSS_SELECTOR, '[role="tab"][aria-selected="false"]').click()
    r.check("tab click sends select", r.sent("action")[-1]["node"] == "tab-stats" and r.sent("action")[-1]["name"] == "select")
    r.collect_logs("behaviour")


def transitions(r, directory):
    """Mid-animation screenshots: push, row insert/remove, and a drag in progress."""
    r.open("motion=1")
    a1, b2, c3, d4, e5 = r.rows()
    r.node(a1).find_element(By.CSS_SELECTOR, ".ss-row-main").click()
    time.sleep(0.12)
    paths = [r.shot(directory, "push-midway-light")]
    time.sleep(0.5)
    r.d.find_element(By.CSS_SELECTOR, ".ss-back").click()
    time.sleep(0.12)
    paths.append(r.shot(directory, "pop-midway-light"))
    time.sleep(0.5)
    r.node("edit").click()
    time.sleep(0.4)
    handle = r.node(b2).find_element(By.CSS_SELECTOR, ".ss-row-handle")
    chain = ActionChains(r.d).click_and_hold(handle).move_by_offset(0, 40).move_by_offset(0, 45)
    chain.perform()
    time.sleep(0.3)
    paths.append(r.shot(directory, "drag-midway-light"))
    ActionChains(r.d).release().perform()
    time.sleep(0.1)
    r.check("drag with motion sends move", r.sent("action")[-1]["name"] == "move" and r.sent("action")[-1]["value"] == 2, json.dumps(r.sent("action")[-1]))
    r.wait(f"document.querySelectorAll('[data-node-id=items] .ss-row[data-node-id]')[2].dataset.nodeId === '{b2}'")
    time.sleep(0.5)
    r.check("no transforms left after the drag", r.js("return [...document.querySelectorAll('.ss-row')].every(e => !e.style.transform)"))
    r.node(d4).find_element(By.CSS_SELECTOR, ".ss-row-delete").click()
    r.node(d4).find_element(By.CSS_SELECTOR, ".ss-row-confirm-delete").click()
    time.sleep(0.1)
    paths.append(r.shot(directory, "remove-midway-light"))
    time.sleep(0.5)
    r.check("removed row is gone after its animation", r.js("return document.querySelectorAll('[data-leaving-node-id]').length") == 0)
    r.collect_logs("transitions")
    return paths


def screenshots(r, directory):
    os.makedirs(directory, exist_ok=True)
    paths = []
    for dark in (False, True):
        for scene in SCENES:
            r.open(f"scene={scene}&motion=0" + ("&tabs=1" if scene == "list" else ""), dark=dark)
            paths.append(r.shot(directory, f"{scene}-{'dark' if dark else 'light'}"))
            r.collect_logs(scene)
    # Narrow window.
    r.d.set_window_size(420, 820)
    r.open("scene=detail&motion=0")
    paths.append(r.shot(directory, "detail-narrow-light"))
    r.open("scene=list&motion=0", dark=True)
    paths.append(r.shot(directory, "list-narrow-dark"))
    r.collect_logs("narrow")
    r.d.set_window_size(1024, 768)
    return paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shots", default="/tmp/scenesync-shots")
    parser.add_argument("--no-shots", action="store_true")
    args = parser.parse_args()
    httpd, base = serve()
    driver = make_driver()
    r = Run(driver, base)
    try:
        behaviour(r)
        print("-- again, with motion")
        behaviour(r, motion="1")
        if not args.no_shots:
            os.makedirs(args.shots, exist_ok=True)
            for path in transitions(r, args.shots):
                print("shot", path)
            for path in screenshots(r, args.shots):
                print("shot", path)
    finally:
        driver.quit()
        httpd.shutdown()
    for error in r.console_errors:
        print("console error:", error)
    if r.failures or r.console_errors:
        print(f"{len(r.failures)} failed, {len(r.console_errors)} console errors")
        sys.exit(1)
    print("all passed")


if __name__ == "__main__":
    main()
