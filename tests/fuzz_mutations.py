"""Hypothesis strategies for the CLI fuzzer (tests/test_fuzz_cli.py): damage to a valid tree.

`mutated_trees(kind)` draws a valid tree (tests/fuzz_specs.py, `spec_trees`) and damages it in one
way, named by `kind` (see MUTATIONS): raw byte edits, YAML structure edits, wrong value types, deep
nesting, huge integers, non-finite floats, hostile names, special files and so on. The result is
the tree's `FuzzCase`, rendered, with the valid tree it started from kept in `original`.
"""

from __future__ import annotations

import copy
import keyword
from collections.abc import Callable, Iterator
from typing import Any

import yaml
from fuzz_specs import FuzzCase, dump, render, spec_trees, texts
from hypothesis import strategies as st

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
