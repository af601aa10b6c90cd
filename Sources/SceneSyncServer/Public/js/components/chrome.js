// The window's frame: window, navigation bar and its buttons, screen, tab bar and tabs, overlay.
import { ACTION, CLS, P, ROLE, SIDE, TEXT, nodeId } from "../protocol.js";
import { animate, barIcon, h, icon, setAttr, setText, show, tabIcon } from "../dom.js";

export const windowView = {
  create: () => h("div", { class: "ss-window" }),
  update(el, props, previous, context) {
    context.view.setWindowTitle(props[P.title]);
    context.view.setWindowPath(props[P.path], props[P.history]);
  },
};

/**
 * A navigation bar: the window's (`navigationBar`, the banner, its title the page's heading) or a
 * split pane's own (`paneBar`, first in its pane; inside the screen, so not a banner). Both show a
 * back button, a title and their bar buttons (their children) at the bar's edges.
 */
function makeBar(node, context, className) {
  const id = nodeId(node);
  const backText = h("span", { class: "ss-back-text", "aria-hidden": "true" });
  const back = h("button", { type: "button", class: "ss-back", "aria-label": TEXT.back, hidden: true },
    icon("chevronLeft"), backText);
  back.addEventListener("click", () => context.send(id, ACTION.back));
  const title = h("h1", { class: "ss-navbar-title", tabindex: "-1" });
  const items = h("div", { class: "ss-navbar-items" });
  const inner = h("div", { class: "ss-navbar-inner" }, back, title, h("div", { class: "ss-navbar-spacer" }), items);
  // A <header> outside any sectioning element is the banner landmark already; role="banner" on it
  // is redundant, and checkers flag it as a role the element does not allow.
  const el = h("header", { class: className }, inner);
  el._ss = { inner, back, backText, title, items };
  // The window resized, or its buttons came, went or changed their labels: does the title still fit?
  new ResizeObserver(() => fitTitle(el)).observe(inner);
  new MutationObserver(() => fitTitle(el)).observe(items, { childList: true, subtree: true, characterData: true });
  return el;
}

/** Shows a bar's title and back button; returns the title. */
function updateBar(el, props, previous) {
  const { back, backText, title } = el._ss;
  const text = props[P.title] ?? "";
  if (previous[P.title] !== undefined && previous[P.title] !== text) {
    animate(title, [{ opacity: 0 }, { opacity: 1 }], { duration: 240 });
  }
  setText(title, text);
  show(title, text !== ""); // no empty heading: a pane beside nothing selected has a bar, but no title
  const backTitle = props[P.back];
  show(back, backTitle !== undefined && backTitle !== null);
  setText(backText, backTitle ?? "");
  setAttr(back, "title", backTitle ? `${TEXT.back} to ${backTitle}` : null);
  fitTitle(el);
  return text;
}

export const navigationBar = {
  create: (node, context) => makeBar(node, context, "ss-navbar"),
  slot: (el) => el._ss.items,
  mounted: (el) => fitTitle(el),
  update(el, props, previous, context) {
    context.view.setNavigationTitle(updateBar(el, props, previous));
  },
};

export const paneBar = {
  create: (node, context) => makeBar(node, context, "ss-navbar ss-panebar"),
  slot: (el) => el._ss.items,
  mounted: (el) => fitTitle(el),
  update: (el, props, previous) => { updateBar(el, props, previous); },
};

/** A title that would run into a button (long labels, a narrow window) takes the room between them. */
const CROWDED = "ss-crowded";
/** A bar whose title would be cut even so shows its buttons' icons in place of their labels. */
const COMPACT = "ss-compact";

/**
 * Centers the title on the bar if it clears every button there, else lets it take the room
 * between them; if it would be cut even so, the buttons that have icons show them in place of
 * their labels (which stay their names), as a bar folds its buttons in a narrow window.
 */
function fitTitle(el) {
  const { inner, back, title, items } = el._ss;
  if (!inner.isConnected) return;
  el.classList.remove(COMPACT);
  title.classList.remove(CROWDED);
  if (title.getBoundingClientRect().width === 0) return;
  if (!overlaps(title, [back, ...items.children])) return;
  title.classList.add(CROWDED);
  if (title.scrollWidth <= title.clientWidth || !items.querySelector(`.${CLS.hasIcon}`)) return;
  el.classList.add(COMPACT);
  title.classList.remove(CROWDED);
  title.classList.toggle(CROWDED, overlaps(title, [back, ...items.children]));
}

/** Whether `title` runs into any of `others` as laid out now. */
function overlaps(title, others) {
  const box = title.getBoundingClientRect();
  return others.some((item) => {
    const other = item.getBoundingClientRect();
    return other.width > 0 && other.left < box.right && other.right > box.left;
  });
}

export const barButton = {
  create(node, context) {
    const id = nodeId(node);
    const label = h("span", { class: "ss-barbutton-label" });
    const el = h("button", { type: "button", class: "ss-barbutton" }, label);
    el.addEventListener("click", () => context.send(id, ACTION.tap));
    el._ss = { label, icon: null, iconName: null };
    return el;
  },
  update(el, props) {
    const s = el._ss;
    const text = props[P.label] ?? "";
    setText(s.label, text);
    // An icon shows in place of the label in a bar without room for it (see fitTitle); decoration
    // only: the label names the button, shown or not, and is its tooltip while it is not.
    const iconName = typeof props[P.icon] === "string" ? props[P.icon] : null;
    if (iconName !== s.iconName) {
      s.icon?.remove();
      s.icon = iconName ? barIcon(iconName) : null;
      s.iconName = iconName;
      if (s.icon) el.insertBefore(s.icon, s.label);
    }
    el.classList.toggle(CLS.hasIcon, Boolean(s.icon));
    setAttr(el, "aria-label", s.icon ? text : null);
    setAttr(el, "title", s.icon ? text : null);
    el.disabled = props[P.disabled] === true;
    const side = props[P.side] === SIDE.leading ? SIDE.leading : SIDE.trailing;
    el.classList.toggle(CLS.leading, side === SIDE.leading);
    el.classList.toggle(CLS.trailing, side === SIDE.trailing);
    el.classList.toggle(CLS.role(ROLE.primary), props[P.role] === ROLE.primary);
    el.classList.toggle(CLS.role(ROLE.destructive), props[P.role] === ROLE.destructive);
  },
};

export const screen = {
  create: () => h("main", { class: "ss-screen" }),
  update(el, props) {
    setAttr(el, "data-route", props[P.route]);
  },
};

export const tabBar = {
  create() {
    const list = h("div", { class: "ss-tablist", role: "tablist", "aria-label": TEXT.tabs });
    list.addEventListener("keydown", (event) => {
      const keys = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
      if (!(event.key in keys)) return;
      const tabs = [...list.querySelectorAll('[role="tab"]')];
      const current = tabs.indexOf(document.activeElement);
      if (current < 0) return;
      event.preventDefault();
      const step = keys[event.key];
      const next = step === -Infinity ? 0 : step === Infinity ? tabs.length - 1 : (current + step + tabs.length) % tabs.length;
      tabs[next].focus();
    });
    const el = h("nav", { class: "ss-tabbar", "aria-label": TEXT.tabs }, list);
    el._ss = { list };
    return el;
  },
  slot: (el) => el._ss.list,
  update() {},
};

export const tab = {
  create(node, context) {
    const id = nodeId(node);
    const label = h("span", { class: "ss-tab-label" });
    // The badge is in the tab's name ("Order, 4 items"): read alone it would be a bare "4".
    const badge = h("span", { class: "ss-badge", "aria-hidden": "true", hidden: true });
    const el = h("button", { type: "button", class: "ss-tab", role: "tab" }, label, badge);
    // The shown tab, selected again, goes back to its first screen: the server decides.
    el.addEventListener("click", () => context.send(id, ACTION.select));
    el._ss = { label, badge, icon: null, iconName: null };
    return el;
  },
  update(el, props) {
    const s = el._ss;
    const { label, badge } = s;
    const text = props[P.label] ?? "";
    setText(label, text);
    // Decoration (aria-hidden): the tab is named by its label and badge alone.
    const iconName = typeof props[P.icon] === "string" ? props[P.icon] : null;
    if (iconName !== s.iconName) {
      s.icon?.remove();
      s.icon = iconName ? tabIcon(iconName) : null;
      s.iconName = iconName;
      if (s.icon) el.insertBefore(s.icon, label);
    }
    const selected = props[P.selected] === true;
    setAttr(el, "aria-selected", selected ? "true" : "false");
    el.classList.toggle(CLS.selected, selected);
    el.tabIndex = selected ? 0 : -1;
    const value = props[P.badge];
    const hasBadge = value !== undefined && value !== null && value !== "";
    show(badge, hasBadge);
    setText(badge, hasBadge ? String(value) : "");
    setAttr(el, "aria-label", hasBadge ? TEXT.badged(text, String(value)) : text);
  },
  mounted(el) {
    // With no tab selected, keep the first one reachable by Tab.
    const list = el.parentElement;
    if (list && !list.querySelector('[role="tab"][aria-selected="true"]') && list.firstElementChild === el) el.tabIndex = 0;
  },
};

// Notices and alerts sit beside the screen, not in it: a labelled landmark keeps them reachable by
// landmark navigation (and keeps every piece of content inside some landmark).
const NOTICES_LABEL = "Notices";

export const overlay = {
  create: () => h("div", { class: "ss-overlay", role: "region", "aria-label": NOTICES_LABEL }),
  update() {},
};
