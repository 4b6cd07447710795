"""The frozen data model every other layer works on.

The loader builds these objects from YAML (keeping source locations); the registry
resolves them (inheritance applied, type sets expanded); generators, the compatibility
engine and the model tools only ever read them.

Objects with a `doc` also keep where its text starts (`doc_location`: for a block scalar the first
line after the `|`/`>` indicator at the text's indentation, else the value itself) and whether the
doc's lines are the source lines one for one (`doc_literal`, a `|` block), so that the doc checks
can point at the line of a finding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from toolkit.model.examples import Example, ExampleTensor, GraphValue, SparseTensorValue
from toolkit.model.record import Record
from toolkit.model.spec_base import (
    NOWHERE,
    AttrType,
    AttrValue,
    Differentiability,
    Location,
    ParamOption,
    Status,
)

# The leaves (`spec_base`) are defined below this module and `examples`, which builds on them,
# and are part of this module's vocabulary: code imports them from here.
__all__ = [
    "DEFAULT_DOMAIN",
    "DEFAULT_DOMAIN_ALIAS",
    "MAX_ARITY",
    "NOWHERE",
    "RESERVED_DOMAIN_PREFIX",
    "Adapter",
    "AdapterStep",
    "AttrDefault",
    "AttrType",
    "AttrValue",
    "Attribute",
    "Differentiability",
    "DomainSpec",
    "FormalParameter",
    "FunctionBody",
    "Location",
    "OpSchema",
    "OperatorSpec",
    "OpsetVersion",
    "ParamOption",
    "Release",
    "ShapeText",
    "SpecSet",
    "Status",
    "TypeConstraint",
    "TypeSource",
    "canonical_domain",
    "display_domain",
    "is_reserved_domain",
    "spec_files",
]

DEFAULT_DOMAIN = ""
DEFAULT_DOMAIN_ALIAS = "ai.onnx"
MAX_ARITY = 2**31 - 1  # what onnx reports for "unbounded" (INT_MAX)


def canonical_domain(name: str) -> str:
    """`""` and `ai.onnx` name the same (default) domain; we store it as `""`."""
    return DEFAULT_DOMAIN if name == DEFAULT_DOMAIN_ALIAS else name


def display_domain(name: str) -> str:
    return DEFAULT_DOMAIN_ALIAS if name == DEFAULT_DOMAIN else name


# The domains ONNX defines: the default one (spelled "" or "ai.onnx") and every `ai.onnx.*`
# (ai.onnx.ml, ai.onnx.preview.training, ...). A vendor domain of that name would shadow the onnx
# catalog, so `opset init` refuses them. (A spec tree may still define them: `import-onnx` writes
# the onnx catalog as specs.)
RESERVED_DOMAIN_PREFIX = f"{DEFAULT_DOMAIN_ALIAS}."


def is_reserved_domain(name: str) -> bool:
    return canonical_domain(name) == DEFAULT_DOMAIN or name.startswith(RESERVED_DOMAIN_PREFIX)


@dataclass(frozen=True, slots=True)
class TypeSource(Record):
    """One entry of an output's `type_from`: where the output's type comes from when the type
    parameters cannot say (Cast's `to`, CastLike's `target_type`, RandomNormal's `dtype` with
    float as default). Entries are tried in order; the first that applies to a node gives the type.

    - `attribute` alone: applies when the node sets the attribute; the type is read from its
      value (an int: a TensorProto data type, tensor(<it>); a tensor or sparse tensor: its
      element type; a type_proto: that type);
    - `attribute` with `type`: applies when the node sets the attribute; the type is `type`;
    - `input`: applies when the node gives the input; the type is that input's type;
    - `type` alone: always applies (the default when nothing before applied).
    """

    attribute: str = ""
    input: str = ""
    type: str = ""  # canonical type string
    location: Location = field(default=NOWHERE, compare=False)


@dataclass(frozen=True, slots=True)
class ShapeText(Record):
    """A shape expression as written: an output's `shape:` or `value:` rule, or a `shape_requires:`
    entry (with its finding's `message`). Parsed by `toolkit.shapes`, never run as code (shapes.md).

    `location` is where the text starts; `literal`: the text's columns are the source's one for
    one (a plain or quoted scalar on one line without escapes), so an error at column N of the
    text is at `location.column + N`."""

    text: str
    message: str = ""
    location: Location = field(default=NOWHERE, compare=False)
    literal: bool = field(default=False, compare=False)


@dataclass(frozen=True, slots=True)
class FormalParameter(Record):
    """An input or output of an operator version."""

    name: str
    type_str: str  # a type-constraint parameter (`T`) or a concrete type string
    doc: str = ""
    option: ParamOption = ParamOption.SINGLE
    homogeneous: bool = True
    min_arity: int = 1
    differentiability: Differentiability = Differentiability.UNKNOWN
    location: Location = field(default=NOWHERE, compare=False)
    doc_location: Location = field(default=NOWHERE, compare=False)  # where the doc's text starts
    doc_literal: bool = field(default=False, compare=False)  # doc line N is source line doc_location.line + N
    type_from: tuple[TypeSource, ...] = ()  # outputs only: where the type comes from (see TypeSource)
    shape: ShapeText | None = None  # outputs only: the output's shape rule (docs/guide/shapes.md)
    value: ShapeText | None = None  # outputs only: its contents as a list of dimensions (value rules)

    @property
    def is_optional(self) -> bool:
        return self.option is ParamOption.OPTIONAL

    @property
    def is_variadic(self) -> bool:
        return self.option is ParamOption.VARIADIC


# An attribute's default: a scalar or list literal, or a tensor, sparse tensor or graph one.
AttrDefault = AttrValue | ExampleTensor | SparseTensorValue | GraphValue


@dataclass(frozen=True, slots=True)
class Attribute(Record):
    name: str
    type: AttrType
    doc: str = ""
    required: bool = False
    default: AttrDefault | None = None
    location: Location = field(default=NOWHERE, compare=False)
    doc_location: Location = field(default=NOWHERE, compare=False)  # where the doc's text starts
    doc_literal: bool = field(default=False, compare=False)  # doc line N is source line doc_location.line + N


@dataclass(frozen=True, slots=True)
class TypeConstraint(Record):
    param: str
    allowed: tuple[str, ...]  # canonical type strings, type sets expanded, in declaration order
    doc: str = ""
    type_sets: tuple[str, ...] = ()  # names of the type sets `allowed` was expanded from
    location: Location = field(default=NOWHERE, compare=False)
    doc_location: Location = field(default=NOWHERE, compare=False)  # where the doc's text starts
    doc_literal: bool = field(default=False, compare=False)  # doc line N is source line doc_location.line + N


@dataclass(frozen=True, slots=True)
class AdapterStep(Record):
    """One declarative step of a version adapter (`kind` plus its arguments)."""

    kind: str
    args: tuple[tuple[str, object], ...] = ()
    location: Location = field(default=NOWHERE, compare=False)

    def arg(self, key: str, default: object = None) -> object:
        for name, value in self.args:
            if name == key:
                return value
        return default


@dataclass(frozen=True, slots=True)
class Adapter(Record):
    """How a node moves from the previous operator version to this one (and back)."""

    upgrade: tuple[AdapterStep, ...] = ()
    downgrade: tuple[AdapterStep, ...] | None = None
    location: Location = field(default=NOWHERE, compare=False)


# -- function bodies (issue #16) -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FunctionBody(Record):
    """An operator version's body in ONNX's textual syntax: the nodes onnx.parser reads between a
    function's braces, one per line, with the opsets they are written against. The formal inputs,
    outputs and attributes are the version's own. `toolkit.model.onnx_text` parses the text."""

    text: str
    opset_imports: tuple[tuple[str, int], ...]  # (canonical domain, version), in declaration order
    location: Location = field(default=NOWHERE, compare=False)
    text_location: Location = field(default=NOWHERE, compare=False)  # where the text starts
    text_literal: bool = field(
        default=False, compare=False
    )  # text line N is source line text_location.line + N

    def opset(self, domain: str) -> int | None:
        for name, version in self.opset_imports:
            if name == domain:
                return version
        return None


@dataclass(frozen=True, slots=True)
class OpSchema(Record):
    """One fully resolved operator version: inheritance applied, type sets expanded."""

    domain: str
    name: str
    since_version: int
    status: Status = Status.STABLE
    deprecated: bool = False
    # Why a deprecated version is deprecated and what to use instead (free text, not inherited).
    deprecated_reason: str = ""
    doc: str = ""
    inputs: tuple[FormalParameter, ...] = ()
    outputs: tuple[FormalParameter, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    type_constraints: tuple[TypeConstraint, ...] = ()
    based_on: int | None = None
    adapter: Adapter | None = None
    suppress: tuple[str, ...] = ()  # spec-check rule ids silenced for this version
    location: Location = field(default=NOWHERE, compare=False)
    doc_location: Location = field(default=NOWHERE, compare=False)  # where the doc's text starts
    doc_literal: bool = field(default=False, compare=False)  # doc line N is source line doc_location.line + N
    function: FunctionBody | None = None  # a body of other operators, if the version has one
    context_dependent_function: bool = False  # onnx builds a body per node (nothing static to carry)
    # Examples show and test a version; they are not part of its signature (toolkit.model.examples).
    examples: tuple[Example, ...] = field(default=(), compare=False)
    # Constraints between the inputs' shapes and attributes (`shape_requires:`), each a bool rule.
    shape_requires: tuple[ShapeText, ...] = ()

    @property
    def id(self) -> str:
        """`domain.Op:since_version`, the spelling Versioning.md uses in prose."""
        return f"{display_domain(self.domain)}.{self.name}:{self.since_version}"

    @property
    def file(self) -> str:
        return self.location.file

    @property
    def attribute_map(self) -> Mapping[str, Attribute]:
        return {a.name: a for a in self.attributes}

    def attribute(self, name: str) -> Attribute | None:
        for attr in self.attributes:
            if attr.name == name:
                return attr
        return None

    @property
    def constraint_map(self) -> Mapping[str, TypeConstraint]:
        return {c.param: c for c in self.type_constraints}

    @property
    def min_input(self) -> int:
        return _arity(self.inputs)[0]

    @property
    def max_input(self) -> int:
        return _arity(self.inputs)[1]

    @property
    def min_output(self) -> int:
        return _arity(self.outputs)[0]

    @property
    def max_output(self) -> int:
        return _arity(self.outputs)[1]

    @property
    def experimental(self) -> bool:
        return self.status is Status.EXPERIMENTAL

    @property
    def notes(self) -> tuple[tuple[str, str], ...]:
        """(label, text) of each note on this version, in order, shown with the version wherever
        it is shown (its docs pages, its Python docstrings): a field shown as a note is added here,
        not in each generator."""
        if self.deprecated and self.deprecated_reason:
            return (("Deprecated", self.deprecated_reason),)
        return ()


def _arity(params: tuple[FormalParameter, ...]) -> tuple[int, int]:
    """(min, max) count the ONNX way: trailing optionals lower the minimum, variadic is unbounded."""
    low = high = 0
    for index, param in enumerate(params):
        if param.option is ParamOption.SINGLE:
            low = index + 1
            high += 1
        elif param.option is ParamOption.OPTIONAL:
            high += 1
        else:
            low = index + param.min_arity
            high = MAX_ARITY
    return low, high


@dataclass(frozen=True, slots=True)
class OperatorSpec(Record):
    """Everything one operator file declares: all versions of one operator."""

    domain: str
    name: str
    versions: tuple[OpSchema, ...]  # oldest first
    removed_in: int | None = None
    replaced_by: str | None = None
    location: Location = field(default=NOWHERE, compare=False)

    @property
    def file(self) -> str:
        return self.location.file

    def version(self, since_version: int) -> OpSchema | None:
        for schema in self.versions:
            if schema.since_version == since_version:
                return schema
        return None


@dataclass(frozen=True, slots=True)
class OpsetVersion(Record):
    version: int
    ir_version: int
    doc: str = ""
    location: Location = field(default=NOWHERE, compare=False)
    doc_location: Location = field(default=NOWHERE, compare=False)  # where the doc's text starts
    doc_literal: bool = field(default=False, compare=False)  # doc line N is source line doc_location.line + N


@dataclass(frozen=True, slots=True)
class DomainSpec(Record):
    name: str  # canonical ("" for the default domain)
    opset_versions: tuple[OpsetVersion, ...]  # increasing
    type_sets: tuple[tuple[str, tuple[str, ...]], ...] = ()  # name -> expanded type strings
    doc: str = ""
    location: Location = field(default=NOWHERE, compare=False)
    doc_location: Location = field(default=NOWHERE, compare=False)  # where the doc's text starts
    doc_literal: bool = field(default=False, compare=False)  # doc line N is source line doc_location.line + N
    type_set_locations: tuple[tuple[str, Location], ...] = field(default=(), compare=False)

    @property
    def display_name(self) -> str:
        return display_domain(self.name)

    @property
    def versions(self) -> tuple[int, ...]:
        return tuple(v.version for v in self.opset_versions)

    @property
    def max_version(self) -> int:
        return self.opset_versions[-1].version if self.opset_versions else 0

    def opset(self, version: int) -> OpsetVersion | None:
        for opset in self.opset_versions:
            if opset.version == version:
                return opset
        return None

    def type_set_location(self, name: str) -> Location:
        """Where the type set is declared; the domain file itself when unknown."""
        for set_name, location in self.type_set_locations:
            if set_name == name:
                return location
        return self.location

    def type_set(self, name: str) -> tuple[str, ...] | None:
        for set_name, types in self.type_sets:
            if set_name == name:
                return types
        return None


@dataclass(frozen=True, slots=True)
class Release(Record):
    """One row of a release table: a release name, its IR version and opset versions per domain."""

    name: str
    ir_version: int
    opsets: tuple[tuple[str, int], ...]  # (canonical domain, opset version)
    location: Location = field(default=NOWHERE, compare=False)
    doc: str = field(default="", compare=False)  # the `doc` of the release table holding the row


@dataclass(frozen=True, slots=True)
class SpecSet(Record):
    """Everything loaded from a set of spec paths, before resolution into a Registry."""

    domains: tuple[DomainSpec, ...] = ()
    operators: tuple[OperatorSpec, ...] = ()
    releases: tuple[Release, ...] = ()


def spec_files(domain: DomainSpec, operators: Iterable[OperatorSpec]) -> list[str]:
    """The spec files a domain is built from: its domain file and its operators' files (sorted;
    locations without a file left out)."""
    files = {domain.location.file, *(op.location.file for op in operators)}
    return sorted(f for f in files if f and f != NOWHERE.file)
