// Starts the real renderer (main.js → socket.js → view.js) against a fake server, and offers
// scenes for screenshots and a small API for the Selenium script: window.harness.
import { start } from "../../../Sources/SceneSyncServer/Public/js/main.js";
import { FakeServer, FakeTransport, ID, MAIN_TAB, deleteAlert, items, noticeNode, rowId, routeKey, tabNodes } from "./fixtures.js";

const params = new URLSearchParams(location.search);
const server = new FakeServer();
if (params.get("tabs") === "1") server.tabs = tabNodes(MAIN_TAB, "5");
// clock=MS: the server's clock runs MS ms ahead of the browser's (welcome.time says so).
if (params.has("clock")) server.clockSkew = Number(params.get("clock"));
if (params.get("reset") !== "0") {
  // Each harness load is a fresh window unless asked otherwise (reload tests pass reset=0).
  for (const key of Object.keys(sessionStorage)) if (key.startsWith("scenesync.")) sessionStorage.removeItem(key);
}
const opened = [];
window.open = (url) => { opened.push(url); return { opener: window }; };

// Every optional component is loaded, as the harness draws every kind.
const app = start({ app: "lootlogger", components: ["chat"], createTransport: (url) => new FakeTransport(url, server) });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const $ = (selector) => document.querySelector(selector);
const byNode = (id) => document.querySelector(`[data-node-id="${id}"]`);
const byRow = (index) => byNode(rowId(items[index]));
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
    byNode(ID.edit).click();
    await until(() => byNode(ID.table)?.classList.contains("ss-editing"));
  },
  async detail() {
    byRow(0).querySelector(".ss-row-main").click();
    await until(() => byNode(ID.name));
  },
  async alert() {
    await scenes.detail();
    await sleep(400);
    server.present(deleteAlert(server.current));
    await until(() => document.querySelector('[role="alertdialog"]'));
  },
  async notice() {
    server.overlay.push(noticeNode("notice-1", "“Rusty Bear” was deleted in another window."));
    server.patch([{ op: "insert", parent: ID.overlay, index: 0, node: server.overlay[0] }]);
  },
  async menu() {
    byRow(2).querySelector(".ss-row-more").click();
  },
  async changed() {
    await scenes.detail();
    await sleep(400);
    const input = byNode(ID.name).querySelector("input");
    type(input, "Shiny Spork (polished)");
    server.patch([{ op: "set", id: ID.name, props: { value: "Shiny Spork Deluxe" } }]);
    await sleep(50);
  },
  async invalid() {
    await scenes.detail();
    await sleep(400);
    const input = byNode(ID.value).querySelector("input");
    type(input, "forty");
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await until(() => !byNode(ID.value).querySelector(".ss-field-error").hidden);
    server.patch([{ op: "set", id: ID.serialNumber, props: { draft: "8F2A1C3E" } }]);
  },
  async focus() {
    byRow(1).querySelector(".ss-row-main").focus();
  },
  async toast() {
    server.send({ type: "error", code: "unavailable", message: "The item store is busy. Try again in a moment." });
    server.autoAnswer = false;
    const ref = app.socket.action(rowId(items[2]), "select");
    server.send({ type: "error", ref, code: "gone", message: "This item can’t be opened right now." });
    server.autoAnswer = true;
  },
  async empty() {
    server.list = [];
    server.render();
  },
  async countdown() {
    // LootLogger has no countdowns: the server sets some on its rows, as an app with deadlines would.
    const now = server.now();
    server.patch([
      { op: "set", id: rowId(items[0]), props: { countdown: now + (4 * 60 + 7) * 1000 } },
      { op: "set", id: rowId(items[1]), props: { countdown: now + (62 * 60 + 3) * 1000 } },
      { op: "set", id: rowId(items[2]), props: { countdown: now - 5000 } },
      { op: "set", id: rowId(items[3]), props: { countdown: null, detail: "Ready" } },
    ]);
  },
  async reconnecting() {
    server.refuse = true;
    server.transport.close();
    await until(() => $("#scenesync-connection").dataset.state === "reconnecting");
  },
};

window.harness = {
  app, server, opened, scenes, until, sleep, byNode, byRow, type, items, deleteAlert, rowId, routeKey, ID,
  ready: false,
  async run(name) {
    await until(() => byNode(ID.window));
    await scenes[name]();
    await sleep(500);
    document.documentElement.dataset.scene = name;
  },
};

(async () => {
  await until(() => byNode(ID.window));
  window.harness.ready = true;
  const scene = params.get("scene");
  if (scene) await window.harness.run(scene);
  document.documentElement.dataset.ready = "true";
})();
