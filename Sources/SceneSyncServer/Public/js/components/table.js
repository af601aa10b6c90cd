// Tables: table, section (also used by forms), row.
// Rows never move or disappear on the user's say-so: they send the action, and the server's patch
// moves or removes them. A row's countdown ticks by itself (countdown.js), but only the server
// changes the row when its time is up. A row's `time` (a moment) shows where its detail goes, in
// the window's own time zone (times.js); a countdown still comes first. Its `badge` (an unread
// count) is a pill before them.
import { ACCESSORY, ACTION, ATTR, CLS, ITEM, KIND, P, TEXT, TIMING, nodeId } from "../protocol.js";
import { h, icon, setAttr, setText, show, srOnly, uid } from "../dom.js";
import { forgetMoment, isMoment, showMoment } from "../times.js";
import { startDrag, settleDrag } from "./drag.js";
import { Menu } from "./menu.js";

export const table = {
  create() {
    const el = h("div", { class: "ss-table", role: "group" });
    // A list must hold list items: with no rows (an empty state in their place) the table is a
    // named group instead. Rows come and go through patches the table is not told about, so it
    // watches its own subtree.
    const sync = () => setAttr(el, "role", el.querySelector('[role="listitem"]') ? "list" : "group");
    new MutationObserver(sync).observe(el, { childList: true, subtree: true });
    return el;
  },
  update(el, props) {
    setAttr(el, "aria-label", props[P.label]);
    el.classList.toggle(CLS.editing, props[P.editing] === true);
  },
};

export const section = {
  create(node, context) {
    const inForm = context.parentKind === KIND.form;
    const headerId = uid("header");
    const header = h("h2", { class: "ss-section-header", id: headerId, hidden: true });
    const body = h("div", { class: "ss-section-body", role: inForm ? null : "none" });
    const footer = h("div", { class: "ss-section-footer", hidden: true });
    const el = h(inForm ? "fieldset" : "div", { class: "ss-section", role: inForm ? "group" : "none" }, header, body, footer);
    el._ss = { header, body, footer, headerId, inForm };
    return el;
  },
  slot: (el) => el._ss.body,
  update(el, props) {
    const { header, footer, headerId, inForm } = el._ss;
    const headerText = props[P.header];
    show(header, Boolean(headerText));
    setText(header, headerText ?? "");
    if (inForm) setAttr(el, "aria-labelledby", headerText ? headerId : null);
    const footerText = props[P.footer];
    show(footer, Boolean(footerText));
    setText(footer, footerText ?? "");
  },
};

/**
 * Shows or puts away a row's Delete button (the second step of deleting in edit mode); with
 * `moveFocus`, the focus follows: to the Delete button shown, back to the minus put away.
 */
function setConfirming(el, confirming, moveFocus) {
  const s = el._ss;
  if (confirming && !isEditing(el)) confirming = false;
  if (s.confirming === confirming) return;
  s.confirming = confirming;
  el.classList.toggle(CLS.confirming, confirming);
  s.del.setAttribute("aria-expanded", String(confirming));
  show(s.confirm, confirming);
  if (moveFocus) (confirming ? s.confirm : s.del).focus();
}

/** Moves a row's content into its button or its plain element, as `selectable` says. */
function setSelectable(s, selectable) {
  const next = selectable ? s.button : s.still;
  if (s.main === next) return;
  while (s.main.firstChild) next.appendChild(s.main.firstChild);
  s.main.replaceWith(next);
  s.main = next;
}

export const row = {
  create(node, context) {
    const id = nodeId(node);
    const send = (name, value) => context.send(id, name, value);
    const titleId = uid("title");
    const subtitleId = uid("subtitle");
    const detailId = uid("detail");
    const countdownId = uid("countdown");
    const badgeId = uid("badge");
    const timeId = uid("time");
    const image = h("img", { class: "ss-row-image", alt: "", hidden: true, loading: "lazy", decoding: "async" });
    const title = h("span", { class: "ss-row-title", id: titleId });
    const subtitle = h("span", { class: "ss-row-subtitle", id: subtitleId, hidden: true });
    // The badge reads "3" to the eye and "3 unread" to assistive technology (it describes the row).
    const badgeText = h("span", { "aria-hidden": "true" });
    const badgeSpoken = srOnly("");
    const badge = h("span", { class: "ss-badge ss-row-badge", id: badgeId, hidden: true }, badgeText, badgeSpoken);
    const detail = h("span", { class: "ss-row-detail", id: detailId, hidden: true });
    const chevron = h("span", { class: "ss-row-chevron", hidden: true }, icon("chevronRight"));
    const main = h("button", { type: "button", class: "ss-row-main" },
      image, h("span", { class: "ss-row-text" }, title, subtitle), badge, detail, chevron);
    main.addEventListener("click", () => send(ACTION.select));
    // A row nothing answers a selection of (`selectable: false`) shows its content in a plain
    // element instead: no button to press, to focus or to be read out as one.
    const still = h("div", { class: "ss-row-main ss-row-still" });

    const menu = new Menu((name) => send(name));
    // Every row has a Delete and a Reorder: each says which row it is for (its description is the
    // row's title), or a list of controls would read "Delete, Delete, Delete". Deleting takes two
    // steps, as in UIKit's edit mode: the red minus shows the row's own Delete button (and takes
    // the focus there), which deletes; Escape, the minus again, or leaving the row puts it away.
    // So no single press deletes, and Enter pressed twice on a list deletes one row, not two.
    const del = h("button", {
      type: "button", class: "ss-row-delete", "aria-label": TEXT.showDelete, "aria-describedby": titleId,
      "aria-expanded": "false", title: TEXT.showDelete, hidden: true,
    }, icon("minus"));
    const confirm = h("button", {
      type: "button", class: "ss-row-confirm-delete", "aria-describedby": titleId, hidden: true,
    }, TEXT.delete);
    del.setAttribute("aria-controls", uid("confirm"));
    confirm.id = del.getAttribute("aria-controls");
    del.addEventListener("click", () => setConfirming(el, !el._ss.confirming, true));
    confirm.addEventListener("click", () => send(ACTION.delete));
    const handle = h("button", {
      type: "button", class: "ss-row-handle", "aria-label": TEXT.reorder, "aria-describedby": titleId, hidden: true,
    }, icon("grip"));
    const error = h("div", { class: "ss-inline-error", role: "alert", hidden: true });
    const el = h("div", { class: "ss-row", role: "listitem" },
      h("div", { class: "ss-row-line" }, del, main, menu.button, confirm, handle), menu.list, error);
    el._ss = {
      main, button: main, still, image, confirm, confirming: false, title, subtitle, badge, badgeText, badgeSpoken, detail, chevron, menu, del, handle, error,
      subtitleId, badgeId, detailId, timeId, countdownId, send, errorTimer: 0,
      countdowns: context.countdowns, countdown: null, // the <time> while the row has a countdown
      time: null, // the <time> while the row shows its `time`
    };

    const tree = context.tree;
    const moveBy = (step) => {
      const record = tree.get(id);
      if (!record || !record.parent || record.props[P.movable] !== true) return false;
      const index = record.parent.kids.indexOf(record);
      const target = index + step;
      if (target < 0 || target >= record.parent.kids.length) return true;
      send(ACTION.move, target);
      return true;
    };
    el.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && el._ss.confirming) {
        event.preventDefault();
        event.stopPropagation();
        setConfirming(el, false, true);
        return;
      }
      if (!event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
      if (moveBy(event.key === "ArrowUp" ? -1 : 1)) event.preventDefault();
    });
    handle.addEventListener("keydown", (event) => {
      if (event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
      if (moveBy(event.key === "ArrowUp" ? -1 : 1)) event.preventDefault();
    });
    handle.addEventListener("pointerdown", (event) => {
      const record = tree.get(id);
      if (record && isEditing(el) && record.props[P.movable] === true) startDrag(event, record, (target) => send(ACTION.move, target));
    });
    // Leaving the row (focus elsewhere) puts its Delete away.
    el.addEventListener("focusout", (event) => {
      if (el._ss.confirming && !el.contains(event.relatedTarget)) setConfirming(el, false, false);
    });
    el.addEventListener("contextmenu", (event) => {
      if (menu.isEmpty || isEditing(el)) return;
      event.preventDefault();
      menu.open();
    });
    return el;
  },

  update(el, props) {
    const s = el._ss;
    setSelectable(s, props[P.selectable] !== false);
    const title = props[P.title] ?? "";
    setText(s.title, title);
    setAttr(s.main, "aria-label", s.main === s.button ? title : null);
    setAttr(el, ATTR.title, title);
    // The row whose content shows beside its list (a split's open conversation): marked, to the
    // eye and to assistive technology, as the server says.
    const selected = props[P.selected] === true;
    el.classList.toggle(CLS.selected, selected);
    setAttr(s.button, "aria-current", selected ? "true" : null);
    setAttr(s.still, "aria-current", selected ? "true" : null);
    const subtitle = props[P.subtitle];
    show(s.subtitle, Boolean(subtitle));
    setText(s.subtitle, subtitle ?? "");
    const badge = props[P.badge];
    const hasBadge = badge !== undefined && badge !== null && badge !== "";
    show(s.badge, hasBadge);
    setText(s.badgeText, hasBadge ? String(badge) : "");
    setText(s.badgeSpoken, hasBadge ? TEXT.unread(badge) : "");
    const detail = props[P.detail];
    // A countdown takes the detail's place, and so does a time (after a countdown); the detail text
    // comes back when they go.
    const deadline = props[P.countdown];
    const counting = Number.isFinite(deadline);
    const moment = props[P.time];
    const timed = !counting && isMoment(moment);
    show(s.detail, Boolean(detail) && !counting && !timed);
    setText(s.detail, detail ?? "");
    setAttr(el, ATTR.detail, detail ?? null);
    if (counting) showCountdown(el, deadline);
    else hideCountdown(el);
    if (timed) showTime(el, moment);
    else hideTime(el);
    const described = counting ? s.countdownId : timed ? s.timeId : detail ? s.detailId : null;
    setAttr(s.main, "aria-describedby", s.main !== s.button ? null
      : [subtitle ? s.subtitleId : null, hasBadge ? s.badgeId : null, described].filter(Boolean).join(" ") || null);
    const image = props[P.image];
    show(s.image, Boolean(image));
    el.classList.toggle(CLS.hasImage, Boolean(image));
    if (image && s.image.getAttribute("src") !== image) s.image.setAttribute("src", image);
    show(s.chevron, props[P.accessory] === ACCESSORY.disclosure);
    el.classList.toggle(CLS.hasDisclosure, props[P.accessory] === ACCESSORY.disclosure);
    show(s.del, props[P.deletable] === true);
    if (props[P.deletable] !== true) setConfirming(el, false, false);
    show(s.handle, props[P.movable] === true);
    const actions = Array.isArray(props[P.actions]) ? props[P.actions] : [];
    s.menu.setItems(actions.map((a) => ({ name: a[ITEM.name], label: a[ITEM.label] })), title);
    clearError(el);
  },

  settle: (el) => settleDrag(el),

  destroy(el) {
    clearTimeout(el._ss.errorTimer);
    el._ss.menu.close(false);
    // Stop ticking, but keep the last value drawn while the row animates out.
    if (el._ss.countdown) el._ss.countdowns.forget(el._ss.countdown);
    if (el._ss.time) forgetMoment(el._ss.time);
  },

  showError(el, message) {
    const s = el._ss;
    setText(s.error, message);
    show(s.error, true);
    clearTimeout(s.errorTimer);
    s.errorTimer = setTimeout(() => clearError(el), TIMING.inlineErrorLifetime);
    return true;
  },
};

function showCountdown(el, deadline) {
  const s = el._ss;
  if (!s.countdown) {
    s.countdown = s.countdowns.create({ class: "ss-row-countdown", id: s.countdownId });
    s.detail.after(s.countdown);
  }
  s.countdowns.watch(s.countdown, deadline);
}

function hideCountdown(el) {
  const s = el._ss;
  if (!s.countdown) return;
  s.countdowns.forget(s.countdown);
  s.countdown.remove();
  s.countdown = null;
}

function showTime(el, moment) {
  const s = el._ss;
  if (!s.time) {
    s.time = h("time", { class: "ss-row-time", id: s.timeId });
    s.detail.after(s.time);
  }
  showMoment(s.time, moment, true);
}

function hideTime(el) {
  const s = el._ss;
  if (!s.time) return;
  forgetMoment(s.time);
  s.time.remove();
  s.time = null;
}

function clearError(el) {
  const s = el._ss;
  if (s.error.hidden) return;
  clearTimeout(s.errorTimer);
  show(s.error, false);
  setText(s.error, "");
}

function isEditing(el) {
  const tableEl = el.closest(".ss-table");
  return Boolean(tableEl && tableEl.classList.contains(CLS.editing));
}

export { isEditing };
