// Feeds every case of the view tree corpus (Tests/Fixtures/ViewTree) to the real renderer: a View
// (view.js → render.js/patch.js → components) draws the case's tree, then gets its ops as a patch
// message's would. What it then shows is read back from the DOM (node ids, kinds, nesting, order)
// and the tree's records (props), for test_wire_contract.py to compare with what the case expects.
//
// Each case runs twice, without and with motion: animations must not change what a patch does.
// After a refusal the page draws the case's tree again, as the redraw that follows one would, to
// show nothing of the refused ops is left behind.
import { View } from "../../../Sources/SceneSyncServer/Public/js/view.js";
import { OutOfStep } from "../../../Sources/SceneSyncServer/Public/js/render.js";
import { ATTR } from "../../../Sources/SceneSyncServer/Public/js/protocol.js";
import { loadComponents } from "../../../Sources/SceneSyncServer/Public/js/components/index.js";

const CORPUS = ["cases.json", "renderer-only.json"];
const FIXTURES = "../../Fixtures/ViewTree/";

/** The tree as the tree's records hold it, from the root down. */
function fromRecords(record) {
  return { id: record.id, kind: record.kind, props: record.props, children: record.kids.map(fromRecords) };
}

/**
 * The tree as the DOM shows it: every element with a node id, nested by its nearest ancestor with
 * one, in document order; props from the record of that id. `problems` lists every way the DOM and
 * the records disagree (an element with no record, a record with no element, two elements for an id).
 */
function fromDOM(view, container) {
  const tree = view.tree;
  const problems = [];
  const nodes = new Map();
  const roots = [];
  for (const el of container.querySelectorAll(`[${ATTR.nodeId}]`)) {
    const id = el.getAttribute(ATTR.nodeId);
    const record = tree.get(id);
    if (nodes.has(id)) problems.push(`two elements show ${JSON.stringify(id)}`);
    if (!record) problems.push(`element ${JSON.stringify(id)} has no record`);
    else if (record.el !== el) problems.push(`element ${JSON.stringify(id)} is not its record's`);
    if (record && el.getAttribute(ATTR.kind) !== record.kind) problems.push(`element ${JSON.stringify(id)} says kind ${el.getAttribute(ATTR.kind)}`);
    const node = { id, kind: el.getAttribute(ATTR.kind), props: record ? record.props : null, children: [] };
    nodes.set(id, node);
    const holder = el.parentElement?.closest(`[${ATTR.nodeId}]`);
    if (holder && container.contains(holder)) nodes.get(holder.getAttribute(ATTR.nodeId)).children.push(node);
    else roots.push(node);
  }
  if (roots.length !== 1) problems.push(`${roots.length} root elements`);
  for (const id of tree.map.keys()) if (!nodes.has(id)) problems.push(`record ${JSON.stringify(id)} has no element on screen`);
  return { tree: roots[0] ?? null, problems };
}

function snapshot(view, container) {
  const dom = fromDOM(view, container);
  return { dom: dom.tree, records: view.tree.root ? fromRecords(view.tree.root) : null, problems: dom.problems };
}

function runCase(testCase) {
  const container = document.createElement("div");
  container.className = "ss-root";
  document.body.append(container);
  const view = new View(container, () => 1);
  const result = {};
  try {
    view.render(structuredClone(testCase.tree));
    result.drawn = snapshot(view, container);
    try {
      view.patch(structuredClone(testCase.ops));
      result.applied = snapshot(view, container);
    } catch (error) {
      result.refusal = {
        outOfStep: error instanceof OutOfStep,
        reason: error.reason ?? null,
        message: String(error.message ?? error),
      };
      view.render(structuredClone(testCase.tree));
      result.redrawn = snapshot(view, container);
    }
  } catch (error) {
    result.crash = String(error.stack ?? error);
  } finally {
    container.remove();
  }
  return result;
}

async function main() {
  // The corpus has every kind, those of the optional components too.
  await loadComponents(["chat"]);
  const results = {};
  for (const file of CORPUS) {
    const response = await fetch(FIXTURES + file, { cache: "no-store" });
    if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
    const cases = await response.json();
    for (const motion of [false, true]) {
      globalThis.SceneSyncNoMotion = !motion;
      for (const testCase of cases) {
        results[`${file}|${testCase.name}|${motion ? "motion" : "still"}`] = runCase(testCase);
      }
    }
  }
  globalThis.SceneSyncNoMotion = true;
  return results;
}

main().then(
  (results) => {
    // As JSON text, so numbers keep their JSON form on the way to the test (1 and true stay apart).
    window.contractResults = JSON.stringify(results);
    document.documentElement.dataset.ready = "true";
  },
  (error) => {
    window.contractError = String(error.stack ?? error);
    document.documentElement.dataset.ready = "error";
  },
);
