// Applies patch ops. Each op finds its node through the tree's id map, so it costs O(1) DOM work
// whatever the size of the list (moves measure only the rows they pass, for the animation).
// An op that does not fit the window throws OutOfStep and the caller resyncs. The checks are
// strict, as the server's own view tree is: an unknown id, an index outside the valid range (or
// not an integer), an id already on screen, or removing the root is refused, never patched up, since
// a guess would leave the window showing something the server does not know it shows.
import { CLS, KIND, OP, OPF, TEXT, TRANSITION } from "./protocol.js";
import { OutOfStep, REFUSAL, idOf, kindOf, retire } from "./render.js";
import { animate, focusQuietly, motionAllowed } from "./dom.js";

/** Applies `ops` in order. Throws OutOfStep at the first op that does not fit the window. */
export function applyPatch(tree, ops, view) {
  if (!Array.isArray(ops)) throw new OutOfStep(REFUSAL.malformed, "ops is not a list");
  if (!tree.root) throw new OutOfStep(REFUSAL.unknownNode, "nothing drawn yet");
  for (const op of ops) {
    switch (op?.[OPF.op]) {
      case OP.insert: insert(tree, op); break;
      case OP.remove: remove(tree, op, view); break;
      case OP.move: move(tree, op, view); break;
      case OP.replace: replace(tree, op, view); break;
      case OP.set: set(tree, op); break;
      default: throw new OutOfStep(REFUSAL.malformed, `unknown op ${JSON.stringify(op?.[OPF.op])}`);
    }
  }
  tree.flushMounted();
}

/** `value` as an index in 0...last, or OutOfStep: a patch's index is an integer, never coerced. */
function requireIndex(value, last, parent) {
  if (!Number.isInteger(value) || value < 0 || value > last) {
    throw new OutOfStep(REFUSAL.indexOutOfRange, `index ${JSON.stringify(value)} is not in 0...${last} of ${JSON.stringify(parent.id)}`);
  }
  return value;
}

function insert(tree, op) {
  const parent = tree.require(op[OPF.parent]);
  const index = requireIndex(op[OPF.index], parent.kids.length, parent);
  tree.requireNewIds(op[OPF.node]);
  const record = tree.create(op[OPF.node], parent, null);
  tree.insertChild(parent, record, index);
  tree.flushMounted();
  animateIn(record);
}

function remove(tree, op, view) {
  if (op[OPF.id] === tree.root.id) throw new OutOfStep(REFUSAL.cannotRemoveRoot, "the root cannot be removed");
  const record = tree.require(op[OPF.id]);
  const el = record.el;
  const hadFocus = el.contains(document.activeElement);
  const parent = record.parent;
  const index = tree.detachChild(record);
  tree.discard(record);
  retire(el);
  if (hadFocus && parent) view.focusNear(parent, index);
  animateOut(record).then(() => el.remove());
}

function move(tree, op, view) {
  const record = tree.require(op[OPF.id]);
  const parent = record.parent;
  // The root is no one's child: as the server's view tree says, there is no such node to move.
  if (!parent) throw new OutOfStep(REFUSAL.unknownNode, `node ${JSON.stringify(record.id)} has no parent`);
  const kids = parent.kids;
  const from = kids.indexOf(record);
  // Counted among the siblings without the moved node: 0...kids.length - 1.
  const to = requireIndex(op[OPF.index], kids.length - 1, parent);
  const range = kids.slice(Math.min(from, to), Math.max(from, to) + 1);
  const motion = motionAllowed();
  const before = motion ? range.map((r) => r.el.getBoundingClientRect().top) : null;
  for (const r of range) r.def.settle?.(r.el);
  if (from === to) return;
  const focused = record.el.contains(document.activeElement) ? document.activeElement : null;
  kids.splice(from, 1);
  kids.splice(to, 0, record);
  const slot = tree.slotOf(parent);
  const reference = kids[to + 1]?.el ?? null;
  slot.insertBefore(record.el, reference && reference.parentNode === slot ? reference : null);
  if (focused) {
    focusQuietly(focused);
    view.announce(TEXT.movedTo(to + 1, kids.length));
  }
  if (!motion) return;
  range.forEach((r, i) => {
    const dy = before[i] - r.el.getBoundingClientRect().top;
    if (Math.abs(dy) > 0.5) animate(r.el, [{ transform: `translateY(${dy}px)` }, { transform: "none" }]);
  });
}

function replace(tree, op, view) {
  const record = tree.require(op[OPF.id]);
  const node = op[OPF.node];
  tree.requireNewIds(node, record);
  const transition = op[OPF.transition] ?? null;
  const isScreen = record.kind === KIND.screen;
  if (isScreen) view.screenWillChange(record);
  if (!transition && kindOf(node) === record.kind && idOf(node) === record.id) {
    // Same node, new content: update in place, so focus and typing survive.
    tree.reconcileInPlace(record, node);
    if (isScreen) view.screenDidChange(record, null);
    return;
  }
  const parent = record.parent;
  const oldEl = record.el;
  const index = parent ? tree.detachChild(record) : -1;
  tree.discard(record);
  const fresh = tree.create(node, parent, null);
  if (parent) {
    tree.insertChild(parent, fresh, index);
  } else {
    oldEl.after(fresh.el);
    tree.root = fresh;
  }
  tree.flushMounted();
  if (transition && motionAllowed()) {
    slide(oldEl, fresh.el, transition);
  } else {
    oldEl.remove();
  }
  if (isScreen) view.screenDidChange(fresh, transition);
}

function set(tree, op) {
  const record = tree.require(op[OPF.id]);
  const changes = op[OPF.props] ?? {};
  const props = { ...record.props };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete props[key];
    else props[key] = value;
  }
  const previous = record.props;
  record.props = props;
  record.def.update(record.el, props, previous, tree.contextFor(record.parent), record);
}

// MARK: - Animation

function animateIn(record) {
  const el = record.el;
  if (record.def.enter) return record.def.enter(el);
  if (!motionAllowed()) return Promise.resolve();
  if (record.kind === KIND.row) {
    const height = el.offsetHeight;
    el.style.overflow = "hidden";
    return animate(el, [
      { height: "0px", opacity: 0, transform: "translateY(-8px)" },
      { height: `${height}px`, opacity: 1, transform: "none" },
    ]).then(() => { el.style.overflow = ""; });
  }
  return animate(el, [{ opacity: 0 }, { opacity: 1 }], { duration: 200 });
}

function animateOut(record) {
  const el = record.el;
  el.classList.add(CLS.leaving);
  if (record.def.leave) return record.def.leave(el);
  if (!motionAllowed() || !el.isConnected) return Promise.resolve();
  if (record.kind === KIND.row) {
    const height = el.offsetHeight;
    el.style.overflow = "hidden";
    return animate(el, [
      { height: `${height}px`, opacity: 1 },
      { height: "0px", opacity: 0, paddingTop: "0px", paddingBottom: "0px" },
    ], { fill: "forwards" });
  }
  return animate(el, [{ opacity: 1 }, { opacity: 0 }], { duration: 180, fill: "forwards" });
}

/** Slides the new screen in over the old one: from the right for push, from the left for pop. */
function slide(oldEl, newEl, transition) {
  const rect = oldEl.getBoundingClientRect();
  retire(oldEl);
  oldEl.classList.add(CLS.leaving);
  Object.assign(oldEl.style, {
    position: "fixed", top: `${rect.top}px`, left: `${rect.left}px`, width: `${rect.width}px`,
    margin: "0", pointerEvents: "none", zIndex: "0",
  });
  newEl.classList.add(CLS.entering);
  const push = transition !== TRANSITION.pop;
  const offscreen = "translateX(100%)";
  const behind = "translateX(-30%)";
  const incoming = push
    ? [{ transform: offscreen }, { transform: "none" }]
    : [{ transform: behind, opacity: 0.6 }, { transform: "none", opacity: 1 }];
  const outgoing = push
    ? [{ transform: "none", opacity: 1 }, { transform: behind, opacity: 0 }]
    : [{ transform: "none" }, { transform: offscreen }];
  const options = { duration: 340, easing: "cubic-bezier(0.25, 0.8, 0.25, 1)" };
  Promise.all([animate(newEl, incoming, options), animate(oldEl, outgoing, { ...options, fill: "forwards" })]).then(() => {
    oldEl.remove();
    newEl.classList.remove(CLS.entering);
  });
}
