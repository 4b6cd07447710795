"""YAML spec files -> model objects (SpecSet), with every problem reported at its file:line:col.

Stages: discover files -> read YAML with marks -> validate against the JSON Schemas in
`schemas/` -> build frozen model objects (inheritance applied, type sets expanded).
Semantic rules that only need model objects live in `toolkit.checks.spec`.
"""

from __future__ import annotations

import difflib
import gc
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from toolkit.load.cache import cache_dir, write_bytes
from toolkit.load.yamlsrc import MarkedDict, MarkedList, YamlProblem, location_of, read_yaml
from toolkit.model.diagnostics import Diagnostic, Severity, sort_key
from toolkit.model.spec import (
    DEFAULTABLE_ATTR_TYPES,
    Adapter,
    AdapterStep,
    Attribute,
    AttrType,
    AttrValue,
    Differentiability,
    DomainSpec,
    FormalParameter,
    Location,
    OperatorSpec,
    OpSchema,
    OpsetVersion,
    ParamOption,
    Release,
    SpecSet,
    Status,
    TypeConstraint,
    canonical_domain,
    display_domain,
)
from toolkit.model.types import TypeStringError, canonical_type, looks_like_type_string

# An HTML tag or comment (Markdown code spans are stripped before looking).
RAW_HTML = re.compile(r"<(/?[A-Za-z][A-Za-z0-9-]*(\s[^<>]*)?/?|!--)>")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
DOMAIN_FILE = "domain.yaml"
RELEASES_FILE = "releases.yaml"
SPEC_SUFFIXES = (".yaml", ".yml")


@cache
def json_schema(kind: str) -> dict[str, Any]:
    with open(SCHEMA_DIR / f"{kind}.schema.json", encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


@cache
def _validator(kind: str) -> Any:
    """The full jsonschema validator, imported lazily: it is only needed to explain errors."""
    import jsonschema

    schema = json_schema(kind)
    return jsonschema.validators.validator_for(schema)(schema)


# --------------------------------------------------------------------------- discovery


def discover(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every spec file under `paths` (files are taken as given), sorted for determinism."""
    found: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in files:
                    if name.endswith(SPEC_SUFFIXES):
                        found.add(Path(root) / name)
        elif path.is_file():
            found.add(path)
        else:
            from toolkit.model.diagnostics import UsageError

            raise UsageError(f"{raw}: no such file or directory")
    return sorted(found)


def display_path(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # different drive on Windows
        return str(path)


# --------------------------------------------------------------------------- schema errors


@dataclass
class _Source:
    path: Path
    display: str
    data: Any

    def loc(self, *path: str | int, key: bool = False) -> Location:
        return location_of(self.data, tuple(path), self.display, key=key)


def _fast_check(kind: str, *, lenient_names: bool = False) -> Callable[[Any], Any]:
    """A compiled (fastjsonschema) validator: ~15x faster than jsonschema on valid files,
    which are nearly all files; jsonschema then explains the rare invalid one in full.
    `lenient_names` drops the C-identifier pattern (see `_only_silenced_names`)."""
    key = (kind, lenient_names)
    cached = _FAST.get(key)
    if cached is None:
        cached = _FAST[key] = _compile_fast(kind, lenient_names)
    return cached


_FAST: dict[tuple[str, bool], Callable[[Any], Any]] = {}


def _compile_fast(kind: str, lenient_names: bool) -> Callable[[Any], Any]:
    import hashlib
    import marshal
    import sys

    import fastjsonschema

    schema = json.loads(json.dumps(json_schema(kind)))
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"  # same keywords, a draft it compiles
    if lenient_names:
        schema.get("$defs", {}).get("identifier", {}).pop("pattern", None)
    text = json.dumps(schema, sort_keys=True)
    stamp = f"{text}{fastjsonschema.VERSION}{sys.version}".encode()
    cache = cache_dir() / f"validator-{kind}-{hashlib.sha256(stamp).hexdigest()[:20]}.marshal"
    try:
        code = marshal.loads(cache.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        source = fastjsonschema.compile_to_code(schema, use_default=False)
        code = compile(source, f"<{kind} schema validator>", "exec")
        write_bytes(cache, marshal.dumps(code))
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    entry = "validate_" + "".join(c if c.isalnum() else "_" for c in schema["$id"])
    validate: Callable[[Any], Any] = namespace[entry]
    return validate


def schema_diagnostics(source: _Source, kind: str) -> list[Diagnostic]:
    import fastjsonschema

    try:
        _fast_check(kind)(source.data)
        return []
    except fastjsonschema.JsonSchemaException:
        pass  # fall through to the full, located explanation
    if kind == "operator" and _only_silenced_names(source.data):
        return []
    validator = _validator(kind)
    out: list[Diagnostic] = []
    for error in validator.iter_errors(source.data):
        silenced = _suppressed_rules(source.data, tuple(error.absolute_path))
        out.extend(d for d in _map_schema_error(source, error) if d.rule not in silenced)
    return out


def validate_document(data: Any, kind: str, display: str) -> list[Diagnostic]:
    """Located schema diagnostics for a document read with `yamlsrc.read_yaml`, against
    `schemas/<kind>.schema.json` (for YAML inputs other than specs, e.g. runtime manifests)."""
    return schema_diagnostics(_Source(Path(display), display, data), kind)


def _only_silenced_names(data: Any) -> bool:
    """True when the file's only schema problem is non-identifier names inside versions that
    `suppress: [NAME-NOT-IDENTIFIER]` (historical ONNX schemas such as Split-1's `outputs...`),
    so the slow full validator need not run just to produce findings that are dropped anyway."""
    import fastjsonschema

    try:
        _fast_check("operator", lenient_names=True)(data)
    except fastjsonschema.JsonSchemaException:
        return False
    if not IDENTIFIER_NAME.match(data["operator"]):
        return False
    for entry in data["versions"]:
        names = [p["name"] for key in ("inputs", "outputs") for p in entry.get(key, ())]
        names += list(entry.get("attributes") or ()) + list(entry.get("type_constraints") or ())
        if any(not IDENTIFIER_NAME.match(n) for n in names) and "NAME-NOT-IDENTIFIER" not in entry.get(
            "suppress", ()
        ):
            return False
    return True


IDENTIFIER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _suppressed_rules(data: Any, path: tuple[Any, ...]) -> frozenset[str]:
    """Rules an operator version's `suppress:` list silences for errors inside that version."""
    if len(path) >= 2 and path[0] == "versions" and isinstance(data, dict):
        versions = data.get("versions")
        if isinstance(versions, list) and isinstance(path[1], int) and path[1] < len(versions):
            entry = versions[path[1]]
            if isinstance(entry, dict) and isinstance(entry.get("suppress"), list):
                return frozenset(str(r) for r in entry["suppress"])
    return frozenset()


def _map_schema_error(source: _Source, error: Any) -> list[Diagnostic]:
    path = tuple(error.absolute_path)
    where = source.loc(*path)
    keyword = error.validator
    if keyword in ("oneOf", "anyOf") and error.context:
        return _map_alternatives(source, error)
    if keyword == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        out = []
        for key in sorted(set(error.instance) - set(allowed)):
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"allowed keys: {', '.join(allowed)}"
            out.append(
                Diagnostic(
                    "SCHEMA-UNKNOWN-KEY", f"unknown key '{key}'", source.loc(*path, key, key=True), hint
                )
            )
        return out
    if keyword == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        known = set(error.schema.get("properties", {}))
        strays = [k for k in error.instance if k not in known] if isinstance(error.instance, dict) else []
        if difflib.get_close_matches(missing, strays, n=1):
            return []  # the misspelt key is reported as SCHEMA-UNKNOWN-KEY with a "did you mean"
        return [
            Diagnostic("SCHEMA-REQUIRED", f"missing required key '{missing}'", where, f"add `{missing}:`")
        ]
    if keyword == "type":
        expected = error.validator_value
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        got = _json_type_name(error.instance)
        return [
            Diagnostic(
                "SCHEMA-TYPE",
                f"{_describe(path)} must be {_article(expected_text)}, not {got}",
                where,
                _type_hint(expected_text),
            )
        ]
    if keyword == "enum":
        options = [str(v) for v in error.validator_value]
        close = difflib.get_close_matches(str(error.instance), options, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"use one of: {', '.join(options)}"
        return [
            Diagnostic(
                "SCHEMA-ENUM",
                f"{_describe(path)}: '{error.instance}' is not one of {', '.join(options)}",
                where,
                hint,
            )
        ]
    if keyword in ("pattern",) and error.schema.get("x-rule") == "NAME-NOT-IDENTIFIER":
        name_loc = where
        if error.parent is not None and error.parent.validator == "propertyNames":
            name_loc = source.loc(*path, str(error.instance), key=True)
        return [
            Diagnostic(
                "NAME-NOT-IDENTIFIER",
                f"'{error.instance}' is not a valid name (C identifier)",
                name_loc,
                "use letters, digits and '_' only, not starting with a digit",
            )
        ]
    if keyword == "propertyNames" and error.context:
        return [d for sub in error.context for d in _map_schema_error(source, sub)]
    return [Diagnostic("SCHEMA-VALUE", f"{_describe(path)}: {error.message}", where, _value_hint(keyword))]


def _map_alternatives(source: _Source, error: Any) -> list[Diagnostic]:
    branches: dict[int, list[Any]] = {}
    for sub in error.context or ():
        index = sub.relative_schema_path[0] if sub.relative_schema_path else 0
        branches.setdefault(int(index), []).append(sub)
    viable = [
        errors
        for _, errors in sorted(branches.items())
        if not any(e.validator == "type" and not e.relative_path for e in errors)
    ]
    if viable:
        chosen = min(viable, key=len)
        return [d for sub in chosen for d in _map_schema_error(source, sub)]
    kinds = sorted(
        {str(e.validator_value) for errors in branches.values() for e in errors if e.validator == "type"}
    )
    path = tuple(error.absolute_path)
    return [
        Diagnostic(
            "SCHEMA-TYPE",
            f"{_describe(path)} must be one of: {', '.join(kinds)}; got {_json_type_name(error.instance)}",
            source.loc(*path),
            "see the schema in schemas/ for the expected shape",
        )
    ]


def _describe(path: tuple[Any, ...]) -> str:
    if not path:
        return "the document"
    parts = []
    for step in path:
        parts.append(f"[{step}]" if isinstance(step, int) else f".{step}")
    return "`" + "".join(parts).lstrip(".") + "`"


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return f"a string ('{value}')" if len(value) < 40 else "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _type_hint(expected: str) -> str:
    return {
        "object": "write a mapping of `key: value` lines",
        "array": "write a list (`- item` lines or `[a, b]`)",
        "string": "quote the value",
        "integer": "write a whole number without quotes",
        "boolean": "write true or false",
    }.get(expected, "see the schema in schemas/")


def _value_hint(keyword: str) -> str:
    return {
        "minimum": "use a larger number",
        "minItems": "give at least one entry",
        "pattern": "see the schema in schemas/ for the allowed spelling",
    }.get(keyword, "see the schema in schemas/")


# --------------------------------------------------------------------------- loading


@dataclass
class LoadResult:
    specs: SpecSet
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]


def read_specs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    display: Callable[[Path], str] | None = None,
    jobs: int | None = None,
) -> LoadResult:
    """Read every spec under `paths` into model objects, with the structural diagnostics (files,
    YAML, JSON Schema, building the model). Never raises for bad specs: problems are diagnostics.
    The semantic checks run one layer up (`toolkit.checks.run.load_specs` = read + check).

    `display` maps a file to the name diagnostics use for it (default: path relative to the
    working directory); the git-ref loader uses it to report repository paths, not temp paths.
    `jobs` caps worker processes for large trees (default: 2 when the machine has 2+ cores;
    `OPSET_TOOLKIT_JOBS=1` turns it off).
    """
    # The cyclic collector would re-walk the growing object graph many times while nothing
    # here creates garbage cycles worth collecting (~10-15% of a cold load).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load_specs(paths, display or display_path, jobs)
    finally:
        if collecting:
            gc.enable()


def _load_specs(
    paths: Sequence[str | os.PathLike[str]], show: Callable[[Path], str], jobs: int | None
) -> LoadResult:
    files = discover(paths)
    diags: list[Diagnostic] = []
    broken_domain_folders: set[Path] = set()  # their operators' DOMAIN-UNKNOWN would only be noise
    meta: dict[str, list[_Source]] = {"domain": [], "releases": []}
    op_files = []
    for path in files:
        kind = _classify(path)
        if kind == "operator":
            op_files.append(path)
            continue
        source = _read_source(path, kind, show, diags)
        if source is None:
            if kind == "domain":
                broken_domain_folders.add(path.parent)
            continue
        meta[kind].append(source)

    builder = _Builder(diags, broken_domain_folders)
    domains = builder.domains(meta["domain"])
    releases = builder.releases(meta["releases"])
    operators = _load_operators(op_files, show, domains, broken_domain_folders, diags, jobs)
    specs = SpecSet(
        domains=tuple(sorted(domains.values(), key=lambda d: d.name)),
        operators=tuple(sorted(operators, key=lambda o: (o.domain, o.name))),
        releases=releases,
    )
    return LoadResult(specs, sorted(dedupe(diags), key=sort_key), len(files))


def _read_source(
    path: Path, kind: str, show: Callable[[Path], str], diags: list[Diagnostic]
) -> _Source | None:
    """Read and schema-check one file; None (with diagnostics) when it cannot be used."""
    display = show(path)
    try:
        data = read_yaml(path, display)
    except YamlProblem as problem:
        diags.append(problem.diagnostic)
        return None
    except OSError as exc:
        diags.append(Diagnostic("FILE-READ", f"cannot read file: {exc.strerror}", Location(display), ""))
        return None
    source = _Source(path, display, data)
    if not isinstance(data, dict):
        diags.append(
            Diagnostic(
                "SCHEMA-TYPE",
                f"{_article(kind)} file must be a mapping of `key: value` lines",
                source.loc(),
                "start the file with `operator:` (operator files) or `domain:` (domain.yaml)",
            )
        )
        return None
    problems = schema_diagnostics(source, kind)
    if problems:
        diags.extend(problems)
        return None
    return source


# Large trees (the ONNX catalog has ~230 files) are split across two processes: YAML
# composition is CPU-bound and the GIL would serialise threads.
PARALLEL_MIN_FILES = 64
_FORK_STATE: dict[str, Any] = {}


def _load_operators(
    files: list[Path],
    show: Callable[[Path], str],
    domains: dict[str, DomainSpec],
    broken: set[Path],
    diags: list[Diagnostic],
    jobs: int | None,
) -> list[OperatorSpec]:
    state = {"show": show, "domains": domains, "broken": broken}
    results = _run_chunks(files, state, jobs)
    seen: dict[tuple[str, str], OperatorSpec] = {}
    for specs, chunk_diags in results:
        diags.extend(chunk_diags)
        for spec in specs:
            key = (spec.domain, spec.name)
            if key in seen:
                first, second = sorted((seen[key], spec), key=lambda o: o.location.file)
                seen[key] = first
                diags.append(
                    Diagnostic(
                        "NAME-DUPLICATE",
                        f"operator '{spec.name}' is already defined in {first.location.file}",
                        second.location,
                        "keep all versions of an operator in one file",
                    )
                )
            else:
                seen[key] = spec
    return list(seen.values())


def _run_chunks(
    files: list[Path], state: dict[str, Any], jobs: int | None
) -> list[tuple[list[OperatorSpec], list[Diagnostic]]]:
    if jobs is None:
        jobs = 1 if os.environ.get("OPSET_TOOLKIT_JOBS") == "1" else min(2, os.cpu_count() or 1)
    if jobs < 2 or len(files) < PARALLEL_MIN_FILES:
        return [_load_chunk(files, state)]
    import multiprocessing

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform
        return [_load_chunk(files, state)]
    mine, theirs = files[0::2], files[1::2]
    _FORK_STATE.clear()
    _FORK_STATE.update(state)
    try:
        with context.Pool(1) as pool:
            pending = pool.apply_async(_forked_chunk, (theirs,))
            local = _load_chunk(mine, state)
            return [local, pending.get()]
    except (OSError, AssertionError):  # cannot fork here (e.g. inside a daemon process)
        return [_load_chunk(files, state)]
    finally:
        _FORK_STATE.clear()


def _forked_chunk(files: list[Path]) -> tuple[list[OperatorSpec], list[Diagnostic]]:
    return _load_chunk(files, _FORK_STATE)


def _load_chunk(files: list[Path], state: dict[str, Any]) -> tuple[list[OperatorSpec], list[Diagnostic]]:
    diags: list[Diagnostic] = []
    builder = _Builder(diags, state["broken"])
    specs = []
    for path in files:
        source = _read_source(path, "operator", state["show"], diags)
        if source is not None:
            spec = builder.operator(source, state["domains"])
            if spec is not None:
                specs.append(spec)
    return specs, diags


def dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[Diagnostic] = set()
    out = []
    for diag in diags:
        if diag not in seen:
            seen.add(diag)
            out.append(diag)
    return out


def _classify(path: Path) -> str:
    if path.name == RELEASES_FILE:
        return "releases"
    if path.name == DOMAIN_FILE:
        return "domain"
    return "operator"


class _Builder:
    def __init__(self, diags: list[Diagnostic], broken_domain_folders: set[Path]) -> None:
        self.diags = diags
        self.broken_domain_folders = broken_domain_folders

    def error(self, rule: str, message: str, location: Location, hint: str = "") -> None:
        self.diags.append(Diagnostic(rule, message, location, hint))

    # -- domains ---------------------------------------------------------------------

    def doc_markup(self, source: _Source, node: Any, path: tuple[str | int, ...], silenced: frozenset[str]) -> None:
        """Warn about raw HTML in any `doc` under `node` (IR.md allows Markdown only)."""
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "doc" and isinstance(value, str):
                    match = RAW_HTML.search(CODE.sub("", value)) if "<" in value else None
                    if match and "DOC-HTML" not in silenced:
                        self.diags.append(
                            Diagnostic(
                                "DOC-HTML",
                                f"doc contains raw HTML '{match.group(0)}'",
                                source.loc(*path, key),
                                "IR.md allows Markdown only: use Markdown syntax or put the markup in `code`",
                                Severity.WARNING,
                            )
                        )
                elif isinstance(value, (dict, list)):
                    self.doc_markup(source, value, (*path, key), silenced)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                inner = silenced
                if path == ("versions",) and isinstance(item, dict):
                    inner = frozenset(item.get("suppress", ()))
                self.doc_markup(source, item, (*path, index), inner)

    def domains(self, sources: list[_Source]) -> dict[str, DomainSpec]:
        domains: dict[str, DomainSpec] = {}
        for source in sources:
            data = source.data
            self.doc_markup(source, data, (), frozenset())
            name = canonical_domain(data["domain"])
            if not self.check_folder(source, display_domain(name), source.path.parent.name, "domain"):
                self.broken_domain_folders.add(source.path.parent)
            if name in domains:
                self.error(
                    "NAME-DUPLICATE",
                    f"domain '{display_domain(name)}' is already defined in {domains[name].location.file}",
                    source.loc("domain"),
                    "keep one domain.yaml per domain",
                )
                continue
            opsets = tuple(
                OpsetVersion(
                    version=entry["version"],
                    ir_version=entry["ir_version"],
                    doc=entry.get("doc", ""),
                    location=source.loc("opset_versions", index),
                )
                for index, entry in enumerate(data["opset_versions"])
            )
            type_sets = self.type_sets(source)
            domains[name] = DomainSpec(
                name=name,
                opset_versions=opsets,
                type_sets=type_sets,
                doc=data.get("doc", ""),
                location=source.loc(),
                type_set_locations=tuple(
                    (name, source.loc("type_sets", name, key=True)) for name, _ in type_sets
                ),
            )
        return domains

    def type_sets(self, source: _Source) -> tuple[tuple[str, tuple[str, ...]], ...]:
        raw: dict[str, list[str]] = source.data.get("type_sets", {}) or {}
        expanded: dict[str, tuple[str, ...]] = {}

        def expand(name: str, stack: tuple[str, ...]) -> tuple[str, ...]:
            if name in expanded:
                return expanded[name]
            result: list[str] = []
            for index, item in enumerate(raw[name]):
                where = source.loc("type_sets", name, index)
                if item.startswith("@"):
                    ref = item[1:]
                    if ref not in raw:
                        self.unknown_type_set(ref, sorted(raw), where)
                    elif ref in stack:
                        self.error(
                            "TYPE-SET-CYCLE",
                            f"type set '{name}' includes itself through '@{ref}'",
                            where,
                            "break the cycle",
                        )
                    else:
                        result.extend(expand(ref, (*stack, ref)))
                    continue
                canonical = self.type_string(item, where)
                if canonical is not None:
                    result.append(canonical)
            expanded[name] = _unique(result)
            return expanded[name]

        for name in raw:
            expand(name, (name,))
        return tuple(sorted(expanded.items()))

    def unknown_type_set(self, ref: str, known: list[str], where: Location) -> None:
        close = difflib.get_close_matches(ref, known, n=1)
        hint = f"did you mean '@{close[0]}'?" if close else "declare it under `type_sets:` in the domain file"
        self.error("TYPE-SET-UNKNOWN", f"unknown type set '@{ref}'", where, hint)

    def type_string(self, text: str, where: Location) -> str | None:
        try:
            return canonical_type(text)
        except TypeStringError as exc:
            self.error(
                "TYPE-STRING-INVALID",
                f"invalid type string: {exc}",
                where,
                "write e.g. tensor(float), seq(tensor(int64)), map(int64, float), optional(tensor(bool))",
            )
            return None

    def check_folder(self, source: _Source, expected: str, actual: str, what: str) -> bool:
        if actual == expected or (expected == "ai.onnx" and actual in ("", "ai.onnx", "onnx")):
            return True
        self.error(
            "FILE-PLACEMENT",
            f"{what} '{expected}' is declared in folder '{actual}'",
            source.loc("domain"),
            f"move the file to a folder named '{expected}' or fix the `domain:` value",
        )
        return False

    # -- operators -------------------------------------------------------------------

    def operator(self, source: _Source, domains: dict[str, DomainSpec]) -> OperatorSpec | None:
        data = source.data
        self.doc_markup(source, data, (), frozenset())
        domain_name = canonical_domain(data["domain"])
        name = data["operator"]
        self.check_folder(source, display_domain(domain_name), source.path.parent.name, "domain")
        if source.path.stem != name:
            self.error(
                "FILE-PLACEMENT",
                f"operator '{name}' is declared in file '{source.path.name}'",
                source.loc("operator"),
                f"rename the file to '{name}.yaml' or fix `operator:`",
            )
        domain = domains.get(domain_name)
        if domain is None:
            if source.path.parent not in self.broken_domain_folders:
                self.error(
                    "DOMAIN-UNKNOWN",
                    f"domain '{display_domain(domain_name)}' has no domain.yaml among the loaded specs",
                    source.loc("domain"),
                    "add opsets/<domain>/domain.yaml or pass its folder too",
                )
            return None
        return OperatorSpec(
            domain=domain_name,
            name=name,
            versions=tuple(self.versions(source, domain)),
            removed_in=data.get("removed_in"),
            replaced_by=data.get("replaced_by"),
            location=source.loc(),
        )

    def versions(self, source: _Source, domain: DomainSpec) -> Iterator[OpSchema]:
        data = source.data
        built: dict[int, OpSchema] = {}
        for index, entry in enumerate(data["versions"]):
            since = entry["since_version"]
            base: OpSchema | None = None
            based_on = entry.get("based_on")
            if based_on is not None:
                base = built.get(based_on)
                if base is None:
                    direction = "a later version" if based_on >= since else "no version of this operator"
                    self.error(
                        "BASED-ON-INVALID",
                        f"based_on: {based_on} names {direction}",
                        source.loc("versions", index, "based_on"),
                        "inherit from an earlier since_version listed above this one",
                    )
            schema = self.version(source, index, entry, base, domain, data["operator"])
            if since in built:
                self.error(
                    "VERSION-ORDER",
                    f"since_version {since} is listed twice",
                    source.loc("versions", index),
                    "merge the two entries or give the later one a new since_version",
                )
                continue
            built[since] = schema
            yield schema

    def version(
        self,
        source: _Source,
        index: int,
        entry: MarkedDict,
        base: OpSchema | None,
        domain: DomainSpec,
        name: str,
    ) -> OpSchema:
        at = ("versions", index)
        inputs = (
            self.params(source, (*at, "inputs"), entry["inputs"])
            if "inputs" in entry
            else (base.inputs if base else ())
        )
        outputs = (
            self.params(source, (*at, "outputs"), entry["outputs"])
            if "outputs" in entry
            else (base.outputs if base else ())
        )
        attributes = self.attributes(source, (*at, "attributes"), entry.get("attributes"), base)
        constraints = self.constraints(
            source, (*at, "type_constraints"), entry.get("type_constraints"), base, domain
        )
        status = Status(entry["status"]) if "status" in entry else (base.status if base else Status.STABLE)
        adapter = self.adapter(source, (*at, "adapter"), entry["adapter"]) if "adapter" in entry else None
        return OpSchema(
            domain=domain.name,
            name=name,
            since_version=entry["since_version"],
            status=status,
            deprecated=bool(entry.get("deprecated", False)),
            doc=entry.get("doc", base.doc if base else ""),
            inputs=inputs,
            outputs=outputs,
            attributes=attributes,
            type_constraints=constraints,
            based_on=entry.get("based_on"),
            adapter=adapter,
            suppress=tuple(entry.get("suppress", ())),
            location=source.loc(*at),
        )

    def params(
        self, source: _Source, at: tuple[str | int, ...], items: MarkedList
    ) -> tuple[FormalParameter, ...]:
        out = []
        for index, item in enumerate(items):
            type_str = item["type"]
            if looks_like_type_string(type_str):
                type_str = self.type_string(type_str, source.loc(*at, index, "type")) or type_str
            out.append(
                FormalParameter(
                    name=item["name"],
                    type_str=type_str,
                    doc=item.get("doc", ""),
                    option=ParamOption(item.get("option", "single")),
                    homogeneous=item.get("homogeneous", True),
                    min_arity=item.get("min_arity", 1),
                    differentiability=Differentiability(item.get("differentiability", "unknown")),
                    location=source.loc(*at, index),
                )
            )
        return tuple(out)

    def attributes(
        self, source: _Source, at: tuple[str | int, ...], items: MarkedDict | None, base: OpSchema | None
    ) -> tuple[Attribute, ...]:
        merged: dict[str, Attribute] = {a.name: a for a in base.attributes} if base else {}
        for key, item in (items or {}).items():
            if item is None:
                if key not in merged:
                    self.error(
                        "BASED-ON-INVALID",
                        f"attribute '{key}' is removed but the base version has no such attribute",
                        source.loc(*at, key, key=True),
                        "remove this line",
                    )
                merged.pop(key, None)
                continue
            attr_type = AttrType(item["type"])
            default = None
            if "default" in item:
                default = self.default_value(source, (*at, key, "default"), attr_type, item["default"])
                if item.get("required", False):
                    self.error(
                        "ATTR-REQUIRED-WITH-DEFAULT",
                        f"attribute '{key}' is required and has a default",
                        source.loc(*at, key, "default"),
                        "a required attribute is always given; drop `default` or `required: true`",
                    )
            merged[key] = Attribute(
                name=key,
                type=attr_type,
                doc=item.get("doc", ""),
                required=item.get("required", False),
                default=default,
                location=source.loc(*at, key, key=True),
            )
        return tuple(merged.values())

    def default_value(
        self, source: _Source, at: tuple[str | int, ...], attr_type: AttrType, value: Any
    ) -> AttrValue | None:
        where = source.loc(*at)
        if attr_type not in DEFAULTABLE_ATTR_TYPES:
            self.error(
                "ATTR-DEFAULT-UNSUPPORTED",
                f"attributes of type {attr_type.value} cannot have a default in the DSL",
                where,
                "describe the implied value in the doc instead",
            )
            return None
        if attr_type.is_list:
            if not isinstance(value, list):
                self.bad_default(attr_type, value, where)
                return None
            items = [_scalar_default(attr_type.element, v) for v in value]
            if any(v is None for v in items):
                self.bad_default(attr_type, value, where)
                return None
            return tuple(items)
        scalar: AttrValue | None = _scalar_default(attr_type, value)
        if scalar is None:
            self.bad_default(attr_type, value, where)
        return scalar

    def bad_default(self, attr_type: AttrType, value: Any, where: Location) -> None:
        self.error(
            "ATTR-DEFAULT-TYPE",
            f"default {value!r} is not a valid {attr_type.value} value",
            where,
            {
                "int": "write a whole number",
                "float": "write a number such as 1.0",
                "string": "quote the value",
            }.get(attr_type.element.value, "")
            + (" (as a list: [a, b])" if attr_type.is_list else ""),
        )

    def constraints(
        self,
        source: _Source,
        at: tuple[str | int, ...],
        items: MarkedDict | None,
        base: OpSchema | None,
        domain: DomainSpec,
    ) -> tuple[TypeConstraint, ...]:
        merged: dict[str, TypeConstraint] = {c.param: c for c in base.type_constraints} if base else {}
        known_sets = [name for name, _ in domain.type_sets]
        for param, item in (items or {}).items():
            if item is None:
                if param not in merged:
                    self.error(
                        "BASED-ON-INVALID",
                        f"type constraint '{param}' is removed but the base version has no such constraint",
                        source.loc(*at, param, key=True),
                        "remove this line",
                    )
                merged.pop(param, None)
                continue
            raw = item["allowed"]
            entries = [raw] if isinstance(raw, str) else list(raw)
            allowed: list[str] = []
            used_sets: list[str] = []
            for index, text in enumerate(entries):
                # Locations are only worked out for the rare entry that is wrong.
                path = (*at, param, "allowed", index) if isinstance(raw, list) else (*at, param, "allowed")
                if text.startswith("@"):
                    types = domain.type_set(text[1:])
                    if types is None:
                        self.unknown_type_set(text[1:], known_sets, source.loc(*path))
                    else:
                        allowed.extend(types)
                        used_sets.append(text[1:])
                    continue
                try:
                    allowed.append(canonical_type(text))
                except TypeStringError:
                    self.type_string(text, source.loc(*path))
            merged[param] = TypeConstraint(
                param=param,
                allowed=_unique(allowed),
                doc=item.get("doc", ""),
                type_sets=tuple(used_sets),
                location=source.loc(*at, param, key=True),
            )
        return tuple(merged.values())

    def adapter(self, source: _Source, at: tuple[str | int, ...], item: MarkedDict) -> Adapter:
        return build_adapter(item, lambda *path: source.loc(*at, *path))

    # -- releases (the schema for this file kind lives with the release table feature) ---

    def releases(self, sources: list[_Source]) -> tuple[Release, ...]:
        out: list[Release] = []
        for source in sources:
            for index, row in enumerate(source.data.get("releases", [])):
                out.append(
                    Release(
                        name=str(row["release"]),
                        ir_version=row["ir_version"],
                        opsets=tuple(
                            sorted((canonical_domain(d), v) for d, v in (row.get("opsets") or {}).items())
                        ),
                        location=source.loc("releases", index),
                    )
                )
        return tuple(out)


def build_adapter(item: Mapping[str, Any], loc: Callable[..., Location]) -> Adapter:
    """A schema-valid `{upgrade, downgrade}` mapping as an Adapter (step arguments frozen);
    `loc(*path)` locates a path below the mapping. Shared with the adapter overlay reader."""

    def steps(key: str) -> tuple[AdapterStep, ...]:
        return tuple(
            AdapterStep(
                kind=step["kind"],
                args=tuple(sorted((k, _freeze(v)) for k, v in step.items() if k != "kind")),
                location=loc(key, index),
            )
            for index, step in enumerate(item.get(key, []))
        )

    return Adapter(
        upgrade=steps("upgrade"),
        downgrade=steps("downgrade") if "downgrade" in item else None,
        location=loc(),
    )


def _scalar_default(attr_type: AttrType, value: Any) -> Any:
    if isinstance(value, bool):
        return None
    if attr_type is AttrType.INT:
        return value if isinstance(value, int) else None
    if attr_type is AttrType.FLOAT:
        return float(value) if isinstance(value, (int, float)) else None
    if attr_type is AttrType.STRING:
        return value if isinstance(value, str) else None
    return None


def _freeze(value: Any) -> object:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
