"""The catalog of spec-check rules: every rule id `opset validate` can report, with what it means.

The loader, the checks and the authoring checks emit these ids; a test keeps this table and the
emitting code in step. `opset validate --rules` prints it and the docs site renders it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpecRule:
    id: str
    severity: str
    summary: str


def _rules(*rows: tuple[str, str, str]) -> dict[str, SpecRule]:
    return {rule_id: SpecRule(rule_id, severity, summary) for rule_id, severity, summary in rows}


SPEC_RULES: dict[str, SpecRule] = _rules(
    # Reading files
    ("FILE-READ", "error", "The file cannot be read (permissions, vanished while loading)."),
    ("FILE-TOO-LARGE", "error", "The file is larger than the 4 MiB limit for one spec file."),
    ("FILE-ENCODING", "error", "The file is not valid UTF-8; the position of the first bad byte is given."),
    ("FILE-PLACEMENT", "error", "An operator file is not named after its operator, or a file sits in a folder not named after its domain."),
    ("YAML-SYNTAX", "error", "The file is not well-formed YAML."),
    ("YAML-DUPLICATE-KEY", "error", "A mapping has the same key twice (YAML loaders would silently keep one)."),
    ("YAML-TAG", "error", "A YAML tag (`!!python/...`, `!custom`, merge keys) is used; specs are plain data."),
    ("YAML-ALIAS-LIMIT", "error", "Aliases expand to more nodes than allowed (a \"billion laughs\" document)."),
    # Shape (JSON Schemas in schemas/)
    ("SCHEMA-UNKNOWN-KEY", "error", "A key the JSON Schema does not define; the hint suggests the closest known key."),
    ("SCHEMA-REQUIRED", "error", "A required key is missing."),
    ("SCHEMA-TYPE", "error", "A value has the wrong type (e.g. a string where an integer belongs), or a file is not a mapping."),
    ("SCHEMA-ENUM", "error", "A value is not one of the allowed words (option, status, attribute type...)."),
    ("SCHEMA-VALUE", "error", "A value breaks another schema constraint (minimum, non-empty list, pattern)."),
    ("NAME-NOT-IDENTIFIER", "error", "An operator, parameter, attribute, type parameter or type set name is not a C identifier."),
    ("NAME-DUPLICATE", "error", "Two inputs, outputs, operators or domains share a name."),
    # Domains and opset versions
    ("DOMAIN-NAME", "error", "A vendor domain name is not reverse DNS (`com.acme.vision`)."),
    ("DOMAIN-UNKNOWN", "error", "An operator names a domain that has no domain.yaml among the loaded specs."),
    ("OPSET-ORDER", "error", "Opset versions of a domain do not strictly increase."),
    ("OPSET-IR-ORDER", "error", "A later opset version needs a lower IR version than an earlier one."),
    # Types
    ("TYPE-STRING-INVALID", "error", "A type string does not follow the ONNX grammar or names an unknown element type."),
    ("TYPE-SET-UNKNOWN", "error", "`@name` refers to a type set the domain does not declare."),
    ("TYPE-SET-CYCLE", "error", "Type sets include each other in a cycle."),
    ("TYPE-PARAM-UNDECLARED", "error", "A parameter's type is neither a type string nor a declared type parameter."),
    ("TYPE-PARAM-UNUSED", "error", "A type parameter is declared but no input or output uses it."),
    # Parameters and attributes
    ("PARAM-VARIADIC-NOT-LAST", "error", "A variadic input or output is not the last one."),
    ("PARAM-MIN-ARITY", "error", "`min_arity` is set on a parameter that is not variadic."),
    ("PARAM-HOMOGENEOUS", "error", "`homogeneous: false` is set on a parameter that is not variadic."),
    ("ATTR-DEFAULT-TYPE", "error", "An attribute default does not match the attribute's type."),
    ("ATTR-REQUIRED-WITH-DEFAULT", "error", "An attribute is required and has a default."),
    ("ATTR-DEFAULT-UNSUPPORTED", "error", "A default is given for a tensor, graph, sparse-tensor or type-proto attribute."),
    # Versions
    ("VERSION-ORDER", "error", "Versions are not listed oldest first, or a since_version appears twice."),
    ("VERSION-NOT-IN-DOMAIN", "error", "A since_version is not an opset version of the domain."),
    ("BASED-ON-INVALID", "error", "`based_on` names no earlier version, or removes an attribute/constraint the base lacks."),
    ("REMOVED-IN-INVALID", "error", "`removed_in` is not an opset version of the domain, or not after the newest version."),
    # Docs
    ("DOC-HTML", "warning", "A doc contains raw HTML; IR.md allows Markdown only (the docs generator escapes it)."),
    ("DOC-FENCE", "warning", "A doc opens a code fence it never closes (the docs generator closes it)."),
    ("DOC-HEADING", "warning", "A doc contains Markdown headings (the docs generator demotes them)."),
    # Version adapters (see the authoring guide)
    ("ADAPTER-NO-PREVIOUS", "error", "An adapter is attached to an operator's first version, which has nothing to adapt from."),
    ("ADAPTER-ARGS", "error", "An adapter step lacks an argument its kind needs, or has one it does not take."),
    ("ADAPTER-UNKNOWN-ATTRIBUTE", "error", "An adapter step names an attribute that does not exist on the side it acts on."),
    ("ADAPTER-UNKNOWN-INPUT", "error", "An adapter step names an input (or index) that does not exist on the side it acts on."),
    ("ADAPTER-UNKNOWN-PARAM", "error", "A type_restriction step names an unknown type parameter."),
    ("ADAPTER-VALUE-TYPE", "error", "set_attribute_if_absent or remove_attribute gives a value of the wrong type for the attribute."),
    ("ADAPTER-TYPE-STILL-ALLOWED", "error", "A type_restriction removes a type the target version still allows."),
    ("ADAPTER-TYPE-UNKNOWN", "warning", "A type_restriction names a type the source version does not allow either."),
    ("ADAPTER-CALLABLE", "error", "A python step's callable is not `package.module:function`."),
    ("ADAPTER-NOT-COMPATIBLE", "error", "A compatible step, but the change from the source version invalidates its nodes (required attribute or input added, attribute or input removed, type removed)."),
    # Release tables
    ("RELEASE-DUPLICATE", "error", "Two releases have the same name."),
    ("RELEASE-IR-ORDER", "error", "IR versions decrease from one release to the next."),
    ("RELEASE-OPSET-ORDER", "error", "A domain's opset version decreases from one release to the next."),
    ("RELEASE-OPSET-UNKNOWN", "error", "A release names an opset version its (loaded) domain does not have."),
    ("RELEASE-IR-TOO-LOW", "error", "A release's IR version is lower than an opset version it ships needs."),
    # Generated documents
    ("PB-LOAD", "error", "A generated `.pb` schema document cannot be read back."),
)


def render_markdown() -> str:
    lines = [
        "# Spec-check rules",
        "",
        "Every problem `opset validate` (and every command that loads specs) reports carries one of",
        "these rule ids, as `file:line:col: severity[RULE-ID]: message` followed by a hint.",
        "A version can silence a rule for itself with `suppress: [RULE-ID]` (meant for historical",
        "schemas that cannot change).",
        "",
        "| rule | severity | meaning |",
        "| --- | --- | --- |",
    ]
    lines += [f"| `{r.id}` | {r.severity} | {r.summary} |" for r in SPEC_RULES.values()]
    return "\n".join(lines) + "\n"


def render_text() -> str:
    width = max(len(rule_id) for rule_id in SPEC_RULES)
    return "\n".join(f"{r.id:<{width}}  {r.severity:<7}  {r.summary}" for r in SPEC_RULES.values()) + "\n"
