"""Hypothesis strategies for the CLI fuzzer (tests/test_fuzz_cli.py).

`spec_trees()` draws a random *valid* spec tree following the DSL (docs/reference/spec-rules.md,
schemas/operator.schema.json, schemas/domain.schema.json): one or two vendor domains, each with
opset versions and type sets, one to four operators with one to three versions (based_on
chains, inputs/outputs with every option, attributes of every type with defaults, type
constraints, docs, removed_in, status, deprecated) and sometimes a release table.

`mutated_trees(kind)` draws a valid tree and damages it in one way, named by `kind`
(see MUTATIONS): raw byte edits, YAML structure edits, wrong value types, deep nesting, huge
integers, non-finite floats, hostile names, special files and so on. The result is a
`FuzzCase`: the files to write (relative path -> bytes or a special entry) and what the tree
declares (domains, operators), so that the test can run `show`/`inventory` and import the
generated package.

Names in the valid tree come from disjoint pools (operators `Op...`, inputs `x...`, outputs
`y...`, attributes `a_...`, type parameters `T...`, type sets `ts_...`), so a rename mutation can
replace one name everywhere with a plain string substitution of the data.
"""

from __future__ import annotations

import copy
import keyword
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import strategies as st

# ---------------------------------------------------------------------------------------------
# The valid tree
# ---------------------------------------------------------------------------------------------

ELEMENTS = (
    "float", "float16", "double", "bfloat16", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64",
)  # fmt: skip
SCALAR_ATTR_TYPES = ("float", "int", "string")
LIST_ATTR_TYPES = ("floats", "ints", "strings")
NO_DEFAULT_ATTR_TYPES = (
    "tensor", "graph", "sparse_tensor", "type_proto", "tensors", "graphs", "sparse_tensors", "type_protos",
)  # fmt: skip

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

words = st.from_regex(r"[a-z]{2,6}", fullmatch=True)
op_names = st.from_regex(r"Op[A-Z][a-z0-9]{0,5}", fullmatch=True)
input_names = st.from_regex(r"x[a-z0-9]{0,4}", fullmatch=True)
output_names = st.from_regex(r"y[a-z0-9]{0,4}", fullmatch=True)
attr_names = st.from_regex(r"a_[a-z0-9]{1,5}", fullmatch=True)
set_names = st.from_regex(r"ts_[a-z]{1,5}", fullmatch=True)
# Any Unicode text YAML can carry (no surrogates); docs and string defaults may be anything.
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
plain_docs = st.from_regex(r"[A-Za-z][A-Za-z0-9 ,.`()*_-]{0,60}", fullmatch=True)
docs = st.one_of(plain_docs, plain_docs.map(lambda s: s + "\n\nSecond paragraph with `code`.\n"))


def tensor_types() -> st.SearchStrategy[str]:
    return st.sampled_from(ELEMENTS).map(lambda e: f"tensor({e})")


def type_strings() -> st.SearchStrategy[str]:
    elem = st.sampled_from(ELEMENTS)
    return st.one_of(
        elem.map(lambda e: f"tensor({e})"),
        elem.map(lambda e: f"seq(tensor({e}))"),
        elem.map(lambda e: f"optional(tensor({e}))"),
        elem.map(lambda e: f"optional(seq(tensor({e})))"),
        st.sampled_from(("float", "int64")).map(lambda e: f"sparse_tensor({e})"),
        st.tuples(st.sampled_from(("int64", "string", "int32")), elem).map(
            lambda kv: f"map({kv[0]}, tensor({kv[1]}))"
        ),
    )


def attribute_defs() -> st.SearchStrategy[dict[str, Any]]:
    finite = st.floats(width=32, allow_nan=False, allow_infinity=False)
    ints = st.integers(INT64_MIN, INT64_MAX)
    small = st.lists
    with_default = st.one_of(
        finite.map(lambda v: {"type": "float", "default": v}),
        ints.map(lambda v: {"type": "int", "default": v}),
        texts.map(lambda v: {"type": "string", "default": v}),
        small(finite, max_size=4).map(lambda v: {"type": "floats", "default": v}),
        small(ints, max_size=4).map(lambda v: {"type": "ints", "default": v}),
        small(texts, max_size=3).map(lambda v: {"type": "strings", "default": v}),
    )
    required = st.sampled_from(SCALAR_ATTR_TYPES + LIST_ATTR_TYPES + NO_DEFAULT_ATTR_TYPES).map(
        lambda t: {"type": t, "required": True}
    )
    optional = st.sampled_from(SCALAR_ATTR_TYPES + LIST_ATTR_TYPES + NO_DEFAULT_ATTR_TYPES).map(
        lambda t: {"type": t}
    )

    @st.composite
    def with_doc(draw: st.DrawFn) -> dict[str, Any]:
        attr = dict(draw(st.one_of(with_default, required, optional)))
        if draw(st.booleans()):
            attr["doc"] = draw(docs)
        return attr

    return with_doc()


@st.composite
def parameters(
    draw: st.DrawFn, names: st.SearchStrategy[str], count: int, type_params: list[str], first: int
) -> list[dict[str, Any]]:
    """`count` parameters; parameter i gets type_params[i - first] while there are any left (so
    every type parameter is used by someone), otherwise a type parameter or a concrete type."""
    picked = draw(st.lists(names, min_size=count, max_size=count, unique=True))
    out: list[dict[str, Any]] = []
    for i, name in enumerate(picked):
        slot = first + i
        if 0 <= slot < len(type_params):
            type_ = type_params[slot]
        elif type_params and draw(st.booleans()):
            type_ = draw(st.sampled_from(type_params))
        else:
            type_ = draw(type_strings())
        param: dict[str, Any] = {"name": name, "type": type_}
        last = i == count - 1
        option = draw(st.sampled_from(("single", "optional", "variadic") if last else ("single", "optional")))
        if option != "single" or draw(st.booleans()):
            param["option"] = option
        if option == "variadic":
            if draw(st.booleans()):
                param["homogeneous"] = draw(st.booleans())
            if draw(st.booleans()):
                param["min_arity"] = draw(st.integers(0, 4))
        if draw(st.booleans()):
            param["differentiability"] = draw(
                st.sampled_from(("unknown", "differentiable", "non_differentiable"))
            )
        if draw(st.booleans()):
            param["doc"] = draw(docs)
        out.append(param)
    return out


@st.composite
def allowed_lists(draw: st.DrawFn, sets: list[str]) -> str | list[str]:
    choices = [f"@{s}" for s in sets]
    if choices and draw(st.booleans()):
        return draw(st.sampled_from(choices))
    items = draw(
        st.lists(
            st.one_of(type_strings(), *([st.sampled_from(choices)] if choices else [])),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    return items[0] if len(items) == 1 and draw(st.booleans()) else items


@st.composite
def io_block(draw: st.DrawFn, type_params: list[str]) -> dict[str, Any]:
    n_in = draw(st.integers(0, 3))
    n_out = draw(st.integers(1, 2))
    return {
        "inputs": draw(parameters(input_names, n_in, type_params, 0)),
        "outputs": draw(parameters(output_names, n_out, type_params, n_in)),
    }


@dataclass
class OpInfo:
    domain: str
    name: str
    since: list[int]
    removed_in: int | None = None


@dataclass
class FuzzCase:
    """What the test writes and runs. `files` maps a path relative to the tree root to bytes, or
    to a special entry: ("symlink", target), ("dir", None)."""

    kind: str
    files: dict[str, Any]
    domains: dict[str, list[int]]
    ops: list[OpInfo]
    note: str = ""
    data: dict[str, Any] = field(default_factory=dict)  # the YAML data before rendering
    original: dict[str, bytes] = field(default_factory=dict)  # the valid tree, before the mutation
    expect_line: tuple[str, int] | None = None  # (file, line) an error must point at, when known


@st.composite
def operator_files(
    draw: st.DrawFn, domain: str, versions: list[int], sets: list[str], name: str
) -> tuple[dict[str, Any], OpInfo]:
    n = draw(st.integers(1, min(3, len(versions))))
    since = sorted(draw(st.lists(st.sampled_from(versions), min_size=n, max_size=n, unique=True)))
    entries: list[dict[str, Any]] = []
    resolved: dict[int, dict[str, Any]] = {}  # since -> {"tps": [...], "attrs": {...}}
    for idx, sv in enumerate(since):
        entry: dict[str, Any] = {"since_version": sv}
        base = draw(st.sampled_from(since[:idx])) if idx and draw(st.booleans()) else None
        if base is None:
            n_tp = draw(st.integers(0, 2))
            tps = [f"T{i}" if i else "T" for i in range(n_tp)]
            io = draw(io_block(tps))
            if len(io["inputs"]) + len(io["outputs"]) < len(tps):
                tps = tps[: len(io["inputs"]) + len(io["outputs"])]
            entry.update(io)
            attrs = draw(st.dictionaries(attr_names, attribute_defs(), max_size=4))
            if attrs:
                entry["attributes"] = attrs
            if tps:
                entry["type_constraints"] = {
                    tp: (
                        {"allowed": draw(allowed_lists(sets))}
                        | ({"doc": draw(docs)} if draw(st.booleans()) else {})
                    )
                    for tp in tps
                }
        else:
            entry["based_on"] = base
            tps = list(resolved[base]["tps"])
            attrs = dict(resolved[base]["attrs"])
            if draw(st.booleans()):
                io = draw(io_block(tps))
                if len(io["inputs"]) + len(io["outputs"]) >= len(tps):
                    entry.update(io)
            new_attrs: dict[str, Any] = {}
            for old in sorted(attrs):
                what = draw(st.sampled_from(("keep", "keep", "drop", "redefine")))
                if what == "drop":
                    new_attrs[old] = None
                    del attrs[old]
                elif what == "redefine":
                    new_attrs[old] = attrs[old] = draw(attribute_defs())
            for extra, attr in draw(st.dictionaries(attr_names, attribute_defs(), max_size=2)).items():
                if extra not in attrs and extra not in new_attrs:
                    new_attrs[extra] = attrs[extra] = attr
            if new_attrs:
                entry["attributes"] = new_attrs
            if tps and draw(st.booleans()):
                tp = draw(st.sampled_from(tps))
                entry["type_constraints"] = {tp: {"allowed": draw(allowed_lists(sets))}}
        resolved[sv] = {"tps": tps, "attrs": attrs}
        if draw(st.booleans()):
            entry["doc"] = draw(docs)
        if draw(st.integers(0, 4)) == 0:
            entry["status"] = draw(st.sampled_from(("stable", "experimental")))
        if draw(st.integers(0, 5)) == 0:
            entry["deprecated"] = draw(st.booleans())
        entries.append(entry)
    data: dict[str, Any] = {"operator": name, "domain": domain}
    later = [v for v in versions if v > since[-1]]
    removed = draw(st.sampled_from(later)) if later and draw(st.integers(0, 3)) == 0 else None
    if removed is not None:
        data["removed_in"] = removed
    if draw(st.integers(0, 4)) == 0:
        data["replaced_by"] = draw(plain_docs)
    data["versions"] = entries
    return data, OpInfo(domain, name, since, removed)


@st.composite
def domain_trees(draw: st.DrawFn, domain: str) -> tuple[dict[str, Any], list[OpInfo], list[int]]:
    versions = sorted(draw(st.lists(st.integers(1, 12), min_size=1, max_size=4, unique=True)))
    ir = draw(st.integers(3, 8))
    opset_versions = []
    for v in versions:
        ir += draw(st.integers(0, 1))
        row: dict[str, Any] = {"version": v, "ir_version": ir}
        if draw(st.booleans()):
            row["doc"] = draw(plain_docs)
        opset_versions.append(row)
    domain_data: dict[str, Any] = {"domain": domain}
    if draw(st.booleans()):
        domain_data["doc"] = draw(docs)
    domain_data["opset_versions"] = opset_versions
    sets = draw(st.lists(set_names, max_size=3, unique=True))
    if sets:
        type_sets: dict[str, list[str]] = {}
        for i, s in enumerate(sets):
            refs = [f"@{p}" for p in sets[:i]]
            items = draw(st.lists(tensor_types(), min_size=1, max_size=3, unique=True))
            if refs and draw(st.booleans()):
                items.append(draw(st.sampled_from(refs)))
            type_sets[s] = items
        domain_data["type_sets"] = type_sets
    files: dict[str, Any] = {f"{domain}/domain.yaml": domain_data}
    ops: list[OpInfo] = []
    for name in draw(st.lists(op_names, min_size=1, max_size=4, unique=True)):
        data, info = draw(operator_files(domain, versions, sets, name))
        files[f"{domain}/{name}.yaml"] = data
        ops.append(info)
    return files, ops, versions


@st.composite
def spec_trees(draw: st.DrawFn) -> FuzzCase:
    domains = draw(
        st.lists(
            st.tuples(words, words).map(lambda w: f"com.{w[0]}.{w[1]}"), min_size=1, max_size=2, unique=True
        )
    )
    files: dict[str, Any] = {}
    ops: list[OpInfo] = []
    table: dict[str, list[int]] = {}
    irs: dict[str, dict[int, int]] = {}
    for domain in domains:
        more, more_ops, versions = draw(domain_trees(domain))
        files.update(more)
        ops.extend(more_ops)
        table[domain] = versions
        irs[domain] = {
            row["version"]: row["ir_version"] for row in more[f"{domain}/domain.yaml"]["opset_versions"]
        }
    if draw(st.integers(0, 2)) == 0:
        rows = []
        step = draw(st.integers(1, 3))
        for i in range(step):
            opsets = {d: table[d][min(i, len(table[d]) - 1)] for d in domains}
            need = max(irs[d][v] for d, v in opsets.items())
            rows.append({"release": f"20{20 + i}.1", "ir_version": need + 1, "opsets": opsets})
        release_data: dict[str, Any] = {"releases": rows}
        if draw(st.booleans()):
            release_data = {"doc": draw(plain_docs)} | release_data
        files["releases.yaml"] = release_data
    return FuzzCase("valid", files, table, ops, data=files)


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # a shared dict is written out twice, not aliased
        return True


def dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def render(case: FuzzCase) -> FuzzCase:
    """Turn every data file into YAML bytes (leaves bytes and special entries alone)."""
    out: dict[str, Any] = {}
    for path, value in case.files.items():
        if isinstance(value, (bytes, tuple)):
            out[path] = value
        else:
            out[path] = dump(value).encode("utf-8")
    case.files = out
    return case


# ---------------------------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------------------------

Slot = tuple[Any, Any]  # (container, key or index)


def slots(node: Any) -> Iterator[Slot]:
    """Every (container, key) inside `node`, depth first."""
    if isinstance(node, dict):
        for key in list(node):
            yield node, key
            yield from slots(node[key])
    elif isinstance(node, list):
        for i in range(len(node)):
            yield node, i
            yield from slots(node[i])


def data_files(case: FuzzCase) -> list[str]:
    return sorted(p for p, v in case.files.items() if isinstance(v, (dict, list)))


@st.composite
def pick_slot(draw: st.DrawFn, case: FuzzCase, want: Callable[[Any, Any], bool] | None = None) -> Slot | None:
    found = [
        s
        for path in data_files(case)
        for s in slots(case.files[path])
        if want is None or want(s[0], s[0][s[1]])
    ]
    return draw(st.sampled_from(found)) if found else None


@st.composite
def attribute_slot(draw: st.DrawFn, case: FuzzCase, types: tuple[str, ...]) -> Slot:
    """An attribute of one of `types`; when the tree has none, one is added to the first version
    of an operator (a first version is never based_on another)."""
    slot = draw(
        pick_slot(case, lambda p, v: isinstance(p, dict) and isinstance(v, dict) and v.get("type") in types)
    )
    if slot is not None:
        return slot
    path = draw(st.sampled_from([p for p in data_files(case) if "versions" in case.files[p]]))
    first = case.files[path]["versions"][0]
    attrs = first.setdefault("attributes", {})
    attrs["a_fuzz"] = {"type": draw(st.sampled_from(types))}
    return attrs, "a_fuzz"


def _is_int(_parent: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


WRONG_VALUES = (None, True, False, "text", "", 1.5, 0, -1, [], {}, [1, "a", None], {"k": "v"}, {"": None})
HUGE_INTS = (
    2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**63 - 1, 2**63, 2**64, 2**64 + 1, 10**30, -(2**31) - 1,
    -(2**63), -(2**63) - 1, 10**400,
)  # fmt: skip
NONFINITE = (float("nan"), float("inf"), float("-inf"))
FLOAT_RANGE = (3.5e38, 1e39, 1e300, -1e300, 5e-324, 1e-45, 2.0**128)
# Names that are C identifiers but may collide with the generated Python package or language.
HOSTILE_IDENTIFIERS = (
    *keyword.kwlist, "match", "case", "type", "_",
    "get", "versions", "importlib", "opset", "schema", "schemas", "domain", "DOMAIN", "DOMAINS",
    "OPERATORS", "OPSET_VERSIONS", "IR_VERSION", "VERSION", "self", "cls", "_outputs", "_name", "_schema",
    "Sequence", "ClassVar", "TensorValue", "OpsetBase", "OpSchemaInfo", "BuildError", "Value",
    "annotations", "TYPE_CHECKING", "ModuleType", "typing", "str", "int", "list", "object", "print",
    "__init__", "__class__", "__name__", "__getattr__", "__all__", "__dict__", "__slots__", "__", "_0",
    "Opset1", "opset1", "schema_loader", "math", "sys", "os",
)  # fmt: skip
WEIRD_NAMES = (
    "A\n", "A\nB", "A\nx.yaml:1:1: error[FAKE-RULE]: forged", "A\r", "A\t", " A", "A ", "", "1A", "A-B", "A.B",
    "Ä", "名前", "ﬁ", "A\u200b", "A\u0000", "Ω_op", "A" * 300, "😀", "A\x1b[31m", "\u202eA", "A'\"",
    "inf", "nan", "true", "null", "~", "1e3",
)  # fmt: skip
DEEP_KINDS = ("flow_list", "flow_map", "block_list", "type_seq", "type_optional", "type_map")


def rename_everywhere(case: FuzzCase, old: str, new: Any) -> None:
    """Replace `old` (a name from one of the disjoint pools) by `new` in every key and string."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {walk(k): walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, str):
            if node == old:
                return new
            if isinstance(new, str) and old.startswith("ts_") and node == f"@{old}":
                return f"@{new}"
        return node

    for path in data_files(case):
        case.files[path] = walk(case.files[path])


@st.composite
def mutate_names(draw: st.DrawFn, case: FuzzCase, pool: tuple[Any, ...]) -> str:
    """Rename one operator, parameter, attribute, type parameter, type set or domain."""
    names: list[tuple[str, str]] = []
    for info in case.ops:
        names.append(("op", info.name))
    for path in data_files(case):
        for parent, key in slots(case.files[path]):
            value = parent[key]
            if key == "name" and isinstance(value, str):
                names.append(("param", value))
            elif key in ("attributes", "type_constraints", "type_sets") and isinstance(value, dict):
                names.extend(("key", k) for k in value)
    names.extend(("domain", d) for d in case.domains)
    # Operators most often: their names become modules, classes and methods of the generated code.
    weights = {"op": 5, "param": 2, "key": 2, "domain": 1}
    kinds = [k for k in weights for _ in range(weights[k]) if any(n[0] == k for n in names)]
    what = draw(st.sampled_from(kinds))
    old = draw(st.sampled_from(sorted({n for k, n in names if k == what})))
    if what == "domain" and pool is HOSTILE_IDENTIFIERS and draw(st.booleans()):
        # A second domain whose Python package name is the same as this one's.
        twin = draw(
            st.sampled_from(
                (
                    old[::-1].replace(".", "-", 1)[::-1],
                    old.replace(".", "-", 1),
                    old[::-1].replace(".", "_", 1)[::-1],
                )
            )
        )
        for path in [p for p in data_files(case) if p.startswith(f"{old}/")]:
            text = dump(case.files[path]).replace(f"domain: {old}", f"domain: {twin}")
            case.files[f"{twin}/{path[len(old) + 1 :]}"] = yaml.safe_load(text)
        case.domains[twin] = list(case.domains[old])
        return f"domain {old!r} and its twin {twin!r}"
    new = draw(st.sampled_from(pool))
    if draw(st.integers(0, 3)) == 0:
        new = new.capitalize()
    if what == "domain":
        new = draw(st.sampled_from((
            f"com.{new}.x", f"com.acme.{new}", old.replace(".", "-", 1), old + ".", old.upper(),
            old + "\n", "ai.onnx", "", "com..x", f"{old}.{new}",
        )))  # fmt: skip
        rename_everywhere(case, old, new)
        safe = "/" not in new and "\0" not in new and new not in ("", ".", "..")
        moved = {}
        for path, value in case.files.items():
            if path.startswith(f"{old}/") and safe:
                moved[f"{new}/{path[len(old) + 1 :]}"] = value
            else:
                moved[path] = value
        case.files = moved
        case.domains = {new if d == old else d: v for d, v in case.domains.items()}
        for info in case.ops:
            if info.domain == old:
                info.domain = new
        return f"domain {old!r} -> {new!r}"
    rename_everywhere(case, old, new)
    if what == "op":
        for info in case.ops:
            if info.name == old:
                info.name = new
                src = f"{info.domain}/{old}.yaml"
                if isinstance(new, str) and "/" not in new and "\0" not in new and new and len(new) < 200:
                    case.files[f"{info.domain}/{new}.yaml"] = case.files.pop(src)
    return f"{what} {old!r} -> {new!r}"


def deep_text(kind: str, depth: int) -> str:
    if kind == "flow_list":
        return "[" * depth + "1" + "]" * depth
    if kind == "flow_map":
        return "{a: " * depth + "1" + "}" * depth
    if kind == "block_list":
        return "- " * depth + "1"
    inner = "tensor(float)"
    wrap = {"type_seq": "seq({})", "type_optional": "optional({})", "type_map": "map(int64, {})"}[kind]
    for _ in range(depth):
        inner = wrap.format(inner)
    return inner


MARK = "FUZZ_PLACEHOLDER_9f3"


@st.composite
def mutated_trees(draw: st.DrawFn, kind: str) -> FuzzCase:
    case = draw(spec_trees())
    case.kind = kind
    case.original = {path: dump(value).encode("utf-8") for path, value in case.files.items()}
    note = ""
    if kind == "valid":
        pass
    elif kind == "delete_key":
        slot = draw(pick_slot(case))
        if slot is not None:
            parent, key = slot
            note = f"delete {key!r}"
            del parent[key]
    elif kind == "wrong_type":
        slot = draw(pick_slot(case))
        if slot is not None:
            parent, key = slot
            parent[key] = copy.deepcopy(draw(st.sampled_from(WRONG_VALUES)))
            note = f"{key!r} -> {parent[key]!r}"
    elif kind == "value":
        slot = draw(pick_slot(case, lambda _p, v: isinstance(v, (int, str)) and not isinstance(v, bool)))
        if slot is not None:
            parent, key = slot
            old = parent[key]
            parent[key] = draw(st.integers(-3, 14)) if isinstance(old, int) else draw(texts)
            note = f"{key!r}: {old!r} -> {parent[key]!r}"
    elif kind == "huge_int":
        slot = draw(pick_slot(case, _is_int))
        if slot is not None:
            parent, key = slot
            parent[key] = draw(st.one_of(st.sampled_from(HUGE_INTS), st.sampled_from((1.0, 2.0, 1e20))))
            note = f"{key!r} -> {parent[key]!r}"
    elif kind == "huge_versions":
        # Shift every opset version of the tree consistently, so that only the range is wrong.
        shift = draw(st.sampled_from((2**31, 2**32, 2**63, 2**64, 10**20)))
        keys = ("version", "since_version", "based_on", "removed_in")
        for path in data_files(case):
            for parent, key in slots(case.files[path]):
                if key in keys and _is_int(parent, parent[key]) and not path.endswith("releases.yaml"):
                    parent[key] += shift
                if key == "ir_version" and draw(st.booleans()):
                    parent[key] += shift
        if "releases.yaml" in case.files:
            del case.files["releases.yaml"]
        case.domains = {d: [v + shift for v in vs] for d, vs in case.domains.items()}
        for info in case.ops:
            info.since = [v + shift for v in info.since]
        note = f"versions + {shift}"
    elif kind == "attr_values":
        # Defaults out of their type's range: int64 overflow, non-finite, float32 overflow.
        slot = draw(attribute_slot(case, ("int", "ints", "float", "floats")))
        parent, key = slot
        attr = parent[key]
        pool = {"int": HUGE_INTS, "ints": HUGE_INTS}.get(attr["type"], NONFINITE + FLOAT_RANGE)
        value = draw(st.sampled_from(pool))
        attr.pop("required", None)
        attr["default"] = [value] if attr["type"].endswith("s") else value
        note = f"{key}: {attr}"
    elif kind == "nonfinite":
        slot = draw(attribute_slot(case, ("float", "floats")))
        parent, key = slot
        attr = parent[key]
        value = draw(st.sampled_from(NONFINITE))
        attr.pop("required", None)
        attr["default"] = [1.0, value] if attr["type"] == "floats" else value
        note = f"{key}: {attr}"
    elif kind == "hostile_identifiers":
        note = draw(mutate_names(case, HOSTILE_IDENTIFIERS))
    elif kind == "weird_names":
        note = draw(mutate_names(case, WEIRD_NAMES))
    elif kind == "weird_keys":
        # Keys YAML resolves to non-strings (.inf, 1, true, null) and odd strings.
        slot = draw(pick_slot(case, lambda _p, v: isinstance(v, dict) and bool(v)))
        if slot is not None:
            parent, key = slot
            mapping = parent[key]
            victim = draw(st.sampled_from(sorted(mapping, key=str)))
            new_key = draw(st.sampled_from((float("inf"), float("nan"), 1, True, None, 1.5, "", " ", "\n")))
            mapping[new_key] = mapping.pop(victim)
            note = f"key {victim!r} -> {new_key!r}"
    elif kind == "deep_nesting":
        deep = draw(st.sampled_from(DEEP_KINDS))
        depth = draw(st.sampled_from((50, 500, 999, 1000, 1500, 3000)))
        want = None if not deep.startswith("type") else (lambda _p, v: isinstance(v, str) and "(" in v)
        slot = draw(pick_slot(case, want))
        if slot is not None:
            parent, key = slot
            parent[key] = MARK
            note = f"{key!r} -> {deep} x{depth}"
        render(case)
        text = deep_text(deep, depth)
        for path, value in case.files.items():
            if isinstance(value, bytes) and MARK.encode() in value:
                if deep == "block_list":
                    # A block sequence needs its own line, indented deeper than the key.
                    lines = value.decode().splitlines(keepends=True)
                    out = []
                    for line in lines:
                        if MARK in line:
                            indent = len(line) - len(line.lstrip())
                            head = line.replace(MARK, "").rstrip()
                            if head.lstrip().startswith("- ") and head.strip() == "-":
                                line = head + "\n" + " " * (indent + 2) + text + "\n"
                            else:
                                line = head + "\n" + " " * (indent + 2) + text + "\n"
                        out.append(line)
                    case.files[path] = "".join(out).encode()
                else:
                    case.files[path] = value.replace(MARK.encode(), text.encode())
    elif kind == "deep_dirs":
        depth = draw(st.sampled_from((20, 200, 1100)))
        path = draw(st.sampled_from(sorted(p for p in case.files if p.endswith(".yaml") and "/" in p)))
        domain, _, rest = path.partition("/")
        case.files[f"{domain}/" + "d/" * depth + rest] = case.files.pop(path)
        note = f"{path} under {depth} folders"
    elif kind == "yaml_text":
        render(case)
        path = draw(st.sampled_from(sorted(case.files)))
        text: bytes = case.files[path]
        edit = draw(st.sampled_from((
            "tag", "alias", "merge", "directive", "documents", "bom", "crlf", "tab", "nul", "control",
            "dup_line", "empty", "only_comment", "scalar", "list", "anchor_cycle", "long_line", "set",
        )))  # fmt: skip
        lines = text.splitlines(keepends=True)
        at = draw(st.integers(0, max(0, len(lines) - 1)))
        if edit == "tag":
            text = text.replace(b": ", b": !!python/object:os.system ", 1)
        elif edit == "alias":
            text = b"x_anchor: &a [1, 2]\n" + text + b"extra: *a\n"
        elif edit == "merge":
            text = text + b"m: &m {a: 1}\nn:\n  <<: *m\n"
        elif edit == "directive":
            text = b"%YAML 1.1\n---\n" + text
        elif edit == "documents":
            text = text + b"---\n" + text
        elif edit == "bom":
            text = b"\xef\xbb\xbf" + text
        elif edit == "crlf":
            text = text.replace(b"\n", b"\r\n")
        elif edit == "tab":
            lines[at] = b"\t" + lines[at]
            text = b"".join(lines)
        elif edit in ("nul", "control"):
            bad = (
                b"\x00"
                if edit == "nul"
                else draw(st.sampled_from((b"\x07", b"\x1b", b"\x7f", b"\x85", b"\xc2\x85")))
            )
            cut = draw(st.integers(0, 3))
            lines[at] = lines[at][:cut] + bad + lines[at][cut:]
            text = b"".join(lines)
            if bad != b"\xc2\x85" and len(lines[at].rstrip(b"\r\n")) > cut and b"\r" not in text:
                # The first problem of the file is this character (NEL is a line break: skipped).
                case.expect_line = (path, at + 1)
        elif edit == "dup_line":
            lines.insert(at, lines[at])
            text = b"".join(lines)
        elif edit == "empty":
            text = b""
        elif edit == "only_comment":
            text = b"# nothing here\n"
        elif edit == "scalar":
            text = draw(st.sampled_from((b"42\n", b"null\n", b"'text'\n", b".nan\n", b"~\n")))
        elif edit == "list":
            text = b"- 1\n- 2\n"
        elif edit == "anchor_cycle":
            text = text + b"loop: &l [*l]\n"
        elif edit == "long_line":
            text = text + b"doc2: " + b"x" * 200_000 + b"\n"
        elif edit == "set":
            text = text + b"s: !!set {a, b}\n"
        case.files[path] = text
        note = f"{path}: {edit} at line {at + 1}"
    elif kind == "bytes":
        render(case)
        path = draw(st.sampled_from(sorted(case.files)))
        raw = bytearray(case.files[path])
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.sampled_from(("flip", "insert", "delete", "truncate")))
            pos = draw(st.integers(0, max(0, len(raw) - 1)))
            if op == "flip" and raw:
                raw[pos] = draw(st.integers(0, 255))
            elif op == "insert":
                raw[pos:pos] = draw(st.binary(min_size=1, max_size=4))
            elif op == "delete" and raw:
                del raw[pos : pos + draw(st.integers(1, 8))]
            elif op == "truncate":
                del raw[pos:]
        case.files[path] = bytes(raw)
        note = f"{path}: byte edits"
    elif kind == "files":
        edit = draw(st.sampled_from((
            "dangling_symlink", "symlink_loop", "dir_named_yaml", "empty_yaml", "binary_yaml",
            "symlink_dup", "stray_file", "unreadable",
        )))  # fmt: skip
        domain = draw(st.sampled_from(sorted(case.domains)))
        if edit == "dangling_symlink":
            case.files[f"{domain}/Gone.yaml"] = ("symlink", "does-not-exist.yaml")
        elif edit == "symlink_loop":
            case.files[f"{domain}/Loop.yaml"] = ("symlink", "Loop.yaml")
        elif edit == "dir_named_yaml":
            case.files[f"{domain}/Dir.yaml"] = ("dir", None)
        elif edit == "empty_yaml":
            case.files[f"{domain}/Empty.yaml"] = b""
        elif edit == "binary_yaml":
            case.files[f"{domain}/Bin.yaml"] = bytes(range(256))
        elif edit == "symlink_dup":
            name = draw(st.sampled_from(sorted(p for p in case.files if p.startswith(f"{domain}/Op"))))
            case.files[f"{domain}/Copy.yaml"] = ("symlink", name.partition("/")[2])
        elif edit == "stray_file":
            case.files[f"{domain}/notes.txt"] = b"not a spec\n"
        elif edit == "unreadable":
            case.files[f"{domain}/Secret.yaml"] = ("unreadable", b"operator: Secret\n")
        note = f"{domain}: {edit}"
    else:  # pragma: no cover - a typo in the test's kind list
        raise ValueError(kind)
    render(case)
    case.note = note
    return case


MUTATIONS = (
    "valid", "bytes", "yaml_text", "delete_key", "wrong_type", "value", "weird_keys", "huge_int",
    "huge_versions", "attr_values", "nonfinite", "hostile_identifiers", "weird_names", "deep_nesting",
    "deep_dirs", "files",
)  # fmt: skip
