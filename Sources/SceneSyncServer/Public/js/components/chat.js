// Conversations: messageList (a scrolling log, newest at the bottom), message, composer (a field for
// a new message and its send button). Only the apps that name this module load it
// (HostedApp.RendererModule.chat). A message list stays at the bottom while the
// user is there, keeps what they are reading where it is when earlier messages come in above, and
// taps its "Load Earlier" button by itself when the button scrolls into view. The composer's text
// is the window's draft: typing sends `draft` (debounced), Enter or the button sends `send` (the
// button is disabled while the field holds only white space); the server answers a send by setting
// `value` to "", which clears the field only if it still holds the text sent (what the user typed
// since stays).
import { ACTION, ATTR, CLS, KIND, P, TIMING, nodeId } from "../protocol.js";
import { animate, focusQuietly, h, motionAllowed, setAttr, setText, show, uid } from "../dom.js";
import { isMoment, showMoment } from "../times.js";
import { showInlineError } from "./form.js";

/** How near the bottom (px) a message list still counts as at the bottom. */
const PIN_SLACK = 40;
/** How far above the view (px) the Load Earlier button already counts as in view. */
const EARLIER_MARGIN = "160px 0px 0px 0px";
/** How long (ms) the scroll events of a smooth scroll to the bottom are the list's own. */
const SMOOTH_SCROLL = 700;
/** At most this many characters of a message are announced. */
const ANNOUNCED_LENGTH = 200;

const isLive = (el) => el.hasAttribute(ATTR.nodeId); // not an element animating out

const MESSAGE_LIST = "ss-message-list";

// MARK: - Message list

export const messageList = {
  create(node, context) {
    // A log, but not a live one: a page of earlier messages must not be read out. New messages
    // at the bottom are announced through the window's own polite announcer instead.
    const el = h("div", { class: MESSAGE_LIST, role: "log", "aria-live": "off", tabindex: "0" });
    const s = {
      tree: context.tree, view: context.view, send: context.send,
      record: null,
      pinned: true, // at (or near) the bottom: what comes in at the bottom keeps it there
      anchor: null, // the first message in view, and how far below the top of the view it starts
      anchorTop: 0,
      ownScrollUntil: 0, // a smooth scroll to the bottom is under way until then
      earlier: null, // the Load Earlier button's element, while it is the first child
      tapped: null, // {record, props} of the button tapped: not again until the list or the button changes
    };
    el._ss = s;
    el.addEventListener("scroll", () => {
      if (performance.now() >= s.ownScrollUntil) s.pinned = fromBottom(el) <= PIN_SLACK;
      noteAnchor(el);
    }, { passive: true });
    // Shown at last (a narrow split's other pane), resized, or the composer below it grew: keep to
    // the bottom, or keep what is read in place.
    s.resize = new ResizeObserver(() => {
      if (el.clientHeight === 0) return;
      if (s.pinned) toBottom(el, false);
      else keepAnchor(el);
    });
    s.children = new MutationObserver((records) => childrenChanged(el, records));
    s.intersection = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting && entry.target === s.earlier)) tapEarlier(el);
    }, { root: el, rootMargin: EARLIER_MARGIN });
    return el;
  },

  update(el, props, previous, context, record) {
    setAttr(el, "aria-label", props[P.label]);
    el._ss.record = record;
  },

  mounted(el) {
    const s = el._ss;
    group(el);
    toBottom(el, false); // newest at the bottom, from the first draw on
    s.resize.observe(el);
    s.children.observe(el, { childList: true }); // from now on: children after the first draw
    watchEarlier(el);
  },

  destroy(el) {
    const s = el._ss;
    s.resize.disconnect();
    s.children.disconnect();
    s.intersection.disconnect();
  },
};

function fromBottom(el) {
  return el.scrollHeight - el.scrollTop - el.clientHeight;
}

/** Scrolls to the newest message; smoothly when a message just came in (and motion is allowed). */
function toBottom(el, smooth) {
  const s = el._ss;
  s.pinned = true;
  const top = Math.max(0, el.scrollHeight - el.clientHeight);
  if (smooth && motionAllowed()) {
    s.ownScrollUntil = performance.now() + SMOOTH_SCROLL;
    el.scrollTo({ top, behavior: "smooth" });
  } else {
    el.scrollTop = top;
    noteAnchor(el);
  }
}

/** Remembers the first message in view and where it is, to keep it there when others come in above. */
function noteAnchor(el) {
  const s = el._ss;
  const items = el.children;
  const top = el.scrollTop;
  let low = 0;
  let high = items.length - 1;
  let first = items.length;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const item = items[middle];
    if (item.offsetTop + item.offsetHeight > top) {
      first = middle;
      high = middle - 1;
    } else {
      low = middle + 1;
    }
  }
  let anchor = null;
  for (let i = first; i < items.length && !anchor; i += 1) {
    const record = s.tree.get(items[i].getAttribute(ATTR.nodeId));
    if (record && record.el === items[i] && record.kind === KIND.message) anchor = items[i];
  }
  s.anchor = anchor;
  s.anchorTop = anchor ? anchor.offsetTop - top : 0;
}

/** Scrolls so the remembered message is where it was. */
function keepAnchor(el) {
  const s = el._ss;
  if (!s.anchor || s.anchor.parentNode !== el || !isLive(s.anchor)) {
    noteAnchor(el);
    return;
  }
  const target = s.anchor.offsetTop - s.anchorTop;
  if (Math.abs(el.scrollTop - target) >= 1) el.scrollTop = target;
}

/** Children came or went (after the first draw): keep the view, announce what arrived at the bottom. */
function childrenChanged(el, records) {
  const s = el._ss;
  const added = new Set(records.flatMap((r) => [...r.addedNodes]));
  // What came in at the bottom: the last children, back to the first that was there before.
  const arrived = [];
  for (let child = el.lastElementChild; child && added.has(child); child = child.previousElementSibling) {
    const record = isLive(child) ? s.tree.get(child.getAttribute(ATTR.nodeId)) : null;
    if (record && record.kind === KIND.message) arrived.unshift(record);
  }
  group(el);
  const sentHere = arrived.some((record) => record.props[P.fromHere] === true);
  if (el.clientHeight > 0) {
    // A message this window sent always shows; others only keep the list at the bottom if it was there.
    if (s.pinned || sentHere) toBottom(el, arrived.length > 0);
    else keepAnchor(el);
    const heard = arrived.filter((record) => record.props[P.fromHere] !== true);
    if (heard.length > 0) s.view.announce(heard.map(spoken).join("\n"));
  }
  watchEarlier(el);
}

/** A message as announced: "Ann: See you at eight". */
function spoken(record) {
  const text = String(record.props[P.text] ?? "");
  const short = text.length > ANNOUNCED_LENGTH ? `${text.slice(0, ANNOUNCED_LENGTH - 1)}…` : text;
  return `${record.props[P.sender] ?? ""}: ${short}`;
}

/**
 * Groups the messages: one sender's, on one day (in the window's time zone), each less than
 * TIMING.messageGroup after the group's first; anything else between them (Load Earlier, an empty
 * state) ends a group. A group shows its sender's name and its time once, on its first message;
 * the others keep both for assistive technology only (CLS.continued), so every message is still
 * read with its sender and time.
 *
 * The time goes on the first message rather than the last (as iMessage puts it after a pause):
 * with the name, it heads the group ("Ana 9:41", then her bubbles), and it is the time the group
 * began, which no message in it is more than a few minutes past. And what comes in at the bottom
 * changes nothing above it: with the time on the last, each new message would take it away from
 * the bubble before, as the list scrolls. Run again whenever the children or a message's sender,
 * time or side change, so pages inserted at the top, messages appended or removed, regroup.
 */
function group(el) {
  let head = null; // the props of the current group's first message
  for (const kid of el._ss.record?.kids ?? []) {
    if (kid.kind !== KIND.message) {
      head = null;
      continue;
    }
    const p = kid.props;
    const continued = head !== null && sameGroup(head, p);
    if (!continued) head = p;
    kid.el.classList.toggle(CLS.continued, continued);
  }
}

/** Whether the message `p` belongs to the group that `head` begins. */
function sameGroup(head, p) {
  if (head[P.sender] !== p[P.sender] || (head[P.mine] === true) !== (p[P.mine] === true)) return false;
  if (!isMoment(head[P.time]) || !isMoment(p[P.time])) return false;
  const since = p[P.time] - head[P.time];
  return since >= 0 && since < TIMING.messageGroup && new Date(head[P.time]).toDateString() === new Date(p[P.time]).toDateString();
}

/** Groups the list `el` is in again, if it is in one (not when first drawn: the list groups then). */
function regroupAround(el) {
  const list = el.parentElement;
  if (list && list._ss && list._ss.record && list.classList.contains(MESSAGE_LIST)) group(list);
}

/**
 * Watches the Load Earlier button (a `button` first among the children) for coming into view. Runs
 * when the children change, so a button tapped (and waiting for its page) may be tapped again:
 * observing again reports at once whether it is in view.
 */
function watchEarlier(el) {
  const s = el._ss;
  const first = s.record?.kids[0];
  const target = first && first.kind === KIND.button ? first.el : null;
  s.tapped = null;
  if (s.earlier && s.earlier !== target) s.intersection.unobserve(s.earlier);
  s.earlier = target;
  if (!target) return;
  s.intersection.unobserve(target);
  s.intersection.observe(target);
}

/** Taps the Load Earlier button as a click would, once until the button or the list changes. */
function tapEarlier(el) {
  const s = el._ss;
  const record = s.record?.kids[0];
  if (!record || record.kind !== KIND.button || record.el !== s.earlier || record.props[P.disabled] === true) return;
  if (s.tapped && s.tapped.record === record && s.tapped.props === record.props) return;
  s.tapped = { record, props: record.props };
  s.send(record.id, ACTION.tap);
}

// MARK: - Message

export const message = {
  create() {
    const sender = h("span", { class: "ss-message-sender" });
    const text = h("p", { class: "ss-message-text" });
    const time = h("time", { class: "ss-message-time", hidden: true });
    const el = h("div", { class: "ss-message" },
      sender, h("div", { class: "ss-message-line" }, h("div", { class: "ss-message-bubble" }, text), time));
    el._ss = { sender, text, time, mine: false, fromHere: false };
    return el;
  },

  update(el, props, previous) {
    const s = el._ss;
    // Text, never markup; newlines show (white-space: pre-wrap).
    setText(s.sender, props[P.sender] ?? "");
    setText(s.text, props[P.text] ?? "");
    s.mine = props[P.mine] === true;
    s.fromHere = props[P.fromHere] === true;
    el.classList.toggle(CLS.mine, s.mine);
    const time = props[P.time];
    show(s.time, isMoment(time));
    if (isMoment(time)) showMoment(s.time, time);
    // A `set` that moves the message into or out of a group (its own or its neighbours').
    const first = Object.keys(previous).length === 0; // drawn now: the list groups its children itself
    if (!first && [P.sender, P.time, P.mine].some((key) => previous[key] !== props[key])) regroupAround(el);
  },

  enter(el) {
    const s = el._ss;
    // Earlier messages coming in above the ones shown just appear.
    for (let next = el.nextElementSibling; next; next = next.nextElementSibling) {
      if (isLive(next)) return Promise.resolve();
    }
    if (s.fromHere) {
      // Sent from here: it rises from the composer.
      return animate(el, [{ opacity: 0, transform: "translateY(48px) scale(0.96)" }, { opacity: 1, transform: "none" }],
        { duration: 340 });
    }
    // Arrived: it slides in from its own side (trailing for the window's person, leading for others).
    const rtl = getComputedStyle(el).direction === "rtl";
    const offset = (s.mine ? 1 : -1) * (rtl ? -1 : 1) * 24;
    return animate(el, [{ opacity: 0, transform: `translateX(${offset}px)` }, { opacity: 1, transform: "none" }],
      { duration: 300 });
  },

  leave(el) {
    regroupAround(el); // now, not once it has faded out: the next message may head its group now
    return animate(el, [{ opacity: 1 }, { opacity: 0, transform: "scale(0.96)" }], { duration: 180, fill: "forwards" });
  },
};

// MARK: - Composer

export const composer = {
  create(node, context) {
    const id = nodeId(node);
    const send = (name, value) => context.send(id, name, value);
    const errorId = uid("error");
    // Named by `label`, which is its placeholder too (a visually hidden <label> reads as hidden to checkers).
    const input = h("textarea", { class: "ss-composer-input", rows: "1", autocomplete: "off", enterkeyhint: "send" });
    const button = h("button", { type: "button", class: "ss-composer-send" });
    const error = h("p", { class: "ss-composer-error", id: errorId, hidden: true });
    const el = h("div", { class: "ss-composer" }, h("div", { class: "ss-composer-line" }, input, button), error);
    const s = {
      input, button, error, errorId,
      disabled: false, // the server's `disabled`
      server: null, // the last `value` the server sent (null: none yet)
      sent: null, // the text of the send not answered yet
      timer: 0, // the debounced draft
      pendingSince: 0, // when the first change not yet sent as a draft was made
      clientError: null,
      serverError: null,
      errorTimer: 0,
    };
    el._ss = s;

    // Debounced, but sent at least once a second while the user types on, so that the server
    // hears of typing (it tells the other people's windows) without waiting for a pause.
    s.flushDraft = () => {
      clearTimeout(s.timer);
      s.timer = 0;
      s.pendingSince = 0;
      send(ACTION.draft, input.value);
    };
    s.scheduleDraft = () => {
      clearTimeout(s.timer);
      const now = performance.now();
      if (!s.pendingSince) s.pendingSince = now;
      if (now - s.pendingSince >= TIMING.draftMaxWait) return s.flushDraft();
      s.timer = setTimeout(s.flushDraft, TIMING.draftDebounce);
    };
    const sendText = () => {
      // Empty text goes too: the server says what is wrong with it.
      clearTimeout(s.timer);
      s.timer = 0;
      s.pendingSince = 0;
      s.sent = input.value;
      s.clientError = null;
      refresh(el);
      if (send(ACTION.send, s.sent) === null) s.sent = null; // too long: the view says so
    };
    input.addEventListener("input", () => {
      s.clientError = null;
      s.scheduleDraft();
      fit(input);
      refresh(el);
    });
    input.addEventListener("keydown", (event) => {
      // Enter sends; Shift+Enter is a new line.
      if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      sendText();
    });
    input.addEventListener("focus", () => fit(input));
    button.addEventListener("click", () => {
      sendText();
      focusQuietly(input); // keep typing
    });
    return el;
  },

  update(el, props) {
    const s = el._ss;
    const { input } = s;
    const name = props[P.label] ?? "";
    setAttr(input, "aria-label", name || null);
    setAttr(input, "placeholder", name || null);
    setText(s.button, props[P.button] ?? "");
    s.disabled = props[P.disabled] === true;
    input.disabled = s.disabled;
    const value = props[P.value] === undefined || props[P.value] === null ? "" : String(props[P.value]);
    if (s.server === null) {
      input.value = value; // first drawn: the window's draft
    } else if (s.sent !== null && value === "") {
      // The answer to this window's send: the text sent goes, what was typed since stays.
      if (input.value === s.sent) input.value = "";
      else if (s.sent !== "" && input.value.startsWith(s.sent)) keepTypedSince(s, s.sent.length);
      s.sent = null;
    } else if (value !== s.server && (document.activeElement !== input || input.value === s.server)) {
      input.value = value; // such as a draft restored; never over the user's typing
    }
    s.server = value;
    s.serverError = props[P.error] ?? null;
    fit(input);
    refresh(el);
  },

  mounted: (el) => fit(el._ss.input),

  destroy(el) {
    clearTimeout(el._ss.timer);
    clearTimeout(el._ss.errorTimer);
  },

  showError(el, message) {
    el._ss.sent = null; // refused: the text stays
    return showInlineError(el, message, refresh);
  },
};

/** Takes the first `length` characters (the text sent) out of the field, keeping the caret, and says so in a draft. */
function keepTypedSince(s, length) {
  const { input } = s;
  const start = Math.max(0, input.selectionStart - length);
  const end = Math.max(0, input.selectionEnd - length);
  input.value = input.value.slice(length);
  if (document.activeElement === input) input.setSelectionRange(start, end);
  s.scheduleDraft(); // a draft sent since held the text sent too
}

/** Grows the field with its text, up to its CSS max-height (past which it scrolls). */
function fit(input) {
  input.style.height = "";
  if (!input.isConnected || input.clientHeight === 0) return; // not laid out (a hidden pane): as CSS says
  if (input.scrollHeight > input.clientHeight) input.style.height = `${input.scrollHeight + input.offsetHeight - input.clientHeight}px`;
}

function refresh(el) {
  const s = el._ss;
  // Nothing to send until there is more than white space; Enter still sends, and the server says what is wrong.
  s.button.disabled = s.disabled || !/\S/.test(s.input.value);
  const message = s.clientError ?? s.serverError;
  show(s.error, Boolean(message));
  setText(s.error, message ?? "");
  setAttr(s.error, "role", message ? "alert" : null);
  el.classList.toggle(CLS.invalid, Boolean(message));
  setAttr(s.input, "aria-invalid", message ? "true" : null);
  setAttr(s.input, "aria-describedby", message ? s.errorId : null);
}
