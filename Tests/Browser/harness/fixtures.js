// Fixtures for the renderer harness: LootLogger-like view nodes, and a fake server that answers
// the window protocol through a fake WebSocket transport, the way the Swift server would: actions
// come in, patches go out (one-way flow: the renderer never changes its own rows).

export const items = [
  { key: "a1", name: "Shiny Spork", serial: "8F2A1C3D", value: 42, created: "Mar 3, 2025" },
  { key: "b2", name: "Rusty Bear", serial: "1B7E9A02", value: 18, created: "Mar 5, 2025" },
  { key: "c3", name: "Fluffy Mac", serial: "C0FFEE11", value: 95, created: "Apr 1, 2025" },
  { key: "d4", name: "Shiny Mac", serial: "77D3B5E0", value: 33, created: "Apr 12, 2025" },
  { key: "e5", name: "Golden Spork", serial: "4AA9F2C7", value: 22, created: "May 20, 2025" },
];

const node = (id, kind, props = {}, children = []) => ({ id, kind, props, children });
const money = (value) => `$${value}`;

export function rowNode(item) {
  return node(`item-${item.key}`, "row", {
    title: item.name, subtitle: item.serial, detail: money(item.value), accessory: "disclosure",
    deletable: true, movable: true, actions: [{ name: "openInNewWindow", label: "Open in New Window" }],
  });
}

export function footer(list) {
  const total = list.reduce((sum, item) => sum + item.value, 0);
  return `${list.length} ${list.length === 1 ? "item" : "items"} — ${money(total)} total`;
}

export function listBar(editing) {
  return node("navigationBar", "navigationBar", { title: "LootLogger" }, [
    node("edit", "barButton", { label: editing ? "Done" : "Edit", side: "leading", ...(editing ? { role: "primary" } : {}) }),
    node("add", "barButton", { label: "Add", side: "trailing" }),
  ]);
}

export function listScreen(list, editing = false) {
  if (list.length === 0) {
    return node("screen", "screen", { route: "items" }, [
      node("empty", "emptyState", { title: "No Items", message: "Tap Add to log your first piece of loot." }),
    ]);
  }
  return node("screen", "screen", { route: "items" }, [
    node("items", "table", { label: "Items", editing }, [
      node("items-section", "section", { footer: footer(list) }, list.map(rowNode)),
    ]),
  ]);
}

export function detailBar(item) {
  return node("navigationBar", "navigationBar", { title: item.name, back: "LootLogger" }, []);
}

export function detailScreen(item, extra = {}) {
  return node("screen", "screen", { route: `items/${item.key}` }, [
    node("detail", "form", {}, [
      node("detail-fields", "section", { header: "Item" }, [
        node("name", "textField", { label: "Name", value: item.name, inputMode: "text", ...(extra.name ?? {}) }),
        node("serial", "textField", { label: "Serial Number", value: item.serial, placeholder: "Optional", inputMode: "text", ...(extra.serial ?? {}) }),
        node("value", "textField", { label: "Value", value: String(item.value), inputMode: "numeric", ...(extra.value ?? {}) }),
      ]),
      node("detail-info", "section", { footer: "Drafts are kept per window until you save." }, [
        node("created", "label", { label: "Date Created", value: item.created }),
      ]),
      node("detail-actions", "section", {}, [
        node("delete-item", "button", { label: "Delete Item", role: "destructive" }),
      ]),
    ]),
  ]);
}

export function windowNode({ bar, screen, tabs = null, overlay = [] }) {
  const children = [bar, screen];
  if (tabs) children.push(node("tabBar", "tabBar", {}, tabs));
  children.push(node("overlay", "overlay", {}, overlay));
  return node("window", "window", { title: "LootLogger" }, children);
}

export function tabNodes(selected = "items", badge = "5") {
  return [
    node("tab-items", "tab", { label: "Items", selected: selected === "items", ...(badge ? { badge } : {}) }),
    node("tab-stats", "tab", { label: "Statistics", selected: selected === "stats" }),
  ];
}

export function deleteAlert(item) {
  return node(`alert-delete-${item.key}`, "alert", {
    title: `Delete “${item.name}”?`,
    message: "This item will be deleted from every window.",
    buttons: [{ name: "cancel", label: "Cancel", role: "cancel" }, { name: "delete", label: "Delete", role: "destructive" }],
  });
}

export function noticeNode(id, message) {
  return node(id, "notice", { message });
}

/** A WebSocket stand-in: what the window sends goes to `server`; `server` answers through `deliver`. */
export class FakeTransport {
  constructor(url, server) {
    this.url = url;
    this.server = server;
    this.readyState = 0;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    server.attach(this);
    setTimeout(() => {
      if (server.refuse) {
        this.readyState = 3;
        this.onclose?.({ code: 1006 });
        return;
      }
      this.readyState = 1;
      this.onopen?.({});
    }, 5);
  }

  send(data) {
    if (this.readyState !== 1) throw new Error("not open");
    this.server.receive(JSON.parse(data), this);
  }

  close() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ code: 1000 }), 0);
  }

  deliver(message) {
    if (this.readyState !== 1) return;
    this.onmessage?.({ data: JSON.stringify({ v: 1, ...message }) });
  }
}

/** A tiny LootLogger "server": keeps the window's state and answers actions with patches. */
export class FakeServer {
  constructor() {
    this.sent = []; // every message the window sent
    this.delivered = []; // every message delivered to the window
    this.transport = null;
    this.list = items.map((item) => ({ ...item }));
    this.route = "items";
    this.editing = false;
    this.seq = 1;
    this.overlay = [];
    this.tabs = null;
    this.autoAnswer = true;
    this.refuse = false;
    this.session = "0123456789abcdef0123456789abcdef";
  }

  attach(transport) {
    this.transport = transport;
  }

  send(message) {
    this.delivered.push(message);
    this.transport?.deliver(message);
  }

  patch(ops) {
    this.send({ type: "patch", ops, seq: { lootlogger: this.seq } });
  }

  get current() {
    return this.list.find((item) => `items/${item.key}` === this.route);
  }

  root() {
    const item = this.current;
    return windowNode({
      bar: item ? detailBar(item) : listBar(this.editing),
      screen: item ? detailScreen(item) : listScreen(this.list, this.editing),
      tabs: this.tabs,
      overlay: this.overlay,
    });
  }

  render() {
    this.send({ type: "render", root: this.root(), seq: { lootlogger: this.seq }, route: this.route });
  }

  receive(message) {
    this.sent.push(message);
    if (!this.autoAnswer) return;
    switch (message.type) {
      case "hello":
        this.send({ type: "welcome", session: this.session, app: "lootlogger", title: "LootLogger" });
        if (message.route === this.route && message.seq?.lootlogger === this.seq) this.send({ type: "resumed", seq: { lootlogger: this.seq } });
        else this.render();
        break;
      case "ping":
        this.send({ type: "pong" });
        break;
      case "action":
        this.act(message);
        break;
      default:
        break;
    }
  }

  act({ ref, node, name, value }) {
    const key = node.startsWith("item-") ? node.slice(5) : null;
    const item = key ? this.list.find((i) => i.key === key) : null;
    if (node === "edit" && name === "tap") {
      this.editing = !this.editing;
      this.patch([{ op: "set", id: "items", props: { editing: this.editing } }, { op: "replace", id: "navigationBar", node: listBar(this.editing) }]);
    } else if (item && name === "select") {
      this.route = `items/${item.key}`;
      this.patch([{ op: "replace", id: "navigationBar", node: detailBar(item) }, { op: "replace", id: "screen", node: detailScreen(item), transition: "push" }]);
    } else if (node === "navigationBar" && name === "back") {
      this.route = "items";
      this.patch([{ op: "replace", id: "navigationBar", node: listBar(this.editing) }, { op: "replace", id: "screen", node: listScreen(this.list, this.editing), transition: "pop" }]);
    } else if (item && name === "delete") {
      this.list = this.list.filter((i) => i !== item);
      this.seq += 1;
      this.patch([{ op: "remove", id: node }, { op: "set", id: "items-section", props: { footer: footer(this.list) } }]);
    } else if (item && name === "move") {
      const from = this.list.indexOf(item);
      this.list.splice(from, 1);
      this.list.splice(value, 0, item);
      this.seq += 1;
      this.patch([{ op: "move", id: node, index: value }]);
    } else if (item && name === "openInNewWindow") {
      this.send({ type: "open", url: `/lootlogger?open=tok-${item.key}` });
    } else if (node === "add" && name === "tap") {
      const fresh = { key: `n${this.seq}`, name: "Golden Bear", serial: "9C8B7A6D", value: 64, created: "Today" };
      this.list.push(fresh);
      this.seq += 1;
      this.patch([
        { op: "insert", parent: "items-section", index: this.list.length - 1, node: rowNode(fresh) },
        { op: "set", id: "items-section", props: { footer: footer(this.list) } },
      ]);
    } else if (name === "commit" && this.current) {
      const field = { name: "name", serial: "serial", value: "value" }[node];
      if (node === "value" && !/^\d+$/.test(value)) {
        this.send({ type: "error", ref, code: "invalidValue", message: "Value must be a whole number of dollars." });
        return;
      }
      if (field === "name") this.current.name = value;
      if (field === "serial") this.current.serial = value;
      if (field === "value") this.current.value = Number(value);
      this.seq += 1;
      const ops = [{ op: "set", id: node, props: { value, draft: null } }];
      if (field === "name") ops.push({ op: "set", id: "navigationBar", props: { title: value } });
      this.patch(ops);
    } else if (node.startsWith("alert-")) {
      this.overlay = this.overlay.filter((n) => n.id !== node);
      this.patch([{ op: "remove", id: node }]);
    } else if (node.startsWith("notice-") && name === "dismiss") {
      this.overlay = this.overlay.filter((n) => n.id !== node);
      this.patch([{ op: "remove", id: node }]);
    } else if (node === "delete-item" && name === "tap" && this.current) {
      const alert = deleteAlert(this.current);
      this.overlay.push(alert);
      this.patch([{ op: "insert", parent: "overlay", index: this.overlay.length - 1, node: alert }]);
    } else if (name === "draft") {
      // kept per scene on the real server; nothing to draw
    } else {
      this.send({ type: "error", ref, code: "unknownAction", message: `Nothing answers ${name} on ${node}.` });
      return;
    }
    this.send({ type: "ack", ref });
  }
}
