// Nodes to DOM. The tree keeps a record per node id (element, props, parent, children) in a Map,
// so a patch finds its node in O(1). `render` reconciles a whole tree by id against what is on
// screen: a record whose id and kind match is updated in place (focus, scroll and a field being
// typed in survive); anything else is created, and what is left over is removed.
import { ATTR, nodeChildren, nodeId, nodeKind, nodeProps } from "./protocol.js";
import { componentFor } from "./components/index.js";

/**
 * Why a patch does not fit the window. The first four are the refusals the server's view tree
 * makes too (Tests/Fixtures/ViewTree holds the cases both sides are checked against); `malformed`
 * is a patch the server could not have sent.
 */
export const REFUSAL = Object.freeze({
  unknownNode: "unknownNode",
  indexOutOfRange: "indexOutOfRange",
  duplicateID: "duplicateID",
  cannotRemoveRoot: "cannotRemoveRoot",
  malformed: "malformed",
});

/**
 * Thrown when a patch does not fit what the window shows: the window is out of step and redraws.
 * `reason` is one of REFUSAL.
 */
export class OutOfStep extends Error {
  constructor(reason, message) {
    super(message);
    this.name = "OutOfStep";
    this.reason = reason;
  }
}

export const idOf = nodeId;
export const kindOf = nodeKind;
export const propsOf = nodeProps;
export const childrenOf = nodeChildren;

export class Tree {
  /**
   * @param {HTMLElement} container  where the window element goes
   * @param {object} context  handed to components: {send, view, countdowns}
   */
  constructor(container, context) {
    this.container = container;
    this.context = context;
    this.map = new Map();
    this.root = null;
    this.mountQueue = [];
  }

  get(id) {
    return this.map.get(id);
  }

  /** The record for `id`, or OutOfStep. */
  require(id) {
    const record = this.map.get(id);
    if (!record) throw new OutOfStep(REFUSAL.unknownNode, `no node ${JSON.stringify(id)}`);
    return record;
  }

  has(id) {
    return this.map.has(id);
  }

  contextFor(parent) {
    return { ...this.context, tree: this, parentKind: parent ? parent.kind : null };
  }

  slotOf(record) {
    return record.def.slot ? record.def.slot(record.el) : record.el;
  }

  /**
   * Refuses `node` before anything changes if an id in its subtree is used twice, or is already on
   * screen outside `replacing` (the subtree it will take the place of, whose ids it may take over).
   * Checking first keeps a refused op from leaving half a subtree in the id map, where it would
   * outlive the redraw that follows.
   */
  requireNewIds(node, replacing = null) {
    const seen = new Set();
    const visit = (n) => {
      if (n === null || typeof n !== "object" || typeof idOf(n) !== "string") {
        throw new OutOfStep(REFUSAL.malformed, `not a node: ${JSON.stringify(n)}`);
      }
      const id = idOf(n);
      const existing = this.map.get(id);
      if (seen.has(id) || (existing && !(replacing && this.inScope(existing, replacing)))) {
        throw new OutOfStep(REFUSAL.duplicateID, `node ${JSON.stringify(id)} already exists`);
      }
      seen.add(id);
      for (const child of childrenOf(n)) visit(child);
    };
    visit(node);
  }

  // MARK: - Creating

  /**
   * Creates a record and its element for `node` and its subtree. With `reuse` (during a render),
   * children whose id and kind are already on screen are reconciled instead of created.
   */
  create(node, parent, reuse = null) {
    const id = idOf(node);
    if (reuse === null && this.map.has(id)) throw new OutOfStep(REFUSAL.duplicateID, `node ${JSON.stringify(id)} already exists`);
    const kind = kindOf(node);
    const def = componentFor(kind);
    const context = this.contextFor(parent);
    const el = def.create(node, context);
    el.setAttribute(ATTR.nodeId, id);
    el.setAttribute(ATTR.kind, kind);
    const record = { id, kind, def, el, props: { ...propsOf(node) }, parent, kids: [] };
    this.map.set(id, record);
    if (reuse) reuse.touched.add(record);
    def.update(el, record.props, {}, context, record);
    const slot = this.slotOf(record);
    for (const child of childrenOf(node)) {
      const kid = reuse ? this.obtain(child, record, reuse) : this.create(child, record, null);
      kid.parent = record;
      record.kids.push(kid);
      slot.append(kid.el);
    }
    if (def.mounted) this.mountQueue.push(record);
    return record;
  }

  /** Runs the `mounted` hooks of records created since the last call, now that they are in the document. */
  flushMounted() {
    const queue = this.mountQueue;
    this.mountQueue = [];
    for (const record of queue) {
      if (record.el.isConnected && this.map.get(record.id) === record) record.def.mounted(record.el, this.contextFor(record.parent), record);
    }
  }

  // MARK: - Reconciling

  /** Draws the whole window from `node`, keeping what matches. */
  render(node) {
    for (const ghost of this.container.querySelectorAll(`[${ATTR.leavingNodeId}]`)) {
      if (!ghost.parentElement?.closest(`[${ATTR.leavingNodeId}]`)) ghost.remove();
    }
    const reuse = { touched: new Set(), scope: null };
    const old = this.root;
    let root;
    if (old && old.kind === kindOf(node) && old.id === idOf(node)) {
      root = this.reconcile(old, node, reuse);
    } else {
      root = this.create(node, null, reuse);
    }
    this.sweep(reuse);
    if (!root.el.isConnected || root.el.parentNode !== this.container) this.container.prepend(root.el);
    if (old && old !== root) {
      this.discard(old, reuse.touched);
      old.el.remove();
    }
    this.root = root;
    this.flushMounted();
    return root;
  }

  /** Replaces `record` with `node` in place, keeping the records of its subtree that match. */
  reconcileInPlace(record, node) {
    const reuse = { touched: new Set(), scope: record };
    this.reconcile(record, node, reuse);
    this.sweep(reuse);
    this.flushMounted();
    return record;
  }

  reconcile(record, node, reuse) {
    reuse.touched.add(record);
    const context = this.contextFor(record.parent);
    const props = { ...propsOf(node) };
    const previous = record.props;
    record.props = props;
    record.def.update(record.el, props, previous, context, record);
    const slot = this.slotOf(record);
    const kids = [];
    for (const child of childrenOf(node)) {
      const kid = this.obtain(child, record, reuse);
      kid.parent = record;
      kids.push(kid);
    }
    // Put the children in order, moving only what is out of place.
    let anchor = slot.firstChild;
    for (const kid of kids) {
      if (kid.el === anchor) {
        anchor = anchor.nextSibling;
      } else {
        slot.insertBefore(kid.el, anchor);
      }
    }
    reuse.stale = reuse.stale ?? [];
    for (const kid of record.kids) reuse.stale.push(kid);
    record.kids = kids;
    return record;
  }

  /** The record to show `node`: the one on screen if its id and kind match, else a new one. */
  obtain(node, parent, reuse) {
    const existing = this.map.get(idOf(node));
    if (existing && existing.kind === kindOf(node) && !reuse.touched.has(existing) && this.inScope(existing, reuse.scope)) {
      return this.reconcile(existing, node, reuse);
    }
    return this.create(node, parent, reuse);
  }

  inScope(record, scope) {
    if (scope === null) return true;
    for (let r = record; r; r = r.parent) if (r === scope) return true;
    return false;
  }

  /** Removes the records the last reconcile did not use. */
  sweep(reuse) {
    for (const record of reuse.stale ?? []) {
      if (reuse.touched.has(record)) continue;
      this.discard(record, reuse.touched);
      record.el.remove();
    }
  }

  // MARK: - Removing

  /** Forgets `record` and its subtree (except records in `keep`), running `destroy` hooks. */
  discard(record, keep = null) {
    for (const kid of record.kids) {
      if (keep && keep.has(kid)) continue;
      this.discard(kid, keep);
    }
    if (record.def.destroy) record.def.destroy(record.el, record);
    if (this.map.get(record.id) === record) this.map.delete(record.id);
  }

  // MARK: - Children

  /**
   * Inserts `record` as child `index` of `parent`, in the records and in the DOM. The caller has
   * checked `index` (0...kids.length): a patch's index is never clamped into range.
   */
  insertChild(parent, record, index) {
    const reference = parent.kids[index]?.el ?? null;
    parent.kids.splice(index, 0, record);
    record.parent = parent;
    const slot = this.slotOf(parent);
    slot.insertBefore(record.el, reference && reference.parentNode === slot ? reference : null);
    return index;
  }

  /** Takes `record` out of its parent's children (the element stays for the caller to animate out). */
  detachChild(record) {
    const parent = record.parent;
    if (!parent) return -1;
    const index = parent.kids.indexOf(record);
    if (index >= 0) parent.kids.splice(index, 1);
    return index;
  }

  indexOf(record) {
    return record.parent ? record.parent.kids.indexOf(record) : -1;
  }
}

/** Marks a leaving element so queries by node id no longer find it, and hides it from assistive tech. */
export function retire(el) {
  const elements = [el, ...el.querySelectorAll(`[${ATTR.nodeId}]`)];
  for (const element of elements) {
    const id = element.getAttribute(ATTR.nodeId);
    if (id === null) continue;
    element.removeAttribute(ATTR.nodeId);
    element.setAttribute(ATTR.leavingNodeId, id);
  }
  el.setAttribute("aria-hidden", "true");
  el.inert = true;
}
