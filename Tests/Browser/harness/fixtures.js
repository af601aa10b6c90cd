// Fixtures for the renderer harness: LootLogger's view nodes, with the node ids, props and routes
// the real app sends (Examples/LootLogger/Sources/LootLogger/Scenes: ItemsScreen, ItemDetailScreen;
// SceneWindow for the window's own nodes), and a fake server that answers the window protocol
// through a fake WebSocket transport the way the Swift server would: actions come in, patches go
// out (one-way flow: the renderer never changes its own rows). Tests written against these ids hold
// against the real server too.

export const items = [
  { key: "A1B2C3D4-0001-4E5F-8A9B-0C1D2E3F4A51", name: "Shiny Spork", serialNumber: "8F2A1C3D", value: 42, created: "Mar 3, 2025" },
  { key: "A1B2C3D4-0002-4E5F-8A9B-0C1D2E3F4A52", name: "Rusty Bear", serialNumber: "1B7E9A02", value: 18, created: "Mar 5, 2025" },
  { key: "A1B2C3D4-0003-4E5F-8A9B-0C1D2E3F4A53", name: "Fluffy Mac", serialNumber: "C0FFEE11", value: 95, created: "Apr 1, 2025" },
  { key: "A1B2C3D4-0004-4E5F-8A9B-0C1D2E3F4A54", name: "Shiny Mac", serialNumber: "77D3B5E0", value: 33, created: "Apr 12, 2025" },
  { key: "A1B2C3D4-0005-4E5F-8A9B-0C1D2E3F4A55", name: "Golden Spork", serialNumber: "4AA9F2C7", value: 22, created: "May 20, 2025" },
];

/** SceneWindow.NodeID, ItemsScreen.NodeID and ItemDetailScreen.NodeID. */
export const ID = Object.freeze({
  window: "window", navigationBar: "navigationBar", screen: "screen", tabBar: "tabBar", overlay: "overlay",
  table: "items-table", section: "items", empty: "items-empty", add: "add", edit: "edit",
  form: "item-form", fields: "item-fields", name: "name", serialNumber: "serialNumber", value: "value", dateCreated: "dateCreated",
});

/** The tab every LootLogger window has (SceneWindow.setRoot); a second one only in the tabbed variant. */
export const MAIN_TAB = "main";
export const OPEN_IN_NEW_WINDOW = "openInNewWindow";

export const rowId = (item) => `item-${item.key}`;
export const tabId = (tab) => `tab-${tab}`;
/** The screen's `route` prop: Route.description. */
export const screenRoute = (item) => (item ? `item/${item.key}` : "items");
/** `render.route`: SceneWindow.routeKey, the selected tab and its top screen's route. */
export const routeKey = (item, tab = MAIN_TAB) => `${tab}:${screenRoute(item)}`;

const node = (id, kind, props = {}, children = []) => ({ id, kind, props, children });
const money = (value) => `$${value}`;

export function rowNode(item) {
  const props = { title: item.name };
  if (item.serialNumber) props.subtitle = item.serialNumber;
  Object.assign(props, {
    detail: money(item.value), accessory: "disclosure", deletable: true, movable: true,
    actions: [{ name: OPEN_IN_NEW_WINDOW, label: "Open in New Window" }],
  });
  return node(rowId(item), "row", props);
}

export function footer(list) {
  const total = list.reduce((sum, item) => sum + item.value, 0);
  return `${list.length} ${list.length === 1 ? "item" : "items"} — ${money(total)} total`;
}

export function emptyNode() {
  return node(ID.empty, "emptyState", { title: "No Items", message: "Tap Add to log your first possession." });
}

export function listBar(editing) {
  return node(ID.navigationBar, "navigationBar", { title: "LootLogger" }, [
    node(ID.edit, "barButton", { label: editing ? "Done" : "Edit", side: "leading" }),
    node(ID.add, "barButton", { label: "Add", side: "trailing", role: "primary" }),
  ]);
}

export function listScreen(list, editing = false) {
  return node(ID.screen, "screen", { route: screenRoute(null) }, [
    node(ID.table, "table", { label: "Items", editing }, [
      node(ID.section, "section", { footer: footer(list) }, list.length === 0 ? [emptyNode()] : list.map(rowNode)),
    ]),
  ]);
}

export function detailBar(item) {
  return node(ID.navigationBar, "navigationBar", { title: item.name, back: "LootLogger" }, []);
}

export function detailScreen(item, extra = {}) {
  return node(ID.screen, "screen", { route: screenRoute(item) }, [
    node(ID.form, "form", {}, [
      node(ID.fields, "section", {}, [
        node(ID.name, "textField", { label: "Name", value: item.name, inputMode: "text", ...(extra.name ?? {}) }),
        node(ID.serialNumber, "textField", {
          label: "Serial Number", value: item.serialNumber ?? "", placeholder: "None", inputMode: "text", ...(extra.serialNumber ?? {}),
        }),
        node(ID.value, "textField", { label: "Value", value: String(item.value), inputMode: "numeric", ...(extra.value ?? {}) }),
        node(ID.dateCreated, "label", { label: "Date Created", value: item.created }),
      ]),
    ]),
  ]);
}

export function windowNode({ bar, screen, tabs = null, overlay = [] }) {
  const children = [bar, screen];
  if (tabs) children.push(node(ID.tabBar, "tabBar", {}, tabs));
  children.push(node(ID.overlay, "overlay", {}, overlay));
  return node(ID.window, "window", { title: "LootLogger" }, children);
}

/** Tabs for a window with two (SceneWindow.setTabs); LootLogger itself has one, and no tab bar. */
export function tabNodes(selected = MAIN_TAB, badge = "5") {
  return [
    node(tabId(MAIN_TAB), "tab", { label: "Items", selected: selected === MAIN_TAB, ...(badge ? { badge } : {}) }),
    node(tabId("stats"), "tab", { label: "Statistics", selected: selected === "stats" }),
  ];
}

/** An alert as SceneWindow.present sends one; the harness presents it from the server's side. */
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
    this.shown = null; // the key of the item whose detail screen is on top, if any
    this.editing = false;
    this.seq = 1;
    this.overlay = [];
    this.tabs = null;
    this.autoAnswer = true;
    this.refuse = false;
    this.session = "0123456789abcdef0123456789abcdef";
    this.clockSkew = 0; // how far the server's clock is ahead of the browser's, in ms
  }

  /** The server's clock (ms since 1970): what `welcome.time` says and row countdowns are set on. */
  now() {
    return Date.now() + this.clockSkew;
  }

  welcome() {
    this.send({ type: "welcome", session: this.session, app: "lootlogger", title: "LootLogger", time: this.now() });
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
    return this.list.find((item) => item.key === this.shown);
  }

  get route() {
    return routeKey(this.current);
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

  /** Shows an alert above everything, as SceneWindow.present does: after the alerts, before the notices. */
  present(alert) {
    const index = this.overlay.filter((n) => n.kind === "alert").length;
    this.overlay.splice(index, 0, alert);
    this.patch([{ op: "insert", parent: ID.overlay, index, node: alert }]);
  }

  receive(message) {
    this.sent.push(message);
    if (!this.autoAnswer) return;
    switch (message.type) {
      case "hello":
        this.welcome();
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
    const item = this.list.find((i) => rowId(i) === node) ?? null;
    const footerPatch = () => ({ op: "set", id: ID.section, props: { footer: footer(this.list) } });
    if (node === ID.edit && name === "tap") {
      this.editing = !this.editing;
      // ItemsScreen: setBarButtons replaces the bar, then the table's edit mode is set.
      this.patch([{ op: "replace", id: ID.navigationBar, node: listBar(this.editing) }]);
      this.patch([{ op: "set", id: ID.table, props: { editing: this.editing } }]);
    } else if (item && name === "select") {
      this.shown = item.key;
      this.patch([{ op: "replace", id: ID.navigationBar, node: detailBar(item) }, { op: "replace", id: ID.screen, node: detailScreen(item), transition: "push" }]);
    } else if (node === ID.navigationBar && name === "back") {
      this.shown = null;
      this.patch([{ op: "replace", id: ID.navigationBar, node: listBar(this.editing) }, { op: "replace", id: ID.screen, node: listScreen(this.list, this.editing), transition: "pop" }]);
    } else if (item && name === "delete") {
      this.list = this.list.filter((i) => i !== item);
      this.seq += 1;
      const ops = [{ op: "remove", id: node }];
      if (this.list.length === 0) ops.push({ op: "insert", parent: ID.section, index: 0, node: emptyNode() });
      this.patch([...ops, footerPatch()]);
    } else if (item && name === "move") {
      const from = this.list.indexOf(item);
      this.list.splice(from, 1);
      this.list.splice(value, 0, item);
      this.seq += 1;
      this.patch([{ op: "move", id: node, index: value }, footerPatch()]);
    } else if (item && name === OPEN_IN_NEW_WINDOW) {
      this.send({ type: "open", url: `/lootlogger?open=tok-${item.key}` });
    } else if (node === ID.add && name === "tap") {
      const fresh = { key: `A1B2C3D4-${String(this.seq).padStart(4, "0")}-4E5F-8A9B-FFFFFFFFFFFF`, name: "Golden Bear", serialNumber: "9C8B7A6D", value: 64, created: "Today" };
      const ops = this.list.length === 0 ? [{ op: "remove", id: ID.empty }] : [];
      this.list.push(fresh);
      this.seq += 1;
      this.patch([...ops, { op: "insert", parent: ID.section, index: this.list.length - 1, node: rowNode(fresh) }, footerPatch()]);
    } else if (name === "commit" && this.current && [ID.name, ID.serialNumber, ID.value].includes(node)) {
      const text = typeof value === "string" ? value : "";
      if (node === ID.value && !/^\d+$/.test(text.trim())) {
        // ItemDetailScreen shows a field's error on the field, in a patch; the action itself is handled.
        this.patch([{ op: "set", id: node, props: { error: `The value must be a whole number of dollars from 0 to 1,000,000,000, not ${JSON.stringify(text)}.` } }]);
      } else {
        const stored = text.trim();
        if (node === ID.name) this.current.name = stored;
        if (node === ID.serialNumber) this.current.serialNumber = stored;
        if (node === ID.value) this.current.value = Number(stored);
        this.seq += 1;
        const ops = [{ op: "set", id: node, props: { value: stored, accepted: text, error: null, draft: null } }];
        if (node === ID.name) ops.push({ op: "set", id: ID.navigationBar, props: { title: stored } });
        this.patch(ops);
      }
    } else if (this.overlay.some((n) => n.id === node && n.kind === "alert")) {
      this.overlay = this.overlay.filter((n) => n.id !== node);
      this.patch([{ op: "remove", id: node }]);
    } else if (node.startsWith("notice-") && name === "dismiss") {
      this.overlay = this.overlay.filter((n) => n.id !== node);
      this.patch([{ op: "remove", id: node }]);
    } else if (name === "draft") {
      // kept per scene on the real server; nothing to draw
    } else {
      this.send({ type: "error", ref, code: "refused", message: `Nothing answers ${name} on ${node}.` });
      return;
    }
    this.send({ type: "ack", ref });
  }
}
