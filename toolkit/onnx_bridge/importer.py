"""Write the operator catalog of an installed onnx (or onnxruntime) package as DSL files.

Runs at run time against whatever package is installed, into a folder the caller chooses:
the imported doc text belongs to ONNX and is never committed to this repository.

`source="onnxruntime"` writes onnxruntime's whole operator table, every schema
`get_all_operator_schema()` returns: the standard domains as onnxruntime has them (its own
additions such as LayerNormalization-1 included) and its vendor domains (com.microsoft,
com.microsoft.nchwc, com.ms.internal.nhwc, ...), read through `ort_schemas`.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from toolkit.load import yaml12
from toolkit.load.schema_files import SCHEMA_DIR
from toolkit.load.writer import write_tree
from toolkit.model.attr_defaults import DEFAULTABLE_ATTR_TYPES
from toolkit.model.diagnostics import UsageError
from toolkit.model.spec import FormalParameter, OpSchema, TypeConstraint, display_domain
from toolkit.onnx_bridge.import_defaults import LITERAL_DEFAULT_NUMBERS, literal_default
from toolkit.onnx_bridge.import_functions import function_entry
from toolkit.onnx_bridge.missing import not_installed
from toolkit.onnx_bridge.overlay import overlay_adapter_entry, replacement
from toolkit.onnx_bridge.shape_overlay import add_shape_rules
from toolkit.onnx_bridge.type_facts import add_type_sources

SCHEMA_HEADER = "# yaml-language-server: $schema={rel}{kind}.schema.json\n"

# The AttributeProto.AttributeType numbers of the defaults written as YAML scalars or lists.
_SCALAR_DEFAULT_NUMBERS = frozenset(t.proto_number for t in DEFAULTABLE_ATTR_TYPES)


def import_catalog(
    out: str | os.PathLike[str],
    *,
    source: str = "onnx",
    domains: Sequence[str] = (),
    schema_root: str | None = None,
    examples: bool = False,
    stats: dict[str, Any] | None = None,
) -> dict[str, int]:
    """Import the installed catalog into `out`; return operator-version counts per domain.
    `examples`: attach onnx's backend node test cases (`import_examples`); `stats` receives
    how many were attached and skipped."""
    schemas, opset_ranges, ir_for = _collect(source)
    wanted = {_canonical(d) for d in domains}
    by_domain: dict[str, list[Any]] = defaultdict(list)
    for schema in schemas:
        if not wanted or schema.domain in wanted:
            by_domain[schema.domain].append(schema)
    if wanted - set(by_domain):
        missing = ", ".join(sorted(display_domain(d) for d in wanted - set(by_domain)))
        raise UsageError(f"no operators of domain(s) {missing} in the installed {source}")
    files: dict[str, bytes] = {}
    counts: dict[str, int] = {}
    highs: dict[str, int] = {}
    attached = _backend_examples(by_domain, stats) if examples and source == "onnx" else None
    for domain, items in sorted(by_domain.items()):
        folder = display_domain(domain)
        low, high = opset_ranges.get(domain, (1, max(s.since_version for s in items)))
        high = max(high, max(s.since_version for s in items))
        highs[domain] = high
        files[f"{folder}/domain.yaml"] = _domain_file(domain, low, high, ir_for, source, schema_root)
        per_op: dict[str, list[Any]] = defaultdict(list)
        for schema in items:
            per_op[schema.name].append(schema)
        for name, versions in sorted(per_op.items()):
            versions.sort(key=lambda s: s.since_version)
            found = attached.entries if attached else {}
            per_version = {v.since_version: found.get((domain, name, v.since_version), []) for v in versions}
            files[f"{folder}/{name}.yaml"] = _operator_file(domain, name, versions, schema_root, per_version)
        if attached:
            files.update(
                (f"{folder}/{path}", data)
                for path, data in attached.files.items()
                if _domain_of(path, per_op)
            )
        counts[folder] = len(items)
    if source == "onnx":  # ONNX's release table (toolkit/data), trimmed to the imported opsets
        from toolkit.registry.releases import onnx_releases_file

        root = schema_root if schema_root is not None else SCHEMA_DIR.as_uri() + "/"
        files["releases.yaml"] = onnx_releases_file(highs, SCHEMA_HEADER.format(rel=root, kind="releases"))
    write_tree(Path(out), files, prune=False)
    return counts


def _backend_examples(by_domain: dict[str, list[Any]], stats: dict[str, Any] | None) -> Any:
    from toolkit.onnx_bridge.import_examples import backend_examples

    versions: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for domain, items in by_domain.items():
        for schema in items:
            versions[(domain, schema.name)].append(schema)
    for history in versions.values():
        history.sort(key=lambda s: s.since_version)
    attached = backend_examples(versions)
    if stats is not None:
        stats["examples"] = attached.count
        stats["skipped"] = dict(sorted(attached.skipped.items()))
    return attached


def _domain_of(path: str, per_op: dict[str, list[Any]]) -> bool:
    """Whether an example file (`examples/<Op>/...`) belongs to an operator of this domain."""
    return path.split("/")[1] in per_op


def _canonical(domain: str) -> str:
    return "" if domain == "ai.onnx" else domain


# The oldest releases import-onnx reads (#26): older onnx lacks the schema API it reads, and the
# releases from these on are the ones imported and diffed by tools/bench_history.py.
SUPPORTED = {"onnx": (1, 14), "onnxruntime": (1, 16)}


def check_release(package: str, version: str) -> None:
    """Refuse a release older than the supported range, naming it and the range (exit 2)."""
    import re

    found = re.match(r"(\d+)\.(\d+)", version)
    oldest = SUPPORTED[package]
    if found is None or (int(found[1]), int(found[2])) < oldest:
        raise UsageError(
            f"{package} {version} is installed; import-onnx supports {package} "
            f"{oldest[0]}.{oldest[1]} and later: pip install '{package}>={oldest[0]}.{oldest[1]}'"
        )


def _collect(source: str) -> tuple[list[Any], dict[str, tuple[int, int]], Any]:
    if source == "onnx":
        try:
            import onnx.defs
            import onnx.helper
        except ImportError:
            raise not_installed("onnx", "importing the onnx catalog") from None
        check_release("onnx", onnx.__version__)
        ranges = {k: tuple(v) for k, v in onnx.defs.C.schema_version_map().items()}

        def ir_for(domain: str, version: int) -> int:
            opset = onnx.helper.make_opsetid(domain, version)
            return int(onnx.helper.find_min_ir_version_for([opset], ignore_unknown=True))

        return list(onnx.defs.get_all_schemas_with_history()), ranges, ir_for  # type: ignore[return-value]
    if source == "onnxruntime":
        from toolkit.onnx_bridge.ort_schemas import ort_schemas

        schemas = ort_schemas(
            check_release
        )  # every domain onnxruntime registers, its default-domain additions too

        def ort_ir_for(domain: str, version: int) -> int:
            if domain in ("", "ai.onnx.ml"):
                import onnx.helper

                opset = onnx.helper.make_opsetid(domain, version)
                return int(onnx.helper.find_min_ir_version_for([opset], ignore_unknown=True))
            return 7

        return schemas, {}, ort_ir_for
    raise UsageError(f"unknown source '{source}' (onnx, onnxruntime)")


class _Dumper(yaml.SafeDumper):
    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """PyYAML quotes a string only when YAML 1.1 would read it as something else; specs are
        read by YAML 1.2 (`toolkit.load.yaml12`), so a string either version misreads (`0o17`,
        `1e3`, `off`) is quoted too."""
        tag = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        if (
            kind is yaml.ScalarNode
            and implicit[0]
            and tag == yaml12.STR
            and yaml12.resolve(value) != yaml12.STR
        ):
            return yaml12.resolve(value)
        return tag


def _str_presenter(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        # Block style keeps docs readable; the emitter falls back to an exact double-quoted
        # scalar when the text cannot be written as a block (e.g. trailing spaces).
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str_presenter)


def _dump(data: Any, kind: str, depth: int, schema_root: str | None) -> bytes:
    root = schema_root if schema_root is not None else SCHEMA_DIR.as_uri() + "/"
    header = SCHEMA_HEADER.format(rel=root, kind=kind)
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return (header + body).encode("utf-8")


def _domain_file(
    domain: str, low: int, high: int, ir_for: Any, source: str, schema_root: str | None
) -> bytes:
    opsets = []
    ir = 1
    for version in range(1, high + 1):
        ir = max(ir, ir_for(domain, version))
        opsets.append({"version": version, "ir_version": ir})
    data = {
        "domain": display_domain(domain),
        "doc": f"Imported from the installed {source} package.",
        "opset_versions": opsets,
    }
    return _dump(data, "domain", 1, schema_root)


def _operator_file(
    domain: str,
    name: str,
    versions: Iterable[Any],
    schema_root: str | None,
    examples: dict[int, list[dict[str, Any]]] | None = None,
) -> bytes:
    entries = []
    previous: OpSchema | None = None
    for schema in versions:
        entry = _version(schema)
        signature = _signature(schema)
        adapter = overlay_adapter_entry(previous, signature) if previous is not None else None
        if adapter is not None:  # our fact of how a node moves here (toolkit/data/onnx_adapters)
            entry["adapter"] = adapter
        previous = signature
        if examples and examples.get(schema.since_version):
            entry["examples"] = examples[schema.since_version]
        entries.append(entry)
    data: dict[str, Any] = {"operator": name, "domain": display_domain(domain)}
    successor = replacement(domain, name)  # onnx states it in prose only: our overlay's fact
    if successor:
        data["replaced_by"] = successor
    data["versions"] = entries
    return _dump(data, "operator", 1, schema_root)


def _version(schema: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"since_version": schema.since_version}
    if str(schema.support_level).endswith("EXPERIMENTAL"):
        entry["status"] = "experimental"
    if schema.deprecated:
        entry["deprecated"] = True
    if schema.doc:
        entry["doc"] = schema.doc
    if schema.inputs:
        entry["inputs"] = [_param(p) for p in schema.inputs]
    if schema.outputs:
        entry["outputs"] = [_param(p) for p in schema.outputs]
        add_type_sources(
            entry["outputs"], schema.domain, schema.name, schema.attributes, [p.name for p in schema.inputs]
        )
    if schema.attributes:
        try:
            entry["attributes"] = {name: _attribute(attr) for name, attr in sorted(schema.attributes.items())}
        except UsageError as error:
            where = f"{display_domain(schema.domain)}.{schema.name}-{schema.since_version}"
            raise UsageError(f"cannot import {where}: {error}") from None
    if schema.type_constraints:
        entry["type_constraints"] = {tc.type_param_str: _constraint(tc) for tc in schema.type_constraints}
    suppress = _historical_quirks(schema)
    if suppress:
        entry["suppress"] = suppress
    entry.update(function_entry(schema))
    add_shape_rules(entry, schema)
    return entry


def _signature(schema: Any) -> OpSchema:
    """The parts of an onnx schema the adapter overlay's type checks read (inputs, outputs,
    type constraints), as the model's OpSchema."""
    return OpSchema(
        schema.domain,
        schema.name,
        schema.since_version,
        inputs=tuple(FormalParameter(p.name, p.type_str) for p in schema.inputs),
        outputs=tuple(FormalParameter(p.name, p.type_str) for p in schema.outputs),
        type_constraints=tuple(
            TypeConstraint(tc.type_param_str, tuple(tc.allowed_type_strs)) for tc in schema.type_constraints
        ),
    )


def _historical_quirks(schema: Any) -> list[str]:
    """Rule ids an old onnx schema breaks and can no longer change (e.g. Split-1's output
    named `outputs...`, Tile-1's unused `T1`): the imported spec silences exactly those."""
    import re

    quirks = set()
    params = [*schema.inputs, *schema.outputs]
    if any(not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", p.name) for p in params):
        quirks.add("NAME-NOT-IDENTIFIER")
    used = {p.type_str for p in params}
    if any(tc.type_param_str not in used for tc in schema.type_constraints):
        quirks.add("TYPE-PARAM-UNUSED")
    return sorted(quirks)


_OPTIONS = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}
_DIFF = {"Unknown": "unknown", "Differentiable": "differentiable", "NonDifferentiable": "non_differentiable"}


def _param(param: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": param.name, "type": param.type_str}
    if param.description:
        out["doc"] = param.description
    option = _OPTIONS[str(param.option).rsplit(".", 1)[-1]]
    if option != "single":
        out["option"] = option
    if option == "variadic":
        if not param.is_homogeneous:
            out["homogeneous"] = False
        if param.min_arity != 1:
            out["min_arity"] = param.min_arity
    diff = _DIFF[str(param.differentiation_category).rsplit(".", 1)[-1]]
    if diff != "unknown":
        out["differentiability"] = diff
    return out


def _attribute(attr: Any) -> dict[str, Any]:
    type_name = str(attr.type).rsplit(".", 1)[-1].lower()
    out: dict[str, Any] = {"type": type_name}
    if attr.required:
        out["required"] = True
    default = attr.default_value
    doc = attr.description
    if default is not None and default.type:
        if _has_value(default):
            out["default"] = _default_value(default)
        elif default.doc_string:
            # A default with no value, only its doc (onnx 1.15's LabelEncoder-4 `default_tensor`:
            # "{-1} if values_* has integral type, ..."): no value to carry, the text is the doc's.
            doc = f"{doc} {default.doc_string}".strip()
    if doc:
        out["doc"] = doc
    return out


# The AttributeProto field holding a scalar-typed value (onnx.proto); list types always have one.
_VALUE_FIELDS = {1: "f", 2: "i", 3: "s", 4: "t", 5: "g", 11: "sparse_tensor", 13: "tp"}


def _has_value(proto: Any) -> bool:
    field = _VALUE_FIELDS.get(int(proto.type))
    return field is None or proto.HasField(field)


def _default_value(proto: Any) -> Any:
    import onnx.helper

    if int(proto.type) in LITERAL_DEFAULT_NUMBERS:
        return literal_default(proto)
    if int(proto.type) not in _SCALAR_DEFAULT_NUMBERS:
        kind = str(onnx.AttributeProto.AttributeType.Name(proto.type)).lower()
        raise UsageError(f"attribute '{proto.name}': a {kind} default has no DSL literal")
    value = onnx.helper.get_attribute_value(proto)
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, float):
        return _float32(value)
    if isinstance(value, list):
        return [
            v.decode("utf-8") if isinstance(v, bytes) else _float32(v) if isinstance(v, float) else v
            for v in value
        ]
    return value


def _float32(value: float) -> float:
    """Shortest decimal that round-trips through float32, as the attribute is stored."""
    import numpy

    return float(str(numpy.float32(value)))


def _constraint(tc: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"allowed": list(tc.allowed_type_strs)}
    if tc.description:
        out["doc"] = tc.description
    return out
