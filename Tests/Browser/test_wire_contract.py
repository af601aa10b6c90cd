"""The view tree corpus (Tests/Fixtures/ViewTree) against the real renderer in headless Chromium.

Every case's tree is drawn by the renderer's own modules (harness/contract.html), its ops applied
as a patch; the tree the DOM then shows must be the case's `expected` tree, or the patch must be
refused with OutOfStep naming the case's `refused` reason. The Swift view tree is checked against
the same files, so both ends of the wire agree on what every patch does. See Tests/Fixtures/README.md.
"""
import json
import os
import time

import pytest

from run_harness import make_driver, serve

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
CORPUS = os.path.join(FIXTURES, "ViewTree")
FILES = ["cases.json", "renderer-only.json"]
PAGE = "/Tests/Browser/harness/contract.html"
REASONS = {"unknownNode", "indexOutOfRange", "duplicateID", "cannotRemoveRoot"}
MODES = ["still", "motion"]


def load(file):
    with open(os.path.join(CORPUS, file), encoding="utf-8") as f:
        return json.load(f)


def cases():
    return [(file, case) for file in FILES for case in load(file)]


def canonical(value):
    """JSON text with sorted keys: equal only if the values are (unlike ==, true is not 1)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=1)


def nodes(tree):
    yield tree
    for child in tree["children"]:
        yield from nodes(child)


@pytest.fixture(scope="module")
def results():
    httpd, base = serve()
    driver = make_driver()
    try:
        driver.get(base + PAGE)
        deadline = time.time() + 60
        while driver.execute_script("return document.documentElement.dataset.ready") is None:
            assert time.time() < deadline, "the contract page did not finish"
            time.sleep(0.05)
        error = driver.execute_script("return window.contractError ?? null")
        assert error is None, error
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == [], errors
        yield json.loads(driver.execute_script("return window.contractResults"))
    finally:
        driver.quit()
        httpd.shutdown()


# MARK: - The corpus itself

def test_corpus_is_well_formed():
    protocol = load_protocol()
    node_fields = protocol["node"]
    kinds = set(protocol["kinds"])
    names = set()
    for file, case in cases():
        where = f"{file}: {case.get('name')!r}"
        assert set(case) - {"note"} in ({"name", "tree", "ops", "expected"}, {"name", "tree", "ops", "refused"}), where
        assert case["name"] not in names, f"{where}: two cases with one name"
        names.add(case["name"])
        if "refused" in case:
            assert case["refused"] in REASONS, where
        whole = [case["tree"]] + ([case["expected"]] if "expected" in case else [])
        for tree in whole + [op["node"] for op in case["ops"] if "node" in op]:
            for node in nodes(tree):
                assert list(node) == node_fields, f"{where}: node {node}"
                assert isinstance(node["id"], str) and node["kind"] in kinds, f"{where}: node {node['id']!r}"
                assert isinstance(node["props"], dict) and isinstance(node["children"], list), where
        for tree in whole:
            ids = [node["id"] for node in nodes(tree)]
            assert len(ids) == len(set(ids)), f"{where}: a tree uses an id twice"
        for op in case["ops"]:
            spec = protocol["ops"][op["op"]]
            fields = set(op) - {protocol["opField"]}
            allowed = set(spec["required"]) | set(spec["optional"])
            if file == "cases.json":
                assert set(spec["required"]) <= fields <= allowed, f"{where}: op {op}"
                assert all(isinstance(op[f], int) and not isinstance(op[f], bool) for f in fields & {"index"}), where
            else:
                assert fields <= allowed, f"{where}: op {op}"


def test_corpus_covers_every_op_and_reason():
    shared = load("cases.json")
    ops = {op["op"] for case in shared for op in case["ops"]}
    assert ops == set(load_protocol()["ops"])
    assert {case["refused"] for case in shared if "refused" in case} == REASONS


def load_protocol():
    with open(os.path.join(FIXTURES, "Protocol", "messages.json"), encoding="utf-8") as f:
        return json.load(f)


# MARK: - The renderer against the corpus

@pytest.mark.parametrize("file,case", cases(), ids=[f"{file[:-5]}: {case['name']}" for file, case in cases()])
def test_renderer_agrees(results, file, case):
    for mode in MODES:
        result = results[f"{file}|{case['name']}|{mode}"]
        label = f"{case['name']} ({mode})"
        assert "crash" not in result, f"{label}: {result.get('crash')}"
        drawn = result["drawn"]
        assert drawn["problems"] == [], f"{label}: drawing the tree: {drawn['problems']}"
        assert canonical(drawn["dom"]) == canonical(case["tree"]), f"{label}: the tree was not drawn as given"
        if "expected" in case:
            refusal = result.get("refusal")
            assert refusal is None, f"{label}: refused ({refusal and refusal['reason']}: {refusal and refusal['message']}), expected applied"
            applied = result["applied"]
            assert applied["problems"] == [], f"{label}: {applied['problems']}"
            assert canonical(applied["records"]) == canonical(applied["dom"]), f"{label}: the records and the DOM disagree"
            assert canonical(applied["dom"]) == canonical(case["expected"]), f"{label}: not the expected tree"
        else:
            refusal = result.get("refusal")
            assert refusal is not None, f"{label}: applied, expected refused ({case['refused']})"
            assert refusal["outOfStep"], f"{label}: refused with something other than OutOfStep: {refusal['message']}"
            assert refusal["reason"] == case["refused"], f"{label}: refused as {refusal['reason']} ({refusal['message']}), expected {case['refused']}"
            redrawn = result["redrawn"]
            assert redrawn["problems"] == [], f"{label}: after the redraw: {redrawn['problems']}"
            assert canonical(redrawn["dom"]) == canonical(case["tree"]), f"{label}: the redraw did not restore the tree"
