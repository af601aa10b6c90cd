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
  return drawIcon(ICONS[name], name);
}

/** A bar button's icon, by the name the server sends (`ViewNode.BarIcon`); null for one this renderer does not draw. */
export function barIcon(name) {
  const paths = Object.hasOwn(BAR_ICONS, name) ? BAR_ICONS[name] : null;
  return paths ? drawIcon(paths, name.replaceAll(".", "-")) : null;
}

/**
 * A tab's icon, by the SF Symbol name the server sends (`SceneWindow.Tab.Icon`: "cart",
 * "list.bullet"), drawn as `icon` draws; null for a name this renderer does not draw.
 */
export function tabIcon(name) {
  const paths = Object.hasOwn(TAB_ICONS, name) ? TAB_ICONS[name] : null;
  return paths ? drawIcon(paths, name.replaceAll(".", "-")) : null;
}

function drawIcon(paths, name) {
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

// Keyed by the names `ViewNode.BarIcon` sends.
const BAR_ICONS = {
  "square.and.pencil": ["M12 4H6a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-6", "M18.4 3.6a2 2 0 0 1 2.8 2.8L12 15.6 8.5 16.5l.9-3.5z"],
  "macwindow.badge.plus": ["M20 11V6a2 2 0 0 0-2-2H5a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h7", "M3 8.5h17", "M18 14v7", "M14.5 17.5h7"],
  "rectangle.portrait.and.arrow.right": ["M14 4H7a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h7", "M11 12h10", "M17.5 8.5 21 12l-3.5 3.5"],
};

// Keyed by the names `SceneWindow.Tab.Icon` sends; SceneWindowTests checks that each is here.
const TAB_ICONS = {
  "list.bullet": [
    "M3.9 6.5a.6.6 0 1 0 1.2 0a.6.6 0 1 0-1.2 0", "M3.9 12a.6.6 0 1 0 1.2 0a.6.6 0 1 0-1.2 0", "M3.9 17.5a.6.6 0 1 0 1.2 0a.6.6 0 1 0-1.2 0",
    "M9 6.5h11", "M9 12h11", "M9 17.5h11"],
  "cart": [
    "M2.5 4h2.2l2.4 11.2a1.5 1.5 0 0 0 1.5 1.2h8.6a1.5 1.5 0 0 0 1.5-1.1L21 8H5.6",
    "M10.5 20a1.25 1.25 0 1 1-2.5 0 1.25 1.25 0 0 1 2.5 0",
    "M18 20a1.25 1.25 0 1 1-2.5 0 1.25 1.25 0 0 1 2.5 0",
  ],
  "bubble.left.and.bubble.right": [
    "M15 8.5V6a2 2 0 0 0-2-2H5a2 2 0 0 0-2 2v5.5a2 2 0 0 0 2 2h1V16l3-2.5",
    "M11 10.5h8a2 2 0 0 1 2 2V17a2 2 0 0 1-2 2h-1v2.5L15 19h-4a2 2 0 0 1-2-2v-4.5a2 2 0 0 1 2-2z",
  ],
  "gauge": ["M4.2 18a9 9 0 1 1 15.6 0", "M12 13.5l4-4.5", "M12 13.5h.01"],
  "fork.knife": ["M6 3v5.5a2 2 0 0 0 4 0V3", "M8 3v18", "M17 21V3c-1.8 1-3 3.5-3 7v3.5h3"],
  "person": ["M15.5 7.5a3.5 3.5 0 1 1-7 0 3.5 3.5 0 0 1 7 0", "M5 20.5c0-3.6 3.1-6 7-6s7 2.4 7 6"],
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
