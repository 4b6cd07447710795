"""Schema-valid YAML documents -> frozen model objects (inheritance applied, type sets expanded).

`Builder` turns the documents of one load into DomainSpec / OperatorSpec objects (release tables:
`build_releases`) and reports what only shows while building (unknown type sets, bad defaults, `based_on` targets,
file placement) as located diagnostics. `build_adapter` is shared with the adapter overlay reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from toolkit.load.adapter_build import build_adapter
from toolkit.load.build_defaults import literal_default
from toolkit.load.build_examples import with_examples
from toolkit.load.build_functions import function_fields
from toolkit.load.build_shapes import shape_requires, shape_text
from toolkit.load.build_values import attribute_default, whole_numbers
from toolkit.load.discovery import folder_name
from toolkit.load.example_files import ExampleRef
from toolkit.load.yamlsrc import MarkedDict, MarkedList, Source
from toolkit.model.attr_defaults import (
    LITERAL_DEFAULT_TYPES,
)
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import (
    NOWHERE,
    Adapter,
    AttrDefault,
    Attribute,
    AttrType,
    Differentiability,
    DomainSpec,
    FormalParameter,
    Location,
    OperatorSpec,
    OpSchema,
    OpsetVersion,
    ParamOption,
    Status,
    TypeConstraint,
    TypeSource,
    canonical_domain,
    display_domain,
)
from toolkit.model.suggest import QUOTED, close_names, did_you_mean
from toolkit.model.types import MAX_TYPE_SET_DEPTH, TypeStringError, canonical_type, looks_like_type_string


class Builder:
    def __init__(self, diags: list[Diagnostic], broken_domain_folders: set[Path]) -> None:
        self.diags = diags
        self.broken_domain_folders = broken_domain_folders
        self.example_refs: list[ExampleRef] = []  # read by the loader once every file is built

    def error(self, rule: str, message: str, location: Location, hint: str = "") -> None:
        self.diags.append(Diagnostic(rule, message, location, hint))

    # -- domains ---------------------------------------------------------------------

    def domains(self, sources: list[Source]) -> dict[str, DomainSpec]:
        domains: dict[str, DomainSpec] = {}
        for source in sources:
            self.diags.extend(whole_numbers(source, "domain"))
            data = source.data
            name = canonical_domain(data["domain"])
            if not self.check_folder(source, display_domain(name), folder_name(source.path), "domain"):
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
                    **_doc_at(source, entry, ("opset_versions", index)),
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
                **_doc_at(source, data, ()),
                type_set_locations=tuple(
                    (name, source.loc("type_sets", name, key=True)) for name, _ in type_sets
                ),
            )
        return domains

    def type_sets(self, source: Source) -> tuple[tuple[str, tuple[str, ...]], ...]:
        raw: dict[str, list[str]] = source.data.get("type_sets", {}) or {}
        expanded: dict[str, tuple[str, ...]] = {}
        too_deep: list[str] = []  # reported once per domain file

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
                    elif len(stack) >= MAX_TYPE_SET_DEPTH:  # the expansion recurses once per level
                        if not too_deep:
                            too_deep.append(ref)
                            self.error(
                                "TYPE-SET-DEPTH",
                                f"type set '@{ref}' is more than {MAX_TYPE_SET_DEPTH} '@' references deep",
                                where,
                                "list the types directly, or include fewer sets of sets",
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
        close = close_names(ref, known, 1)
        hint = did_you_mean(close, QUOTED.format("@{}")) or "declare it under `type_sets:` in the domain file"
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

    def check_folder(self, source: Source, expected: str, actual: str, what: str) -> bool:
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

    def operator(self, source: Source, domains: dict[str, DomainSpec]) -> OperatorSpec | None:
        self.diags.extend(whole_numbers(source, "operator"))
        data = source.data
        domain_name = canonical_domain(data["domain"])
        name = data["operator"]
        self.check_folder(source, display_domain(domain_name), folder_name(source.path), "domain")
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
        versions = tuple(self.versions(source, domain))
        removed_in = data.get("removed_in")
        if removed_in is not None:
            self.removal(source, removed_in, versions, domain)
        return OperatorSpec(
            domain=domain_name,
            name=name,
            versions=versions,
            removed_in=removed_in,
            replaced_by=data.get("replaced_by"),
            location=source.loc(),
        )

    def removal(
        self, source: Source, removed_in: int, versions: tuple[OpSchema, ...], domain: DomainSpec
    ) -> None:
        """REMOVED-IN-INVALID (a spec rule, `toolkit.checks.versions`), reported here: only the
        source knows where `removed_in` is written."""
        if removed_in not in domain.versions:
            message = f"removed_in {removed_in} is not an opset version of '{domain.display_name}'"
            hint = "name the opset version from which the operator is gone"
        elif versions and removed_in <= versions[-1].since_version:
            last = versions[-1].since_version
            message = f"removed_in {removed_in} is not after the last since_version {last}"
            hint = "an operator is removed in an opset version later than its newest version"
        else:
            return
        self.error("REMOVED-IN-INVALID", message, source.loc("removed_in"), hint)

    def versions(self, source: Source, domain: DomainSpec) -> Iterator[OpSchema]:
        """The versions as listed; each problem once, at its cause: a base is found by
        since_version, not position (a list out of order is VERSION-ORDER alone), and a version
        whose base is unresolved is not built, nor one based on it (no check sees it inherit nothing)."""
        entries = source.data["versions"]
        built: dict[int, OpSchema] = {}
        unresolved: set[int] = set()  # not built: their base is not
        out: dict[int, OpSchema] = {}  # by position in the list
        for index in sorted(range(len(entries)), key=lambda i: entries[i]["since_version"]):
            entry = entries[index]
            since = entry["since_version"]
            based_on = entry.get("based_on")
            base = built.get(based_on) if based_on is not None and based_on < since else None
            if based_on is not None and base is None:
                if based_on not in unresolved or based_on >= since:
                    later = "a later version" if based_on >= since else "no version of this operator"
                    at = source.loc("versions", index, "based_on")
                    hint = "inherit from an earlier since_version listed above this one"
                    self.error("BASED-ON-INVALID", f"based_on: {based_on} names {later}", at, hint)
                unresolved.add(since)
                continue
            schema = self.version(source, index, entry, base, domain, source.data["operator"])
            schema = with_examples(source, ("versions", index), entry, schema, self.diags, self.example_refs)
            if since in built:
                self.error(
                    "VERSION-ORDER",
                    f"since_version {since} is listed twice",
                    source.loc("versions", index),
                    "merge the two entries or give the later one a new since_version",
                )
                continue
            built[since] = schema
            out[index] = schema
        yield from (out[index] for index in sorted(out))

    def version(
        self,
        source: Source,
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
            deprecated_reason=entry.get("deprecated_reason", ""),
            doc=entry.get("doc", base.doc if base else ""),
            **(
                _doc_at(source, entry, at)
                if "doc" in entry or base is None
                else {"doc_location": base.doc_location, "doc_literal": base.doc_literal}
            ),
            inputs=inputs,
            outputs=outputs,
            attributes=attributes,
            type_constraints=constraints,
            based_on=entry.get("based_on"),
            adapter=adapter,
            suppress=tuple(entry.get("suppress", ())),
            location=source.loc(*at),
            **function_fields(source, at, entry),
            shape_requires=shape_requires(source, at, entry, base),
        )

    def params(
        self, source: Source, at: tuple[str | int, ...], items: MarkedList
    ) -> tuple[FormalParameter, ...]:
        out = []
        kind = "input" if at[-1] == "inputs" else "output"
        for index, item in enumerate(items):
            self.variadic_only(source, (*at, index), item, kind)
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
                    location=source.loc_in(items, at, index),
                    **_doc_at(source, item, (*at, index)),
                    type_from=self.type_from(source, (*at, index, "type_from"), item.get("type_from") or []),
                    shape=shape_text(source, (*at, index), item, "shape") if "shape" in item else None,
                    value=shape_text(source, (*at, index), item, "value") if "value" in item else None,
                )
            )
        return tuple(out)

    def type_from(
        self, source: Source, at: tuple[str | int, ...], items: Iterable[Mapping[str, Any]]
    ) -> tuple[TypeSource, ...]:
        """An output's `type_from` sources; references are checked by the spec check PARAM-TYPE-FROM."""
        out = []
        for index, item in enumerate(items):
            concrete = item.get("type", "")
            if concrete:
                concrete = self.type_string(concrete, source.loc(*at, index, "type")) or concrete
            out.append(
                TypeSource(item.get("attribute", ""), item.get("input", ""), concrete, source.loc(*at, index))
            )
        return tuple(out)

    def variadic_only(self, source: Source, at: tuple[str | int, ...], item: MarkedDict, kind: str) -> None:
        """PARAM-MIN-ARITY / PARAM-HOMOGENEOUS when a single or optional parameter gives the key at
        all (the model cannot tell an explicit `min_arity: 1` from the default; the spec check
        `toolkit.checks.params` reports other values, with the same message and location)."""
        option = item.get("option", "single")
        if option == "variadic" or ("min_arity" not in item and "homogeneous" not in item):
            return
        silenced = source.data["versions"][at[1]].get("suppress", ())  # as the spec check would be
        where = source.loc(*at)
        if "min_arity" in item and "PARAM-MIN-ARITY" not in silenced:
            self.error(
                "PARAM-MIN-ARITY",
                f"min_arity is set on {option} {kind} '{item['name']}'",
                where,
                "min_arity applies to variadic parameters only; remove it",
            )
        if "homogeneous" in item and "PARAM-HOMOGENEOUS" not in silenced:
            self.error(
                "PARAM-HOMOGENEOUS",
                f"homogeneous: {str(item['homogeneous']).lower()} is set on {option} {kind} '{item['name']}'",
                where,
                "homogeneity applies to variadic parameters only; remove it",
            )

    def attributes(
        self, source: Source, at: tuple[str | int, ...], items: MarkedDict | None, base: OpSchema | None
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
                location=source.loc_in(items, at, key, key=True),
                **_doc_at(source, item, (*at, key)),
            )
        return tuple(merged.values())

    def default_value(
        self, source: Source, at: tuple[str | int, ...], attr_type: AttrType, value: Any
    ) -> AttrDefault | None:
        if attr_type in LITERAL_DEFAULT_TYPES:
            return literal_default(source, at, attr_type, value, self.diags)
        default, problems = attribute_default(attr_type, value, NOWHERE)
        if problems:  # worked out again where they can be located: most defaults are fine
            default, problems = attribute_default(attr_type, value, source.loc(*at))
            self.diags.extend(problems)
        return default

    def constraints(
        self,
        source: Source,
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
                location=source.loc_in(items, at, param, key=True),
                **_doc_at(source, item, (*at, param)),
            )
        return tuple(merged.values())

    def adapter(self, source: Source, at: tuple[str | int, ...], item: MarkedDict) -> Adapter:
        return build_adapter(item, lambda *path: source.loc(*at, *path))


def _doc_at(source: Source, item: Mapping[str, Any], at: tuple[str | int, ...]) -> dict[str, Any]:
    """The doc_location / doc_literal fields of the object built from `item` (found at `at`)."""
    if "doc" not in item:
        return {}
    location, literal = source.text_loc_in(item, at, "doc")
    return {"doc_location": location, "doc_literal": literal}


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
