"""What a window shows: the node tree of the last `render`, with every `patch` applied as
PROTOCOL.md says (insert, remove, move, replace, set). Strict like the renderer: an op that does not
fit the tree raises `OutOfStep`, which for these suites means the server sent a patch that does
not apply to what it sent before.
"""
import copy

# LootLogger's node ids (Examples/LootLogger/Sources/LootLogger/Scenes).
ITEMS_SECTION = "items"
ITEM_ROW_PREFIX = "item-"
LIST_ROUTE = "items"
DETAIL_ROUTE_PREFIX = "item/"


class OutOfStep(Exception):
    pass


class ViewTree:
    def __init__(self, root):
        self.root = copy.deepcopy(root)
        self.nodes, self.parents = {}, {}
        self._index(self.root, None)

    def _index(self, node, parent):
        """Adds `node` and its descendants to the index (ids must be new)."""
        stack = [(node, parent)]
        while stack:
            current, above = stack.pop()
            if current["id"] in self.nodes:
                raise OutOfStep(f"duplicateID {current['id']}")
            self.nodes[current["id"]] = current
            self.parents[current["id"]] = above
            stack.extend((child, current) for child in current["children"])

    def _unindex(self, node):
        stack = [node]
        while stack:
            current = stack.pop()
            del self.nodes[current["id"]]
            del self.parents[current["id"]]
            stack.extend(current["children"])

    def apply(self, ops):
        for op in ops:
            kind = op["op"]
            if kind == "insert":
                parent = self._node(op["parent"])
                index = op["index"]
                if not isinstance(index, int) or not 0 <= index <= len(parent["children"]):
                    raise OutOfStep(f"indexOutOfRange insert {index} into {op['parent']}")
                node = copy.deepcopy(op["node"])
                self._index(node, parent)
                parent["children"].insert(index, node)
            elif kind == "remove":
                node = self._node(op["id"])
                parent = self.parents[op["id"]]
                if parent is None:
                    raise OutOfStep("cannotRemoveRoot")
                parent["children"].remove(node)
                self._unindex(node)
            elif kind == "move":
                node = self._node(op["id"])
                siblings = self.parents[op["id"]]["children"]
                siblings.remove(node)
                if not isinstance(op["index"], int) or not 0 <= op["index"] <= len(siblings):
                    raise OutOfStep(f"indexOutOfRange move {op['index']}")
                siblings.insert(op["index"], node)
            elif kind == "replace":
                node = self._node(op["id"])
                parent = self.parents[op["id"]]
                replacement = copy.deepcopy(op["node"])
                # The replaced subtree's ids may come back in the replacement.
                self._unindex(node)
                self._index(replacement, parent)
                if parent is None:
                    self.root = replacement
                else:
                    siblings = parent["children"]
                    siblings[siblings.index(node)] = replacement
            elif kind == "set":
                props = self._node(op["id"])["props"]
                for key, value in op["props"].items():
                    if value is None:
                        props.pop(key, None)
                    else:
                        props[key] = value
            else:
                raise OutOfStep(f"unknown op {kind}")

    def _node(self, node_id):
        if node_id not in self.nodes:
            raise OutOfStep(f"unknownNode {node_id}")
        return self.nodes[node_id]

    # MARK: - What LootLogger shows

    @property
    def route(self):
        """The screen's route: `items` for the list, `item/<UUID>` for an item's detail."""
        screen = self.nodes.get("screen")
        return screen["props"].get("route") if screen else None

    def item_ids(self):
        """The row ids of the item list, in order, or None if the list is not on screen."""
        section = self.nodes.get(ITEMS_SECTION)
        if section is None or self.route != LIST_ROUTE:
            return None
        return [child["id"] for child in section["children"] if child["id"].startswith(ITEM_ROW_PREFIX)]

    def ids(self):
        return set(self.nodes)
