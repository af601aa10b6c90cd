// Countdowns: a row's `countdown` is a deadline on the server's clock (milliseconds since 1970, UTC),
// and the row shows the time left, ticking in the browser. Deadlines are read on the server's clock
// through the offset the last `welcome` gave (its `time` minus the browser's clock), so a browser
// whose clock is wrong still counts right. Ticking is local: the server is told nothing when a
// countdown ticks or runs out; when something is due, it changes the row.
//
// One timer serves the whole window, not one per row: it is set for the next moment a shown
// countdown's second changes, redraws every countdown against one reading of the clock, and is not
// set at all while no countdown is shown or every one shown is at 0:00.
import { TEXT } from "./protocol.js";
import { h, setAttr, setText, srOnly } from "./dom.js";

const SECOND = 1000;

/** Whole seconds left, rounded up: a countdown reads 0:00 from its deadline on, not a second before. */
export function secondsLeft(ms) {
  return ms > 0 ? Math.ceil(ms / SECOND) : 0;
}

function split(seconds) {
  return [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
}

const two = (n) => String(n).padStart(2, "0");

/** What the countdown shows: `m:ss`, or `h:mm:ss` at an hour or more. */
export function clockText(seconds) {
  const [hours, minutes, secs] = split(seconds);
  return hours > 0 ? `${hours}:${two(minutes)}:${two(secs)}` : `${minutes}:${two(secs)}`;
}

/** The `<time>` element's `datetime`: a duration such as `PT4M7S`, `PT1H0M5S` or `PT0S`. */
export function durationText(seconds) {
  const [hours, minutes, secs] = split(seconds);
  if (hours > 0) return `PT${hours}H${minutes}M${secs}S`;
  return minutes > 0 ? `PT${minutes}M${secs}S` : `PT${secs}S`;
}

/** Milliseconds until a countdown that has `ms` left shows one second less. */
function untilNextSecond(ms) {
  return ms - (secondsLeft(ms) - 1) * SECOND;
}

export class Countdowns {
  constructor() {
    this.clockOffset = 0; // the server's clock minus the browser's, in ms, from the last welcome
    this.shown = new Map(); // <time> element → its deadline
    this.timer = 0;
    this.due = 0; // Date.now() when the timer fires
    this.parts = new WeakMap(); // <time> element → {text, spoken, seconds}
    // Background tabs hold timers back (by up to a minute): a window coming back redraws at once.
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.shown.size > 0) this.tick();
    });
  }

  /**
   * A `welcome` arrived with `time`, the server's clock when it sent it: deadlines are read on
   * that clock from now on. (Without a usable `time`, on the browser's own.)
   */
  setServerTime(time) {
    this.clockOffset = Number.isFinite(time) ? time - Date.now() : 0;
    if (this.shown.size > 0) this.tick();
  }

  /** The server's clock, as well as this window knows it. */
  now() {
    return Date.now() + this.clockOffset;
  }

  /** Whether the window's countdown timer is set (tests read it). */
  get running() {
    return this.timer !== 0;
  }

  /**
   * A `<time>` for a countdown: the clock text for the eye (`1:05`), and for assistive technology
   * the same in words ("1 minute 5 seconds left"). Not a live region: it would speak every second.
   */
  create(attrs) {
    const text = h("span", { "aria-hidden": "true" });
    const spoken = srOnly("");
    const el = h("time", attrs, text, spoken);
    this.parts.set(el, { text, spoken, seconds: null });
    return el;
  }

  /** Shows in `el` (from `create`) the time left until `deadline`, and keeps it ticking. */
  watch(el, deadline) {
    this.shown.set(el, deadline);
    const left = deadline - this.now();
    this.draw(el, left);
    if (left > 0) this.wake(untilNextSecond(left));
  }

  /** `el` shows no countdown any more (its row lost its countdown, or left). */
  forget(el) {
    if (this.shown.delete(el) && this.shown.size === 0) this.stop();
  }

  /** Redraws every countdown, forgets those no longer in the document, and sets the timer again. */
  tick() {
    this.stop();
    const now = this.now();
    let wait = Infinity;
    for (const [el, deadline] of this.shown) {
      if (!el.isConnected) {
        // Its row went without being destroyed (say, the whole view was dropped).
        this.shown.delete(el);
        continue;
      }
      const left = deadline - now;
      this.draw(el, left);
      if (left > 0) wait = Math.min(wait, untilNextSecond(left));
    }
    if (wait !== Infinity) this.wake(wait);
  }

  /** Makes sure the timer fires within `wait` ms. */
  wake(wait) {
    const due = Date.now() + wait;
    if (this.timer !== 0 && this.due <= due) return;
    clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.tick();
    }, wait);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = 0;
  }

  draw(el, left) {
    const parts = this.parts.get(el);
    const seconds = secondsLeft(left);
    if (!parts || parts.seconds === seconds) return;
    parts.seconds = seconds;
    setText(parts.text, clockText(seconds));
    setText(parts.spoken, TEXT.timeLeft(...split(seconds)));
    setAttr(el, "datetime", durationText(seconds));
  }
}
