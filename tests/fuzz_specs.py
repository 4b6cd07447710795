"""Hypothesis strategies for the CLI fuzzer (tests/test_fuzz_cli.py): the valid tree.

`spec_trees()` draws a random *valid* spec tree following the DSL (docs/reference/spec-rules.md,
schemas/operator.schema.json, schemas/domain.schema.json): one or two vendor domains, each with
opset versions and type sets, one to four operators with one to three versions (based_on
chains, inputs/outputs with every option, attributes of every type with defaults, type
constraints, docs, removed_in, status, deprecated) and sometimes a release table. The result is
a `FuzzCase`: the files to write (relative path -> bytes or a special entry) and what the tree
declares (domains, operators), so that the test can run `show`/`inventory` and import the
generated package. `render` turns its data files into YAML bytes.

The damage done to such a tree (`mutated_trees(kind)`) is tests/fuzz_mutations.py.

Names in the valid tree come from disjoint pools (operators `Op...`, inputs `x...`, outputs
`y...`, attributes `a_...`, type parameters `T...`, type sets `ts_...`), so a rename mutation can
replace one name everywhere with a plain string substitution of the data.
"""

from __future__ import annotations

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
