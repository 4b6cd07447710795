"""Compatibility analysis (PyTorch's operator-versioning RFC): can a model run on a runtime
whose supported operator table is known?

Every node resolves, at the opset its model imports, to one operator version
`(domain, op, since_version)`. The runtime supports a set of such versions, given either as a
folder of generated operator-set documents (`generated/proto/<domain>/opset_<N>.pb`, each the
full inventory of one opset) or as a small YAML manifest:

```yaml
runtime: acme-npu 2.1          # optional display name
domains:
  ai.onnx: {max_opset: 17}     # every operator version of opsets 1..17 (resolved by the registry)
  com.acme.vision:
    opsets: [1, 2]             # the opset versions it accepts (inventories resolved by the registry)
    operators:                 # and/or explicit operator versions (since_version lists)
      Normalize: [3]
```
For each node the runtime lacks, the report names the operator version in use, the oldest opset
that has that version (what the runtime would have to support), and the opsets in which the
operator resolves to a version the runtime does have (what `opset convert` could target).

The manifest is read with the hardened YAML reader and checked against
`schemas/runtime_manifest.schema.json`; every defect is a located diagnostic with a rule id, and
an unusable manifest is a usage error (exit 2).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.load.yamlsrc import YamlProblem, location_of, read_yaml
from toolkit.model.diagnostics import Diagnostic, UsageError, sort_key
from toolkit.model.resolution import in_effect
from toolkit.model.rules import Rule, register
from toolkit.model.spec import OpSchema, canonical_domain, display_domain
from toolkit.onnx_bridge.graph import graph_path, model_graphs, opset_imports, walk
from toolkit.onnx_bridge.inline_plan import body_plan
from toolkit.registry.core import Registry

MANIFEST_SCHEMA = "runtime_manifest"  # schemas/runtime_manifest.schema.json


@dataclass
class RuntimeTable:
    name: str
    operators: dict[str, set[tuple[str, int]]] = field(default_factory=dict)  # domain -> {(op, since)}
    opsets: dict[str, set[int]] = field(default_factory=dict)  # domain -> accepted opset versions
    # A runtime given as a catalog: its own registry resolves what the standard does not
    # (vendor domains, the runtime's additions to the standard domains).
    registry: Registry | None = None

    def supports(self, domain: str, op: str, since: int) -> bool:
        return (op, since) in self.operators.get(domain, set())


def load_runtime(path: str | os.PathLike[str], registry: Registry, *, use_cache: bool = True) -> RuntimeTable:
    """A runtime table from a runtime catalog (`onnxruntime`, or a spec tree folder), a folder of
    `opset_<N>.pb` documents or a YAML manifest."""
    from toolkit.onnx_bridge.runtimes import KNOWN_RUNTIMES, runtime_catalog

    source = Path(path)
    if str(path) in KNOWN_RUNTIMES or (source.is_dir() and not any(source.rglob("opset_*.pb"))):
        catalog = runtime_catalog(str(path), use_cache=use_cache)
        return _from_catalog(catalog.name, catalog.registry)
    if source.is_dir():
        return _from_documents(source)
    if source.is_file() and source.suffix in (".yaml", ".yml"):
        return _from_manifest(source, registry)
    raise UsageError(f"--runtime {path}: expected a folder of opset_<N>.pb documents or a .yaml manifest")


def _from_catalog(name: str, catalog: Registry) -> RuntimeTable:
    table = RuntimeTable(name, registry=catalog)
    for domain in catalog.domains():
        table.opsets[domain] = set(catalog.domain(domain).versions)
        table.operators[domain] = {
            (s.name, s.since_version) for op in catalog.operators(domain) for s in op.versions
        }
    return table


def _from_documents(folder: Path) -> RuntimeTable:
    from google.protobuf.message import DecodeError

    from toolkit.proto import opset_toolkit_pb2 as pb

    table = RuntimeTable(folder.name)
    files = sorted(folder.rglob("opset_*.pb"))
    if not files:
        raise UsageError(f"--runtime {folder}: no opset_<N>.pb documents under this folder")
    for file in files:
        document = pb.OperatorSetProto()
        try:
            document.ParseFromString(file.read_bytes())
        except DecodeError as exc:
            raise UsageError(f"{file}: not an OperatorSetProto document ({exc})") from None
        domain = canonical_domain(document.domain)
        table.opsets.setdefault(domain, set()).add(int(document.opset_version))
        ops = table.operators.setdefault(domain, set())
        ops.update((o.op_type, int(o.since_version)) for o in document.operator)
    return table


class RuntimeManifestError(UsageError):
    """A runtime manifest that cannot be used: every located diagnostic, exit code 2."""

    def __init__(self, file: str, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = tuple(sorted(diagnostics, key=sort_key))
        lines = [f"--runtime {file}: unusable runtime manifest ({len(self.diagnostics)} problem(s))"]
        lines += [d.format() for d in self.diagnostics]
        super().__init__("\n".join(lines))


def _from_manifest(file: Path, registry: Registry) -> RuntimeTable:
    from toolkit.load.discovery import display_path
    from toolkit.load.schema import validate_document

    display = display_path(file)
    try:
        data = read_yaml(file, display)
    except YamlProblem as exc:
        raise RuntimeManifestError(display, [exc.diagnostic]) from None
    problems = validate_document(data, MANIFEST_SCHEMA, display)
    if problems:
        raise RuntimeManifestError(display, problems)
    table = RuntimeTable(str(data.get("runtime") or file.stem))
    for raw_domain, entry in sorted(data["domains"].items()):
        problems += _manifest_domain(table, registry, data, str(raw_domain), entry, display)
    if problems:
        raise RuntimeManifestError(display, problems)
    return table


def _manifest_domain(
    table: RuntimeTable,
    registry: Registry,
    data: Any,
    raw_domain: str,
    entry: Mapping[str, Any],
    display: str,
) -> list[Diagnostic]:
    """Add one schema-valid `domains.<raw_domain>` entry; diagnostics for what the registry lacks."""
    domain = canonical_domain(raw_domain)
    versions = set(entry.get("opsets") or [])
    if "max_opset" in entry:
        versions |= set(range(1, entry["max_opset"] + 1))
    ops = table.operators.setdefault(domain, set())
    for op, sinces in sorted((entry.get("operators") or {}).items()):
        ops.update((op, since) for since in sinces)
    if not versions:
        return []
    if not registry.has_domain(domain):
        where = location_of(data, ("domains", raw_domain), display, key=True)
        hint = "pass the domain's spec folder with --specs, or list explicit `operators:`"
        message = f"domain '{raw_domain}' lists opset versions, but no specs define the domain"
        return [Diagnostic("RUNTIME-DOMAIN-UNKNOWN", message, where, hint)]
    table.opsets.setdefault(domain, set()).update(versions)
    for version in sorted(versions):
        ops.update((name, s.since_version) for name, s in registry.inventory(domain, version).items())
    return []


@dataclass(frozen=True, slots=True)
class CompatFinding:
    rule: str  # COMPAT-OP-MISSING, COMPAT-OPSET-MISSING, COMPAT-UNRESOLVED
    path: str
    message: str
    operator: str = ""  # domain.Op:since in use
    oldest_opset: int | None = None  # oldest opset containing the operator version in use
    convert_to: int | None = None  # newest opset the runtime accepts whose version of the op it has
    severity: str = "error"  # COMPAT-OP-INLINABLE is a warning: the model runs after inlining


@dataclass
class CompatReport:
    model: str
    runtime: str
    nodes: int = 0
    findings: list[CompatFinding] = field(default_factory=list)

    @property
    def compatible(self) -> bool:
        return not self.findings

    @property
    def runnable_after_inlining(self) -> bool:
        """Every finding is an operator the runtime can run through its function body."""
        return bool(self.findings) and all(f.rule == "COMPAT-OP-INLINABLE" for f in self.findings)


def analyse(
    model: Any, registry: Registry, runtime: RuntimeTable, *, name: str = "model.onnx"
) -> CompatReport:
    report = CompatReport(name, runtime.name)
    imports = opset_imports(model.opset_import)
    functions = {(f.domain, f.name) for f in model.functions}
    used: set[str] = set()
    for graph, path, scope in model_graphs(model):
        for node_path, node in walk(graph, path):
            report.nodes += 1
            if (node.domain, node.op_type) in functions:
                continue  # a model-local function: its body is analysed on its own
            used.add(canonical_domain(node.domain))
            _node(report, registry, runtime, node_path, node, scope)
    opset_findings = []
    for domain, version in sorted(imports.items()):
        accepted = runtime.opsets.get(domain)
        if domain in used and accepted and version not in accepted:
            opset_findings.append(
                CompatFinding(
                    "COMPAT-OPSET-MISSING",
                    graph_path(model),
                    f"the model imports {display_domain(domain)} opset {version}; runtime {runtime.name} accepts "
                    f"{_ranges(accepted)}",
                )
            )
    report.findings[:0] = opset_findings
    return report


# What `node_support` answers: the runtime runs the node's operator version itself, or through
# its function body (after inlining, or as a model-local function), or not at all; or the node
# does not resolve.
SUPPORTED, INLINABLE, MISSING, UNRESOLVED = "supported", "inlinable", "missing", "unresolved"


@dataclass(frozen=True)
class NodeSupport:
    """Whether a runtime can run one node, and why not."""

    status: str  # SUPPORTED, INLINABLE, MISSING or UNRESOLVED
    schema: OpSchema | None = None  # the operator version the node resolves to
    reason: str = ""  # MISSING: why the function body cannot stand in ("" when there is none)

    @property
    def runnable(self) -> bool:
        """The node runs as is (SUPPORTED) or through its body (INLINABLE)."""
        return self.status in (SUPPORTED, INLINABLE)


def node_support(
    registry: Registry, runtime: RuntimeTable, domain: str, op_type: str, imports: Mapping[str, int]
) -> NodeSupport:
    """THE answer to "can this runtime run a node `domain.op_type` of a model importing
    `imports`": `opset compat`, `check-model --runtime` and `test-runtime` (SKIP) all ask it."""
    domain = canonical_domain(domain)
    version = imports.get(domain)
    schema = registry.find_schema(op_type, version, domain) if version is not None else None
    if schema is None and version is not None and runtime.registry is not None:
        own = (
            runtime.registry.find_schema(op_type, version, domain)
            if runtime.registry.has_domain(domain)
            else None
        )
        if own is not None:
            return NodeSupport(
                SUPPORTED, own
            )  # only the runtime defines it (a vendor op, or its own addition)
    if schema is None:
        return NodeSupport(UNRESOLVED)
    if runtime.supports(domain, op_type, schema.since_version):
        return NodeSupport(SUPPORTED, schema)
    if schema.function is None:
        return NodeSupport(MISSING, schema)
    plan = body_plan(schema, registry, runtime.supports, imports)  # issue #16: can it run the body?
    return NodeSupport(INLINABLE, schema) if plan.runnable else NodeSupport(MISSING, schema, plan.reason)


def _node(
    report: CompatReport,
    registry: Registry,
    runtime: RuntimeTable,
    path: str,
    node: Any,
    imports: Mapping[str, int],
) -> None:
    domain = canonical_domain(node.domain)
    ref = f"{display_domain(domain)}.{node.op_type}"
    version = imports.get(domain)
    support = node_support(registry, runtime, domain, node.op_type, imports)
    schema = support.schema
    if support.status == SUPPORTED:
        return
    if schema is None:
        report.findings.append(
            CompatFinding(
                "COMPAT-UNRESOLVED",
                path,
                f"{ref} does not resolve at the imported opset (run `opset check-model`)",
                ref,
            )
        )
        return
    if support.status == INLINABLE:
        report.findings.append(
            CompatFinding(
                "COMPAT-OP-INLINABLE",
                path,
                f"{schema.id} is not supported by runtime {runtime.name}, but every operator of its function "
                f"body is: runnable after inlining (`opset convert --inline-missing`)",
                schema.id,
                severity="warning",
            )
        )
        return
    inlining = f"; its function body cannot run there either: {support.reason}" if support.reason else ""
    last = _in_effect_until(registry, domain, node.op_type, schema.since_version)
    detail = (
        f"the oldest opset that has it is {display_domain(domain)} {schema.since_version} "
        f"(in effect through opset {last})"
    )
    usable = _runtime_opsets(registry, runtime, domain, node.op_type)
    if usable:
        have = registry.find_schema(node.op_type, usable[-1], domain)
        assert have is not None
        detail += (
            f"; the runtime has {ref} at {_ranges(set(usable))} "
            f"(convert to {display_domain(domain)} {usable[-1]}, where it is {have.id})"
        )
    else:
        detail += f"; runtime {runtime.name} has no version of {ref} at all"
    report.findings.append(
        CompatFinding(
            "COMPAT-OP-MISSING",
            path,
            f"{schema.id} (in effect at opset {version}) is not supported by runtime {runtime.name}; {detail}{inlining}",
            schema.id,
            schema.since_version,
            usable[-1] if usable else None,
        )
    )


def _in_effect_until(registry: Registry, domain: str, op: str, since: int) -> int:
    _start, until = in_effect(registry.operator(op, domain), since)
    return registry.domain(domain).max_version if until is None else until - 1


def _runtime_opsets(registry: Registry, runtime: RuntimeTable, domain: str, op: str) -> list[int]:
    """Opset versions (the runtime accepts) in which `op` resolves to a version the runtime has."""
    candidates = sorted(runtime.opsets.get(domain) or registry.domain(domain).versions)
    out = []
    for version in candidates:
        schema = registry.find_schema(op, version, domain)
        if schema is not None and runtime.supports(domain, op, schema.since_version):
            out.append(version)
    return out


def _ranges(values: set[int]) -> str:
    ordered = sorted(values)
    parts: list[str] = []
    start = prev = ordered[0]
    for value in [*ordered[1:], None]:
        if value is not None and value == prev + 1:
            prev = value
            continue
        parts.append(f"{start}" if start == prev else f"{start}..{prev}")
        if value is not None:
            start = prev = value
    return "opset " + ", ".join(parts)


# The rules of `opset compat` (documented in the compat section of the model tools page), in the
# order SARIF's rule list shows them.
COMPAT_RULES: tuple[Rule, ...] = (
    register(
        "COMPAT-OP-MISSING",
        "compat",
        "error",
        "The runtime lacks the operator version a node resolves to at the imported opset.",
        name="operator version missing on the runtime",
        hint="convert the model to an opset whose version of the operator the runtime has",
        anchor="compat",
        doc="""\
**Why:** a runtime runs an operator *version* `(domain, op, since_version)`; the version a node
resolves to at the imported opset is the one it needs, whatever other versions the runtime has.

**Before:** a model importing `ai.onnx` 14 uses `Relu` (Relu-14) on a runtime that supports
opsets 1..12 (Relu-6).

**After:** `opset convert --to ai.onnx=12` (the finding names the target), where Relu resolves
to Relu-6.""",
    ),
    register(
        "COMPAT-OP-INLINABLE",
        "compat",
        "warning",
        "The runtime lacks the operator version a node resolves to, but can run every operator of "
        "the version's function body: the model runs after inlining.",
        name="operator runnable after inlining",
        hint="inline it: `opset convert MODEL -o OUT --inline-missing RUNTIME`",
        anchor="compat",
        doc="""\
**Why:** an operator version defined by a function (`function:` in its spec, or a static
`function_body` in onnx) can be replaced by its body's nodes; when the runtime has every
operator version the body uses (at the opsets the body imports, which must agree with the
model's), the model runs after inlining, with no kernel for the operator itself.

**Before:** a model using `com.acme.vision.FusedConv` (version 2) on onnxruntime, which has
no `com.acme.vision` kernels.

**After:** `opset convert model.onnx -o inlined.onnx --inline-missing RUNTIME --specs opsets`
replaces each FusedConv node with Conv and the activation nodes of its body.""",
    ),
    register(
        "COMPAT-OPSET-MISSING",
        "compat",
        "error",
        "The runtime does not accept the imported opset version of a domain the model uses.",
        name="opset version not accepted by the runtime",
        hint="convert the model to an opset version the runtime accepts",
        anchor="compat",
        doc="""\
**Why:** a runtime that lists the opset versions it accepts refuses a model importing another
one, even when every operator version the model uses is available.

**Fix:** convert the model to an opset version the runtime accepts.""",
    ),
    register(
        "COMPAT-UNRESOLVED",
        "compat",
        "error",
        "The node's operator does not resolve at the imported opset, so no runtime can run it.",
        name="node does not resolve",
        hint="run `opset check-model` on the model",
        anchor="compat",
        doc="""\
**Why:** the operator is unknown, not yet in the imported opset, removed, or its domain is not
imported: the model is invalid whatever the runtime (check-model says which).""",
    ),
)

register(
    "RUNTIME-DOMAIN-UNKNOWN",
    "runtime",
    "error",
    "A runtime manifest lists opset versions of a domain that no specs define.",
    name="runtime domain without specs",
    hint="pass the domain's spec folder with --specs, or list explicit `operators:`",
    anchor="compat",
    doc="""\
**Why:** `opsets:` and `max_opset:` stand for the operator versions the specs resolve at those
opsets; without the domain's specs there is nothing to resolve, and the manifest is unusable
(exit 2).

**Before:** `com.acme.vision: {max_opset: 2}` with no `--specs` for `com.acme.vision`.

**After:** pass its spec folder with `--specs`, or list `operators: {Normalize: [1, 3]}`.""",
)
