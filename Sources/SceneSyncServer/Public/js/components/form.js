// Forms: form, textField, label (read-only), button.
//
// A text field shows `draft` (unsaved text) if there is one, else `value`. Typing sends `draft`
// (debounced); blur or Enter sends `commit` if the text differs from the server's value; Escape
// goes back to the server's value. A new server value that arrives while the user is typing a
// different text does not replace it: the field says "Changed in another window" until blur/commit.
// The server's answer to this window's own commit carries `accepted`, the text committed: the
// field then shows the value as stored (trimmed, say) in place of that text. A `staged` field (a
// form's, used by its button later) is never marked as not saved.
import { ACTION, ATTR, CLS, INPUT_MODE, P, ROLE, TEXT, TIMING, nodeId } from "../protocol.js";
import { h, setAttr, setText, show, uid } from "../dom.js";

export const form = {
  create: () => h("div", { class: "ss-form" }),
  update() {},
};

export const textField = {
  create(node, context) {
    const id = nodeId(node);
    const send = (name, value) => context.send(id, name, value);
    const inputId = uid("field");
    const errorId = uid("error");
    const changedId = uid("changed");
    const unsavedId = uid("unsaved");
    const hintId = uid("hint");
    const label = h("label", { class: "ss-field-label", for: inputId });
    const input = h("input", { class: "ss-field-input", id: inputId, type: "text", autocomplete: "off", spellcheck: "false" });
    const dot = h("span", { class: "ss-field-dot", "aria-hidden": "true", title: TEXT.unsaved });
    const unsaved = h("span", { class: CLS.visuallyHidden, id: unsavedId }, TEXT.unsaved);
    const changed = h("p", { class: "ss-field-changed", id: changedId, role: "status", hidden: true }, TEXT.changedElsewhere);
    const error = h("p", { class: "ss-field-error", id: errorId, hidden: true });
    const hint = h("p", { class: "ss-field-hint", id: hintId, hidden: true });
    const el = h("div", { class: "ss-field" },
      h("div", { class: "ss-field-line" }, label, dot, input), unsaved, changed, error, hint);
    const s = {
      input, label, error, changed, unsaved, hint, errorId, changedId, unsavedId, hintId,
      server: "", // the last value the server sent
      committed: null, // text sent with commit, not yet reflected in `server`
      draftSent: false,
      timer: 0,
      changedElsewhere: false,
      clientError: null,
      serverError: null,
      // The server's error for text since changed: not shown, until the field is committed again.
      setAside: null,
      errorTimer: 0,
    };
    el._ss = s;

    const commit = () => {
      clearTimeout(s.timer);
      const text = input.value;
      if (text !== s.server && text !== s.committed) {
        s.committed = text;
        s.draftSent = false;
        // Until the answer: the error set aside stays away only if this text is accepted (the
        // server then clears it); refused again with the same words, it shows again.
        if (s.setAside !== null) s.serverError = s.setAside;
        s.setAside = null;
        send(ACTION.commit, text);
      }
      s.changedElsewhere = false;
      refresh(el);
    };
    input.addEventListener("input", () => {
      s.committed = null;
      s.clientError = null;
      // The error was about the text refused; this is other text.
      if (s.serverError !== null) {
        s.setAside = s.serverError;
        s.serverError = null;
      }
      clearTimeout(s.timer);
      s.timer = setTimeout(() => {
        s.draftSent = true;
        send(ACTION.draft, input.value);
      }, TIMING.draftDebounce);
      refresh(el);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.isComposing) {
        event.preventDefault();
        commit();
      } else if (event.key === "Escape") {
        if (input.value === s.server && !s.changedElsewhere) return; // nothing to revert: let Escape through
        event.preventDefault();
        event.stopPropagation();
        clearTimeout(s.timer);
        input.value = s.server;
        if (s.draftSent) send(ACTION.draft, s.server);
        s.draftSent = false;
        s.committed = null;
        s.changedElsewhere = false;
        refresh(el);
      }
    });
    input.addEventListener("blur", commit);
    return el;
  },

  update(el, props) {
    const s = el._ss;
    const { input } = s;
    setText(s.label, props[P.label] ?? "");
    setAttr(input, "placeholder", props[P.placeholder]);
    input.readOnly = props[P.readOnly] === true;
    s.staged = props[P.staged] === true;
    const numeric = props[P.inputMode] === INPUT_MODE.numeric;
    setAttr(input, "inputmode", numeric ? "numeric" : null);
    el.classList.toggle(CLS.numeric, numeric);
    const value = props[P.value] === undefined || props[P.value] === null ? "" : String(props[P.value]);
    const answersCommit = s.committed !== null && props[P.accepted] === s.committed;
    if (document.activeElement === input) {
      if (answersCommit && input.value === s.committed) {
        input.value = value; // this window's own commit, as stored
        s.server = value;
        s.changedElsewhere = false;
      } else if (value !== s.server) {
        if (input.value === s.server) {
          input.value = value; // not typed in yet: just take the new value
        } else if (input.value !== value) {
          s.changedElsewhere = true; // keep the user's text
        }
        s.server = value;
      }
      if (input.value === value) s.changedElsewhere = false;
    } else {
      s.server = value;
      const draft = props[P.draft];
      const text = draft === undefined || draft === null ? value : String(draft);
      if (input.value !== text) input.value = text;
      s.changedElsewhere = false;
    }
    if (answersCommit || s.committed === value) s.committed = null;
    const serverError = props[P.error] ?? null;
    if (serverError === null) s.setAside = null;
    s.serverError = serverError !== null && serverError === s.setAside ? null : serverError;
    const hint = props[P.hint] ?? null;
    show(s.hint, Boolean(hint));
    setText(s.hint, hint ?? "");
    refresh(el);
  },

  destroy(el) {
    clearTimeout(el._ss.timer);
    clearTimeout(el._ss.errorTimer);
  },

  showError: (el, message) => showInlineError(el, message, refresh),
};

/**
 * Shows `message` under a field (its `_ss.clientError`) for `TIMING.inlineErrorLifetime`, drawn by
 * the field's own `refresh`; for the `showError` of components with a field.
 */
export function showInlineError(el, message, refresh) {
  const s = el._ss;
  s.clientError = message;
  clearTimeout(s.errorTimer);
  s.errorTimer = setTimeout(() => {
    s.clientError = null;
    refresh(el);
  }, TIMING.inlineErrorLifetime);
  refresh(el);
  return true;
}

function refresh(el) {
  const s = el._ss;
  // A staged field's text waits for its form's button, not to be saved: it is never marked.
  const unsaved = !s.staged && s.input.value !== s.server;
  el.classList.toggle(CLS.unsaved, unsaved);
  setAttr(el, ATTR.unsaved, unsaved ? "true" : null);
  el.classList.toggle(CLS.changedElsewhere, s.changedElsewhere);
  setAttr(el, ATTR.changedElsewhere, s.changedElsewhere ? "true" : null);
  show(s.changed, s.changedElsewhere);
  const message = s.clientError ?? s.serverError;
  show(s.error, Boolean(message));
  setText(s.error, message ?? "");
  setAttr(s.error, "role", s.clientError ? "alert" : null);
  el.classList.toggle(CLS.invalid, Boolean(message));
  setAttr(s.input, "aria-invalid", message ? "true" : null);
  const described = [message ? s.errorId : null, s.changedElsewhere ? s.changedId : null, unsaved ? s.unsavedId : null,
    s.hint.hidden ? null : s.hintId].filter(Boolean);
  setAttr(s.input, "aria-describedby", described.length ? described.join(" ") : null);
}

export const label = {
  create() {
    const name = h("span", { class: "ss-labelrow-label" });
    const value = h("span", { class: "ss-labelrow-value" });
    const el = h("div", { class: "ss-labelrow" }, name, value);
    el._ss = { name, value };
    return el;
  },
  update(el, props) {
    setText(el._ss.name, props[P.label] ?? "");
    setText(el._ss.value, props[P.value] === undefined || props[P.value] === null ? "" : String(props[P.value]));
  },
};

export const button = {
  create(node, context) {
    const id = nodeId(node);
    const control = h("button", { type: "button", class: "ss-button" });
    control.addEventListener("click", () => context.send(id, ACTION.tap));
    const error = h("div", { class: "ss-inline-error", role: "alert", hidden: true });
    const el = h("div", { class: "ss-button-wrap" }, control, error);
    el._ss = { control, error, timer: 0 };
    return el;
  },
  update(el, props) {
    const { control } = el._ss;
    setText(control, props[P.label] ?? "");
    control.disabled = props[P.disabled] === true;
    control.classList.toggle(CLS.role(ROLE.primary), props[P.role] === ROLE.primary);
    control.classList.toggle(CLS.role(ROLE.destructive), props[P.role] === ROLE.destructive);
  },
  destroy(el) {
    clearTimeout(el._ss.timer);
  },
  showError(el, message) {
    const s = el._ss;
    setText(s.error, message);
    show(s.error, true);
    clearTimeout(s.timer);
    s.timer = setTimeout(() => show(s.error, false), TIMING.inlineErrorLifetime);
    return true;
  },
};
