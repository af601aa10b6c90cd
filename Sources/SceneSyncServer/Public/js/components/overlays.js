// Overlays: alert (modal, focus trapped, Escape = the cancel button) and notice (toast; one that
// tells of a delete offers Undo, also as ⌘Z / Ctrl+Z outside a text field).
import { ACTION, CLS, ITEM, P, ROLE, TEXT, TIMING, nodeId } from "../protocol.js";
import { animate, focusQuietly, focusables, h, icon, setText, show, uid } from "../dom.js";

export const alert = {
  create(node, context) {
    const id = nodeId(node);
    const titleId = uid("alert-title");
    const messageId = uid("alert-message");
    const title = h("h2", { class: "ss-alert-title", id: titleId });
    const message = h("p", { class: "ss-alert-message", id: messageId, hidden: true });
    const buttons = h("div", { class: "ss-alert-buttons" });
    const dialog = h("div", {
      class: "ss-alert", role: "alertdialog", "aria-modal": "true", "aria-labelledby": titleId, "aria-describedby": messageId,
    }, h("div", { class: "ss-alert-content" }, title, message), buttons);
    const el = h("div", { class: "ss-alert-backdrop" }, dialog);
    const s = { dialog, title, message, buttons, key: "", chosen: false, cancel: null };
    el._ss = s;
    s.choose = (name) => {
      if (s.chosen) return;
      s.chosen = true;
      el.classList.add(CLS.busy);
      dialog.setAttribute("aria-busy", "true");
      context.send(id, name);
    };
    dialog.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        if (s.cancel !== null) s.choose(s.cancel);
      } else if (event.key === "Tab") {
        const items = focusables(dialog);
        if (!items.length) return;
        const first = items[0];
        const last = items[items.length - 1];
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          focusQuietly(last);
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          focusQuietly(first);
        }
      }
    });
    // Keep focus inside while the alert is on top (a click on the backdrop must not drop it).
    el.addEventListener("mousedown", (event) => {
      if (event.target === el) event.preventDefault();
    });
    return el;
  },

  update(el, props) {
    const s = el._ss;
    setText(s.title, props[P.title] ?? "");
    show(s.message, Boolean(props[P.message]));
    setText(s.message, props[P.message] ?? "");
    const buttons = Array.isArray(props[P.buttons]) ? props[P.buttons] : [];
    const key = JSON.stringify(buttons);
    if (key === s.key) return;
    s.key = key;
    s.chosen = false;
    el.classList.remove(CLS.busy);
    s.cancel = null;
    s.buttons.replaceChildren(...buttons.map((item) => {
      const role = item[ITEM.role];
      if (role === ROLE.cancel && s.cancel === null) s.cancel = item[ITEM.name];
      const button = h("button", { type: "button", class: `ss-alert-button${role ? ` ${CLS.role(role)}` : ""}` }, item[ITEM.label] ?? "");
      button.addEventListener("click", () => s.choose(item[ITEM.name]));
      return button;
    }));
    s.buttons.classList.toggle(CLS.stacked, buttons.length !== 2);
  },

  mounted(el) {
    const first = el._ss.buttons.querySelector("button");
    if (first) focusQuietly(first);
    else focusQuietly(el._ss.dialog);
  },

  enter(el) {
    animate(el, [{ opacity: 0 }, { opacity: 1 }], { duration: 200 });
    return animate(el._ss.dialog, [{ transform: "scale(1.12)", opacity: 0 }, { transform: "none", opacity: 1 }], { duration: 240 });
  },

  leave(el) {
    return animate(el, [{ opacity: 1 }, { opacity: 0 }], { duration: 180, fill: "forwards" });
  },
};

export const notice = {
  create(node, context) {
    const id = nodeId(node);
    const message = h("span", { class: "ss-notice-message" });
    const undoButton = h("button", { type: "button", class: "ss-notice-undo" });
    const dismissButton = h("button", { type: "button", class: "ss-notice-dismiss", "aria-label": TEXT.dismiss }, icon("close"));
    const el = h("div", { class: "ss-notice", role: "status" }, message, undoButton, dismissButton);
    const s = { message, undoButton, timer: 0, sent: false, paused: false };
    el._ss = s;
    const settle = (action) => {
      if (s.sent) return;
      s.sent = true;
      clearTimeout(s.timer);
      context.send(id, action);
    };
    const dismiss = () => settle(ACTION.dismiss);
    s.dismiss = dismiss;
    s.undo = () => settle(ACTION.tap);
    dismissButton.addEventListener("click", dismiss);
    undoButton.addEventListener("click", s.undo);
    // Passing notices go by themselves, unless the pointer or focus is on them, or the window is hidden.
    s.schedule = () => {
      clearTimeout(s.timer);
      s.timer = setTimeout(() => {
        if (s.paused || document.visibilityState !== "visible") s.schedule();
        else dismiss();
      }, TIMING.noticeAutoDismiss);
    };
    const pause = () => { s.paused = true; };
    const resume = () => { s.paused = false; s.schedule(); };
    el.addEventListener("pointerenter", pause);
    el.addEventListener("pointerleave", resume);
    el.addEventListener("focusin", pause);
    el.addEventListener("focusout", resume);
    return el;
  },

  update(el, props) {
    setText(el._ss.message, props[P.message] ?? "");
    const undo = props[P.undo];
    show(el._ss.undoButton, typeof undo === "string");
    if (typeof undo === "string") setText(el._ss.undoButton, undo);
  },

  mounted(el) {
    el._ss.schedule();
  },

  destroy(el) {
    clearTimeout(el._ss.timer);
  },

  enter(el) {
    return animate(el, [{ opacity: 0, transform: "translateY(16px) scale(0.98)" }, { opacity: 1, transform: "none" }], { duration: 260 });
  },

  leave(el) {
    return animate(el, [{ opacity: 1 }, { opacity: 0, transform: "translateY(8px)" }], { duration: 200, fill: "forwards" });
  },
};

// ⌘Z / Ctrl+Z outside a text field (where it undoes typing): the newest notice that offers Undo
// undoes, as its button does.
if (typeof document !== "undefined") {
  document.addEventListener("keydown", (event) => {
    if (event.key.toLowerCase() !== "z" || !(event.metaKey || event.ctrlKey) || event.shiftKey || event.altKey) return;
    if (event.target instanceof Element && event.target.closest("input, textarea, [contenteditable]")) return;
    const offering = [...document.querySelectorAll(".ss-notice")].filter((el) => el._ss && !el._ss.sent && !el._ss.undoButton.hidden);
    const newest = offering.at(-1);
    if (!newest) return;
    event.preventDefault();
    newest._ss.undo();
  });
}
