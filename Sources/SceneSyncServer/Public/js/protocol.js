// The window protocol, browser side: every wire name in one place. Mirrors
// Sources/SceneSyncServer/Protocol/WindowProtocol.swift, Sources/SceneSyncUI/ViewNode.swift, Patch.swift
// and SceneWindow.swift, and PROTOCOL.md. Other modules import names from here and never spell a
// wire name themselves.

const freeze = Object.freeze;

/** The protocol version this renderer speaks (`v` on every message). */
export const VERSION = 1;
/** The largest message the server accepts from a window, in bytes. */
export const MAX_MESSAGE_SIZE = 64 * 1024;

/** Message `type` values. */
export const MSG = freeze({
  // Window → server.
  hello: "hello", action: "action", visibility: "visibility", closing: "closing", ping: "ping",
  // Server → window.
  welcome: "welcome", render: "render", patch: "patch", resumed: "resumed", ack: "ack",
  error: "error", open: "open", shutdown: "shutdown", pong: "pong",
});

/** `error` codes the renderer treats apart from the rest (PROTOCOL.md, "Error codes"). */
export const ERROR = freeze({ notAnswered: "notAnswered" });

/** Message fields. */
export const F = freeze({
  type: "type", v: "v",
  // hello
  session: "session", seq: "seq", route: "route", open: "open", token: "token", device: "device",
  visible: "visible", focused: "focused",
  // action / ack / error
  ref: "ref", node: "node", name: "name", value: "value", resend: "resend", code: "code", message: "message",
  // welcome / render / patch / open / shutdown
  app: "app", title: "title", time: "time", root: "root", ops: "ops", url: "url", retryAfter: "retryAfter",
});

/** Fields of a view node. */
export const N = freeze({ id: "id", kind: "kind", props: "props", children: "children" });

/** Node kinds (ViewNode.Kind). */
export const KIND = freeze({
  window: "window", navigationBar: "navigationBar", barButton: "barButton", tabBar: "tabBar",
  tab: "tab", screen: "screen", table: "table", section: "section", row: "row", form: "form",
  textField: "textField", label: "label", button: "button", image: "image", text: "text",
  emptyState: "emptyState", alert: "alert", notice: "notice", overlay: "overlay", stack: "stack",
  split: "split", messageList: "messageList", message: "message", composer: "composer", paneBar: "paneBar",
});

/** Node properties, by name. */
export const P = freeze({
  title: "title", back: "back", label: "label", side: "side", role: "role", badge: "badge",
  selected: "selected", route: "route", editing: "editing", header: "header", footer: "footer",
  subtitle: "subtitle", detail: "detail", countdown: "countdown", image: "image", accessory: "accessory",
  deletable: "deletable", movable: "movable", actions: "actions", value: "value", draft: "draft",
  placeholder: "placeholder", inputMode: "inputMode", error: "error", disabled: "disabled",
  src: "src", alt: "alt", text: "text", style: "style", message: "message", buttons: "buttons",
  accepted: "accepted", staged: "staged", focus: "focus", sender: "sender", time: "time", mine: "mine", fromHere: "fromHere",
  button: "button", selectable: "selectable", readOnly: "readOnly", hint: "hint", undo: "undo", path: "path", history: "history", icon: "icon",
});

/** Fields of the objects in `actions` (rows) and `buttons` (alerts). */
export const ITEM = freeze({ name: "name", label: "label", role: "role" });

/** Prop values. */
export const SIDE = freeze({ leading: "leading", trailing: "trailing" });
export const ROLE = freeze({ primary: "primary", destructive: "destructive", cancel: "cancel", done: "done" });
export const ACCESSORY = freeze({ disclosure: "disclosure" });
export const INPUT_MODE = freeze({ text: "text", numeric: "numeric" });
export const TEXT_STYLE = freeze({ body: "body", title: "title", caption: "caption", footnote: "footnote" });
export const FOCUS = freeze({ primary: "primary", secondary: "secondary" });

/** The ids of the nodes every window has (SceneWindow.NodeID). */
export const NODE_ID = freeze({
  window: "window", navigationBar: "navigationBar", screen: "screen", tabBar: "tabBar", overlay: "overlay",
});

/** Action names the window sends. Alert buttons and row actions send their own `name`. */
export const ACTION = freeze({
  tap: "tap", select: "select", delete: "delete", move: "move", commit: "commit", draft: "draft",
  back: "back", dismiss: "dismiss", send: "send", navigate: "navigate",
});

/** Patch ops and their fields. */
export const OP = freeze({ insert: "insert", remove: "remove", move: "move", replace: "replace", set: "set" });
export const OPF = freeze({
  op: "op", parent: "parent", index: "index", node: "node", id: "id", props: "props", transition: "transition",
});
export const TRANSITION = freeze({ push: "push", pop: "pop" });

/** Page URL query parameters. */
export const QUERY = freeze({ open: "open", token: "token" });

/** The WebSocket path: `/ws/<app>`. */
export const WS_PATH = "/ws/";

/** The `<meta>` of an app's page naming the optional components it needs, space-separated (RendererAssets.swift). */
export const COMPONENTS_META = "scenesync-components";

/** sessionStorage keys, per app. */
export const STORAGE = freeze({
  session: (app) => `scenesync.session.${app}`,
  seq: (app) => `scenesync.seq.${app}`,
  token: (app) => `scenesync.token.${app}`,
  ref: (app) => `scenesync.ref.${app}`,
});

/** localStorage key of the browser profile's device id (`hello.device`), shared by all its windows and apps. */
export const DEVICE_KEY = "scenesync.device";

/** BroadcastChannel used to find a duplicated tab (two live windows holding one session). */
export const CHANNEL = (app) => `scenesync.${app}`;
export const CHANNEL_MSG = freeze({ who: "who-has-session", mine: "session-is-mine" });

/** Connection states, in the indicator's `data-state`. */
export const CONN = freeze({ connecting: "connecting", connected: "connected", reconnecting: "reconnecting" });
export const CONN_TEXT = freeze({
  connecting: "Connecting…", connected: "Connected", reconnecting: "Reconnecting…", offline: "Offline",
  // Not connected, with `count` actions waiting to be sent.
  waiting: (count) => `Offline — ${count} ${count === 1 ? "change" : "changes"} will be sent when the connection is back`,
});

/** Timing, in milliseconds. */
export const TIMING = freeze({
  pingInterval: 20_000,
  silenceTimeout: 45_000, // no message at all for this long: the connection is dead
  /** Reconnecting waits a random time below this, doubled after each failed try up to backoffMax:
   *  the windows of a node that died spread their reconnects over it rather than all at once. */
  backoffInitial: 1_000,
  backoffMax: 10_000,
  duplicateProbe: 150,
  draftDebounce: 300,
  /** A composer sends its draft at least this often (ms) while the user types on. */
  draftMaxWait: 1000,
  noticeAutoDismiss: 8_000,
  inlineErrorLifetime: 8_000,
  toastLifetime: 6_000,
  dragHold: 1_200,
  animation: 280,
  messageGroup: 5 * 60_000, // one sender's messages this soon after the first of them show its name and time once
});

/** DOM attributes the renderer sets (tests read them). */
export const ATTR = freeze({
  nodeId: "data-node-id",
  kind: "data-kind",
  leavingNodeId: "data-leaving-node-id",
  state: "data-state",
  changedElsewhere: "data-changed-elsewhere",
  unsaved: "data-unsaved",
  title: "data-title", // a row's title, for tests and styles
  detail: "data-detail", // a row's detail text
  focus: "data-focus", // a split's shown pane when narrow: "primary" or "secondary"
  pane: "data-pane", // a split's child: "primary" or "secondary"
});

/** CSS state classes. */
export const CLS = freeze({
  editing: "ss-editing",
  selected: "ss-selected",
  unsaved: "ss-unsaved",
  invalid: "ss-invalid",
  changedElsewhere: "ss-changed-elsewhere",
  leaving: "ss-leaving",
  entering: "ss-entering",
  dragging: "ss-dragging",
  dropTarget: "ss-drop-target",
  busy: "ss-busy",
  hidden: "ss-hidden",
  modalOpen: "ss-modal-open",
  visuallyHidden: "ss-visually-hidden",
  offline: "ss-offline",
  shifting: "ss-shifting",
  hasImage: "ss-has-image",
  hasDisclosure: "ss-has-disclosure",
  hasIcon: "ss-has-icon",
  leading: "ss-leading",
  trailing: "ss-trailing",
  stacked: "ss-stacked",
  numeric: "ss-numeric",
  mine: "ss-mine",
  continued: "ss-continued", // a message in a group after its first: its name and time are for assistive technology only
  confirming: "ss-confirming", // a row in edit mode showing its Delete button
  role: (role) => `ss-role-${role}`,
});

/** Words the renderer shows or uses as accessible names. */
export const TEXT = freeze({
  back: "Back",
  delete: "Delete",
  // The label of the navigation bar button that ends a table's edit mode (UIKit's edit button in
  // edit mode): Escape presses it.
  // The red minus of a row in edit mode: it shows the row's Delete button, which deletes.
  showDelete: "Delete…",
  reorder: "Reorder",
  dismiss: "Dismiss",
  moreActions: "More actions",
  changedElsewhere: "Changed in another window",
  unsaved: "Not saved yet",
  tabs: "Tabs",
  popupBlocked: "The new window was blocked.",
  openHere: "Open",
  unread: (badge) => `${badge} unread`,
  // A tab's name with its badge: a count reads as items ("Order, 4 items"), other text as it is.
  badged: (label, badge) => `${label}, ${/^\d+\+?$/.test(badge) ? `${badge} ${badge === "1" ? "item" : "items"}` : badge}`,
  tooLong: "This is too long to send.",
  movedTo: (position, count) => `Moved to position ${position} of ${count}`,
  // A countdown's accessible text: "1 hour 5 seconds left", "0 seconds left".
  timeLeft: (hours, minutes, seconds) => {
    const part = (n, unit) => `${n} ${unit}${n === 1 ? "" : "s"}`;
    const parts = [hours > 0 && part(hours, "hour"), minutes > 0 && part(minutes, "minute"),
      (seconds > 0 || (hours === 0 && minutes === 0)) && part(seconds, "second")];
    return `${parts.filter(Boolean).join(" ")} left`;
  },
});

/** Node field accessors, so no module spells the node fields itself. */
export const nodeId = (node) => node[N.id];
export const nodeKind = (node) => node[N.kind];
export const nodeProps = (node) => node[N.props] ?? {};
export const nodeChildren = (node) => node[N.children] ?? [];
