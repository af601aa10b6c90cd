// The view: the window on screen. Owns the node tree, draws renders, applies patches, shows errors
// near nodes and transient notices, keeps alerts modal, remembers scroll and focus per route so
// going back lands where the user was, keeps the document title, owns the window's countdowns
// (the server's clock and the one timer every row's countdown ticks by), and lets Escape end a
// table's edit mode.
import { ACTION, ATTR, CLS, KIND, NODE_ID, P, ROLE, TEXT, TIMING, TRANSITION } from "./protocol.js";
import { Tree } from "./render.js";
import { applyPatch } from "./patch.js";
import { Countdowns } from "./countdown.js";
import { animate, focusQuietly, focusables, h, icon } from "./dom.js";

const MESSAGES_LABEL = "Messages";

/** Whether `el` takes typed text: Escape there belongs to the field. */
function takesText(el) {
  return Boolean(el && (el.matches("input, textarea, select") || el.isContentEditable));
}

/** Whether focus is nowhere useful: on the body, or on an element that left or went inert. */
function focusLost() {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected || Boolean(active.closest(`[${ATTR.leavingNodeId}], [inert]`));
}

export class View {
  /**
   * @param {HTMLElement} container  the root element
   * @param {(node: string, name: string, value?: any) => number|null} send  sends an action; null when it could not
   */
  constructor(container, send) {
    this.container = container;
    this.sendAction = send;
    this.countdowns = new Countdowns();
    this.tree = new Tree(container, { send: (node, name, value) => this.send(node, name, value), view: this, countdowns: this.countdowns });
    this.toasts = h("div", { class: "ss-toasts" });
    this.announcer = h("div", { class: CLS.visuallyHidden, role: "status", "aria-live": "polite" });
    // The window's own messages live outside the server's tree, so outside its landmarks: give them one.
    container.append(h("div", { class: "ss-messages", role: "region", "aria-label": MESSAGES_LABEL }, this.toasts, this.announcer));
    this.scrollMemory = new Map();
    this.focusMemory = new Map();
    this.windowTitle = "";
    this.onPath = null; // (path, history) => void: the window's path changed
    this.navigationTitle = "";
    this.modal = false;
    this.returnFocus = null;
    this.doneByEscape = null; // {record, props} of the Done button Escape pressed, until it changes
    // Reaches the document only if nothing nearer took it: a row's Delete, a menu, an alert, a
    // field putting back its text.
    document.addEventListener("keydown", (event) => this.escapeEditing(event));
  }

  send(node, name, value) {
    const ref = this.sendAction(node, name, value);
    if (ref === null) this.showError(node, TEXT.tooLong);
    return ref;
  }

  has(id) {
    return this.tree.has(id);
  }

  get isEmpty() {
    return this.tree.root === null;
  }

  // MARK: - Drawing

  render(root) {
    const before = this.focusState();
    this.tree.render(root);
    this.afterChange(before);
  }

  /** Applies a patch; throws OutOfStep when an op does not fit (what came before it stays applied). */
  patch(ops) {
    const before = this.focusState();
    try {
      applyPatch(this.tree, ops, this);
    } finally {
      this.afterChange(before);
    }
  }

  focusState() {
    const active = document.activeElement;
    const inside = active && active !== document.body && this.container.contains(active);
    const holder = inside ? active.closest(`[${ATTR.nodeId}]`) : null;
    return { active, inside, node: holder ? holder.getAttribute(ATTR.nodeId) : null };
  }

  afterChange(before) {
    this.updateModality(before.active);
    if (before.inside && focusLost()) {
      if (!(before.node && this.focusNode(before.node))) this.focusTitle();
    }
  }

  // MARK: - Focus

  /** Focuses the first focusable element of node `id`; false if there is none. */
  focusNode(id) {
    const record = this.tree.get(id);
    if (!record || !record.el.isConnected) return false;
    const target = focusables(record.el)[0] ?? (record.el.tabIndex >= 0 ? record.el : null);
    if (!target) return false;
    focusQuietly(target);
    return document.activeElement === target;
  }

  focusTitle() {
    // The window's bar's title; in a split, the last pane's bar shown with a title (the detail's).
    const titles = [...this.container.querySelectorAll(".ss-navbar-title")]
      .filter((title) => title.getClientRects().length > 0 && !title.closest("[inert]"));
    const title = titles.at(-1);
    if (title) focusQuietly(title);
  }

  /** A child of `parent` at `index` went away while focused: focus its neighbour, or the parent. */
  focusNear(parent, index) {
    const kids = parent.kids;
    const neighbour = kids[Math.min(index, kids.length - 1)];
    if (neighbour && this.focusNode(neighbour.id)) return;
    for (let r = parent; r; r = r.parent) if (this.focusNode(r.id)) return;
  }

  // MARK: - Navigation

  /** The screen is about to be replaced: remember where the user was on it. */
  screenWillChange(record) {
    const route = record.props[P.route];
    if (route === undefined) return;
    this.scrollMemory.set(route, window.scrollY);
    const { node } = this.focusState();
    if (node) this.focusMemory.set(route, node);
    else this.focusMemory.delete(route);
  }

  /** A new screen is showing: start at the top (push), or where the user was (pop). */
  screenDidChange(record, transition) {
    if (!transition) return;
    const route = record.props[P.route];
    const focusWasHere = this.focusState().inside || document.activeElement === document.body;
    if (transition === TRANSITION.pop && route !== undefined && this.scrollMemory.has(route)) {
      window.scrollTo(0, this.scrollMemory.get(route));
    } else {
      window.scrollTo(0, 0);
    }
    if (!focusWasHere) return;
    const remembered = transition === TRANSITION.pop && route !== undefined ? this.focusMemory.get(route) : null;
    if (!(remembered && this.focusNode(remembered))) this.focusTitle();
  }

  // MARK: - Alerts

  /** While an alert shows, everything but the top alert is inert, and focus returns after. */
  updateModality(activeBefore) {
    const root = this.tree.root;
    const overlay = this.tree.get(NODE_ID.overlay);
    const alerts = overlay ? overlay.kids.filter((r) => r.kind === KIND.alert) : [];
    const top = alerts[alerts.length - 1] ?? null;
    const modal = top !== null;
    if (modal && !this.modal) {
      const active = activeBefore ?? document.activeElement;
      this.returnFocus = active && active !== document.body && !top.el.contains(active) ? active : null;
    }
    if (root) {
      for (const kid of root.kids) if (kid !== overlay) kid.el.inert = modal;
    }
    if (overlay) for (const kid of overlay.kids) kid.el.inert = modal && kid !== top;
    this.toasts.inert = modal;
    document.documentElement.classList.toggle(CLS.modalOpen, modal);
    if (!modal && this.modal) {
      const back = this.returnFocus;
      this.returnFocus = null;
      if (back && back.isConnected && !back.closest("[inert]") && focusLost()) focusQuietly(back);
    }
    this.modal = modal;
  }

  // MARK: - Edit mode

  /**
   * Escape ends a table's edit mode as its Done button would: it presses the navigation bar's
   * button whose role is `done` (the edit button in edit mode), once until the server answers.
   */
  escapeEditing(event) {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing || this.modal) return;
    if (takesText(document.activeElement) || this.container.querySelector(`.${CLS.confirming}`)) return;
    const done = this.doneButton();
    if (!done) return;
    event.preventDefault();
    const pressed = this.doneByEscape;
    if (pressed && pressed.record === done && pressed.props === done.props) return;
    this.doneByEscape = { record: done, props: done.props };
    this.send(done.id, ACTION.tap);
  }

  /** The navigation bar's Done button while a table on the screen is in edit mode, else null. */
  doneButton() {
    const editing = [...this.tree.map.values()].some((r) => r.kind === KIND.table && r.props[P.editing] === true && r.el.isConnected);
    if (!editing) return null;
    const bar = this.tree.get(NODE_ID.navigationBar);
    return bar?.kids.find((r) => r.kind === KIND.barButton && r.props[P.role] === ROLE.done && r.props[P.disabled] !== true) ?? null;
  }

  // MARK: - Errors and notices

  /** Shows `message` next to node `id` if it can show one, else as a transient notice. */
  showError(id, message) {
    const record = id ? this.tree.get(id) : null;
    if (record && record.el.isConnected && record.def.showError && record.def.showError(record.el, message)) return;
    this.toast(message);
  }

  /** A transient notice, not from the server: dismissed by its button or after a few seconds. */
  toast(message, link = null) {
    const text = h("span", { class: "ss-toast-message" }, message);
    if (link) text.append(" ", h("a", { href: link.href, target: "_blank", rel: "noopener" }, link.label));
    const close = h("button", { type: "button", class: "ss-notice-dismiss", "aria-label": TEXT.dismiss }, icon("close"));
    const toast = h("div", { class: "ss-toast", role: "alert" }, text, close);
    const dismiss = () => {
      clearTimeout(timer);
      animate(toast, [{ opacity: 1 }, { opacity: 0 }], { duration: 160, fill: "forwards" }).then(() => toast.remove());
    };
    close.addEventListener("click", dismiss);
    const timer = setTimeout(dismiss, TIMING.toastLifetime);
    this.toasts.append(toast);
    animate(toast, [{ opacity: 0, transform: "translateY(12px)" }, { opacity: 1, transform: "none" }], { duration: 220 });
    return toast;
  }

  announce(text) {
    this.announcer.textContent = "";
    setTimeout(() => { this.announcer.textContent = text; }, 30);
  }

  // MARK: - Title

  /** The window's `path` and how it changed, for the page's URL (main.js sets `onPath`). */
  setWindowPath(path, history) {
    this.onPath?.(path, history);
  }

  setWindowTitle(title) {
    this.windowTitle = title ?? "";
    this.updateTitle();
  }

  setNavigationTitle(title) {
    this.navigationTitle = title ?? "";
    this.updateTitle();
  }

  updateTitle() {
    const { windowTitle, navigationTitle } = this;
    const title = navigationTitle && navigationTitle !== windowTitle
      ? (windowTitle ? `${navigationTitle} – ${windowTitle}` : navigationTitle)
      : windowTitle;
    document.title = title || "SceneSync";
  }
}
