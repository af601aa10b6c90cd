// Split: a list pane beside a detail pane, as UIKit's split view controller shows them.
//
// A split shows both panes side by side in a wide window (WIDE, the width scenesync.css uses too)
// and only the pane its `focus` names in a narrow one, where one pane takes the other's place as a
// push (to the detail) or a pop (to the list).
import { ATTR, FOCUS, P } from "../protocol.js";
import { animate, h, setAttr } from "../dom.js";

/** A window at least this wide shows a split's panes side by side (as in scenesync.css). */
const WIDE = "(min-width: 720px)";
const wideQuery = typeof matchMedia === "function" ? matchMedia(WIDE) : null;
const isWide = () => Boolean(wideQuery && wideQuery.matches);

const isLive = (el) => el.hasAttribute(ATTR.nodeId); // not an element animating out

export const split = {
  create(node, context) {
    const el = h("div", { class: "ss-split" });
    el._ss = { view: context.view, focus: null };
    // The children are the panes, first the primary: mark which is which as they come and go.
    new MutationObserver(() => markPanes(el)).observe(el, { childList: true });
    return el;
  },

  update(el, props) {
    const s = el._ss;
    const focus = props[P.focus] === FOCUS.secondary ? FOCUS.secondary : FOCUS.primary;
    const before = s.focus;
    s.focus = focus;
    setAttr(el, ATTR.focus, focus);
    if (before === null || before === focus || isWide()) return;
    // Narrow: one pane takes the other's place, as a push (to the detail) or a pop (to the list).
    const leaving = paneOf(el, before);
    const coming = paneOf(el, focus);
    if (leaving && leaving.contains(document.activeElement)) s.view.focusTitle();
    if (!coming) return;
    const push = focus === FOCUS.secondary;
    animate(coming, push
      ? [{ transform: "translateX(100%)" }, { transform: "none" }]
      : [{ transform: "translateX(-30%)", opacity: 0.6 }, { transform: "none", opacity: 1 }],
    { duration: 340, easing: "cubic-bezier(0.25, 0.8, 0.25, 1)" });
  },

  mounted: (el) => markPanes(el),
};

function markPanes(el) {
  let index = 0;
  for (const child of el.children) {
    const pane = isLive(child) ? [FOCUS.primary, FOCUS.secondary][index++] ?? null : null;
    setAttr(child, ATTR.pane, pane);
  }
}

function paneOf(el, name) {
  return [...el.children].find((child) => child.getAttribute(ATTR.pane) === name) ?? null;
}
