// Starts the real renderer (main.js → socket.js → view.js) against a fake server, and offers
// scenes for screenshots and a small API for the Selenium script: window.harness.
import { start } from "../../../Sources/SceneSyncServer/Public/js/main.js";
import { FakeServer, FakeTransport, deleteAlert, items, noticeNode, tabNodes } from "./fixtures.js";

const params = new URLSearchParams(location.search);
const server = new FakeServer();
if (params.get("tabs") === "1") server.tabs = tabNodes("items", "5");
if (params.get("reset") !== "0") {
  // Each harness load is a fresh window unless asked otherwise (reload tests pass reset=0).
  for (const key of Object.keys(sessionStorage)) if (key.startsWith("scenesync.")) sessionStorage.removeItem(key);
}
const opened = [];
window.open = (url) => { opened.push(url); return { opener: window }; };

const app = start({ app: "lootlogger", createTransport: (url) => new FakeTransport(url, server) });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const $ = (selector) => document.querySelector(selector);
const byNode = (id) => document.querySelector(`[data-node-id="${id}"]`);
async function until(test, ms = 2000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (test()) return true;
    await sleep(20);
  }
  throw new Error(`timed out: ${test}`);
}
function type(input, text) {
  input.focus();
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

const scenes = {
  async list() {},
  async edit() {
    byNode("edit").click();
    await until(() => byNode("items")?.classList.contains("ss-editing"));
  },
  async detail() {
    byNode("item-a1").querySelector(".ss-row-main").click();
    await until(() => byNode("name"));
  },
  async alert() {
    await scenes.detail();
    await sleep(400);
    byNode("delete-item").querySelector("button").click();
    await until(() => document.querySelector('[role="alertdialog"]'));
  },
  async notice() {
    server.overlay.push(noticeNode("notice-1", "“Rusty Bear” was changed in another window."));
    server.patch([{ op: "insert", parent: "overlay", index: 0, node: server.overlay[0] }]);
  },
  async menu() {
    byNode("item-c3").querySelector(".ss-row-more").click();
  },
  async changed() {
    await scenes.detail();
    await sleep(400);
    const input = byNode("name").querySelector("input");
    type(input, "Shiny Spork (polished)");
    server.patch([{ op: "set", id: "name", props: { value: "Shiny Spork Deluxe" } }]);
    await sleep(50);
  },
  async invalid() {
    await scenes.detail();
    await sleep(400);
    const input = byNode("value").querySelector("input");
    type(input, "forty");
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await until(() => !byNode("value").querySelector(".ss-field-error").hidden);
    server.patch([{ op: "set", id: "serial", props: { draft: "8F2A1C3E" } }]);
  },
  async focus() {
    byNode("item-b2").querySelector(".ss-row-main").focus();
  },
  async toast() {
    server.send({ type: "error", code: "unavailable", message: "The item store is busy. Try again in a moment." });
    server.autoAnswer = false;
    const ref = app.socket.action("item-c3", "select");
    server.send({ type: "error", ref, code: "gone", message: "This item can’t be opened right now." });
    server.autoAnswer = true;
  },
  async empty() {
    server.list = [];
    server.render();
  },
  async reconnecting() {
    server.refuse = true;
    server.transport.close();
    await until(() => $("#scenesync-connection").dataset.state === "reconnecting");
  },
};

window.harness = {
  app, server, opened, scenes, until, sleep, byNode, type, items, deleteAlert,
  ready: false,
  async run(name) {
    await until(() => byNode("window"));
    await scenes[name]();
    await sleep(500);
    document.documentElement.dataset.scene = name;
  },
};

(async () => {
  await until(() => byNode("window"));
  window.harness.ready = true;
  const scene = params.get("scene");
  if (scene) await window.harness.run(scene);
  document.documentElement.dataset.ready = "true";
})();
