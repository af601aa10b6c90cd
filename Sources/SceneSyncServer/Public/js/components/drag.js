// Reordering a row by dragging its handle (mouse, pen or touch, through pointer events). The row
// follows the pointer and its siblings make room; on drop the row sends `move` with the target
// index and stays where it was dropped until the server's move patch arrives (or a moment passes).
import { CLS, TIMING } from "../protocol.js";

const SHIFTING = CLS.shifting;

export function startDrag(event, record, commit) {
  if (event.pointerType === "mouse" && event.button !== 0) return;
  const parent = record.parent;
  if (!parent) return;
  event.preventDefault();
  const handle = event.currentTarget;
  const el = record.el;
  const kids = parent.kids.slice();
  for (const kid of kids) settleDrag(kid.el);
  const from = kids.indexOf(record);
  const rects = kids.map((kid) => kid.el.getBoundingClientRect());
  const mids = rects.map((rect) => rect.top + rect.height / 2);
  const height = rects[from].height;
  const startY = event.clientY;
  let target = from;
  try { handle.setPointerCapture(event.pointerId); } catch { /* synthetic event */ }
  el.classList.add(CLS.dragging);
  for (const kid of kids) if (kid !== record) kid.el.classList.add(SHIFTING);

  const place = () => {
    kids.forEach((kid, i) => {
      if (kid === record) return;
      let shift = 0;
      if (from < i && i <= target) shift = -height;
      else if (target <= i && i < from) shift = height;
      kid.el.style.transform = shift ? `translateY(${shift}px)` : "";
    });
  };
  const move = (e) => {
    const dy = e.clientY - startY;
    el.style.transform = `translateY(${dy}px)`;
    const center = mids[from] + dy;
    let t = from;
    while (t + 1 < kids.length && center > mids[t + 1]) t += 1;
    while (t - 1 >= 0 && center < mids[t - 1]) t -= 1;
    if (t !== target) {
      target = t;
      place();
    }
  };
  const end = (e, cancelled) => {
    handle.removeEventListener("pointermove", move);
    handle.removeEventListener("pointerup", up);
    handle.removeEventListener("pointercancel", cancel);
    el.classList.remove(CLS.dragging);
    const state = { siblings: kids.filter((kid) => kid !== record).map((kid) => kid.el), timer: 0 };
    el._drag = state;
    if (cancelled || target === from) {
      el.classList.add(SHIFTING);
      state.siblings.push(el);
      for (const sibling of state.siblings) sibling.style.transform = "";
      state.timer = setTimeout(() => settleDrag(el), 300);
      return;
    }
    // Rest in the target slot until the server moves the row there.
    const offset = target > from
      ? rects[target].bottom - rects[from].bottom
      : rects[target].top - rects[from].top;
    el.classList.add(SHIFTING);
    el.style.transform = `translateY(${offset}px)`;
    state.timer = setTimeout(() => {
      for (const sibling of [...state.siblings, el]) sibling.style.transform = "";
      state.timer = setTimeout(() => settleDrag(el), 300);
    }, TIMING.dragHold);
    commit(target);
  };
  const up = (e) => end(e, false);
  const cancel = (e) => end(e, true);
  handle.addEventListener("pointermove", move);
  handle.addEventListener("pointerup", up);
  handle.addEventListener("pointercancel", cancel);
}

/** Drops any drag offsets on `el` (and on the siblings it shifted), without a transition. */
export function settleDrag(el) {
  const state = el._drag;
  el._drag = null;
  const elements = state ? [el, ...state.siblings] : [el];
  if (state) clearTimeout(state.timer);
  for (const element of elements) {
    element.classList.remove(SHIFTING);
    element.style.transform = "";
  }
}
