// Small DOM helpers shared by the renderer's modules. No wire names here.
import { CLS, TIMING } from "./protocol.js";

/** Creates an element: h("button", {class: "x", type: "button"}, "text", child). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") el.className = value;
      else if (key === "text") el.textContent = value;
      else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

/** A decorative inline SVG icon from a path, drawn with currentColor. */
export function icon(name) {
  const paths = ICONS[name];
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", `ss-icon ss-icon-${name}`);
  for (const d of paths) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

const ICONS = {
  chevronLeft: ["M15 4 7 12l8 8"],
  chevronRight: ["M9 5l7 7-7 7"],
  grip: ["M4 8h16", "M4 12h16", "M4 16h16"],
  more: ["M6 12h.01", "M12 12h.01", "M18 12h.01"],
  close: ["M7 7l10 10", "M17 7 7 17"],
  minus: ["M7 12h10"],
};

/** Sets text only when it changed (keeps selection and avoids layout work). */
export function setText(el, text) {
  const value = text ?? "";
  if (el.textContent !== value) el.textContent = value;
}

/** Sets or removes an attribute. */
export function setAttr(el, name, value) {
  if (value === undefined || value === null || value === false) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else {
    const text = value === true ? "" : String(value);
    if (el.getAttribute(name) !== text) el.setAttribute(name, text);
  }
}

/** Shows or hides an element with the `hidden` attribute. */
export function show(el, visible) {
  el.hidden = !visible;
}

let uidCounter = 0;
/** A document-unique id for aria wiring. */
export function uid(prefix) {
  uidCounter += 1;
  return `ss-${prefix}-${uidCounter}`;
}

/** Visually hidden text that assistive technology still reads. */
export function srOnly(text, attrs) {
  return h("span", { class: CLS.visuallyHidden, ...attrs }, text);
}

const reducedMotionQuery = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

/** Whether to animate at all (prefers-reduced-motion, or the harness turned it off). */
export function motionAllowed() {
  if (globalThis.SceneSyncNoMotion) return false;
  return !(reducedMotionQuery && reducedMotionQuery.matches);
}

/** Runs a Web Animation if motion is allowed; resolves when done (at once otherwise). */
export function animate(el, keyframes, options) {
  if (!motionAllowed() || typeof el.animate !== "function") return Promise.resolve();
  const animation = el.animate(keyframes, { duration: TIMING.animation, easing: "cubic-bezier(0.2, 0.8, 0.2, 1)", ...options });
  return animation.finished.catch(() => {});
}

const FOCUSABLE = 'button:not([disabled]):not([hidden]), [href], input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])';

/** The focusable elements inside `root`, in document order, skipping hidden ones. */
export function focusables(root) {
  return [...root.querySelectorAll(FOCUSABLE)].filter((el) => !el.closest("[hidden], [inert]") && el.getClientRects().length > 0);
}

/** Focuses without scrolling the page. */
export function focusQuietly(el) {
  if (el && typeof el.focus === "function") el.focus({ preventScroll: true });
}
