// Moments in the window's own time zone and locale. A `time` prop is whole milliseconds since 1970
// UTC: a message shows its hours and minutes, a row its hours and minutes if it is today and its
// date otherwise ("Nov 23"). Each is drawn in a <time> whose `datetime` is the moment in ISO 8601.
// A row's time is drawn again at local midnight, when "today" moves on; one timer serves them all.
import { setAttr, setText } from "./dom.js";

const clock = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });
const day = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const dayOfYear = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });

/** Whether `value` is a moment a Date can hold (milliseconds since 1970). */
export function isMoment(value) {
  return Number.isFinite(value) && Math.abs(value) <= 8.64e15;
}

/** Hours and minutes, as the browser's locale writes them: "9:41 AM", "09:41". */
export function timeOfDay(ms) {
  return clock.format(ms);
}

/** Hours and minutes if `ms` is today, else the date: "Nov 23" (with the year if not this year). */
export function dayOrTime(ms, now = new Date()) {
  const then = new Date(ms);
  const today = then.getFullYear() === now.getFullYear() && then.getMonth() === now.getMonth() && then.getDate() === now.getDate();
  if (today) return clock.format(then);
  return (then.getFullYear() === now.getFullYear() ? day : dayOfYear).format(then);
}

const relative = new Map(); // <time> → its moment, for those drawn with dayOrTime
let midnight = 0;

/**
 * Shows `ms` in the <time> `el`: its hours and minutes, or with `relativeToToday` those if it is
 * today and its date otherwise (drawn again at midnight while `el` is in the document).
 */
export function showMoment(el, ms, relativeToToday = false) {
  setAttr(el, "datetime", new Date(ms).toISOString());
  setText(el, relativeToToday ? dayOrTime(ms) : timeOfDay(ms));
  if (relativeToToday) {
    relative.set(el, ms);
    if (midnight === 0) scheduleMidnight();
  } else {
    forgetMoment(el);
  }
}

/** `el` no longer shows a moment (its row lost its time, or left). */
export function forgetMoment(el) {
  if (relative.delete(el) && relative.size === 0) {
    clearTimeout(midnight);
    midnight = 0;
  }
}

function scheduleMidnight() {
  const next = new Date();
  next.setHours(24, 0, 0, 0);
  midnight = setTimeout(() => {
    midnight = 0;
    const now = new Date();
    for (const [el, ms] of relative) {
      if (el.isConnected) setText(el, dayOrTime(ms, now));
      else relative.delete(el);
    }
    if (relative.size > 0) scheduleMidnight();
  }, next.getTime() - Date.now() + 500);
}
