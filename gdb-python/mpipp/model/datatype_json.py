"""Datatypes as JSON and back, losslessly (gdb-free).

A process answers `mpipp context -json` with the datatypes its MPI calls
use; the job console rebuilds them here to compare signatures across ranks.
Everything a Datatype holds survives the round trip: the constructor's four
argument arrays, the recorded size and extents, name, handle, committed and
freed state, serial, creation site, the kind and members of predefined types,
the MPI constants, and shared children (a child used twice is one node).

Document:  {"format": FORMAT, "nodes": [NODE, ...], "roots": {key: index},
            "constants": [{field: value}, ...]}
NODE:      {"combiner", "integers", "addresses", "large_counts",
            "children": [index], "size", "lb", "extent", "true_lb",
            "true_extent", "name", "handle", "committed", "freed", "serial",
            "created_at", "kind", "members": [[offset, index]] | null,
            "constants": index}
Nodes come children first, so a child's index is always smaller than its
parent's: a document cannot describe a cycle, and loading is one pass.
"""

from dataclasses import fields

from .datatype import Constants, Datatype, validate
from .errors import TypeTreeError

FORMAT = "mpipp-datatypes/1"
SCALARS = ("combiner", "size", "lb", "extent", "true_lb", "true_extent", "name", "handle",
           "committed", "freed", "serial", "created_at", "kind")
ARRAYS = ("integers", "addresses", "large_counts")
CONSTANT_FIELDS = tuple(f.name for f in fields(Constants))
MAX_NODES = 1 << 20


def dump_types(roots):
    """The document for {key: Datatype} (keys become strings)."""
    nodes, index_of, constants, constants_index = [], {}, [], {}

    def constants_of(dt):
        key = id(dt.constants)
        if key not in constants_index:
            constants_index[key] = len(constants)
            constants.append({name: getattr(dt.constants, name) for name in CONSTANT_FIELDS})
        return constants_index[key]

    def visit(dt):
        """Post-order without recursion: a tree may be datatype.MAX_DEPTH levels deep."""
        stack = [(dt, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in index_of:
                continue
            kids = list(node.children or ()) + [t for _o, t in node.members or ()]
            if not expanded:
                stack.append((node, True))
                stack.extend((k, False) for k in reversed(kids) if id(k) not in index_of)
                continue
            doc = {name: getattr(node, name) for name in SCALARS}
            doc.update({name: [int(v) for v in getattr(node, name) or ()] for name in ARRAYS})
            doc["children"] = [index_of[id(k)] for k in node.children or ()]
            doc["members"] = (None if node.members is None else
                              [[int(o), index_of[id(t)]] for o, t in node.members])
            doc["constants"] = constants_of(node)
            index_of[id(node)] = len(nodes)
            nodes.append(doc)
        return index_of[id(dt)]

    out_roots = {str(key): visit(dt) for key, dt in roots.items()}
    return {"format": FORMAT, "nodes": nodes, "roots": out_roots, "constants": constants}


def load_types(doc):
    """{key: Datatype} from a document of dump_types (TypeTreeError if malformed)."""
    try:
        if doc.get("format") != FORMAT:
            raise TypeTreeError("not an mpipp datatype document (format %r)" % doc.get("format"))
        constants = [Constants(**{k: int(c[k]) for k in CONSTANT_FIELDS if k in c})
                     for c in doc["constants"]]
        raw_nodes = doc["nodes"]
        if len(raw_nodes) > MAX_NODES:
            raise TypeTreeError("datatype document has %d nodes" % len(raw_nodes))
        built = []
        for k, node in enumerate(raw_nodes):
            def earlier(i):
                if not isinstance(i, int) or not 0 <= i < k:
                    raise TypeTreeError("datatype document node %d refers to node %r" % (k, i))
                return built[i]
            members = node["members"]
            shared = node["constants"]
            if not isinstance(shared, int) or not 0 <= shared < len(constants):
                raise TypeTreeError("datatype document node %d refers to constants %r"
                                    % (k, shared))
            built.append(Datatype(
                integers=[int(v) for v in node["integers"]],
                addresses=[int(v) for v in node["addresses"]],
                large_counts=[int(v) for v in node["large_counts"]],
                children=[earlier(i) for i in node["children"]],
                members=None if members is None else [(int(o), earlier(i)) for o, i in members],
                constants=constants[shared],
                **{name: node[name] for name in SCALARS}))
        out = {}
        for key, index in doc["roots"].items():
            if not isinstance(index, int) or not 0 <= index < len(built):
                raise TypeTreeError("datatype document root %s refers to node %r" % (key, index))
            out[key] = built[index]
        return out
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise TypeTreeError("malformed datatype document (%s: %s)" % (type(err).__name__, err)) \
            from None


def to_json(dt):
    """One datatype as a document (its root key is "0")."""
    return dump_types({"0": dt})


def from_json(doc):
    """The datatype of a to_json document, validated."""
    return validate(load_types(doc)["0"])
