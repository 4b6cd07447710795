"""Fast paths of the docs generator, beside the plain code they stand in for (each has an
equivalence test in tests/test_docs_fastpaths.py or tests/test_docs_shared_work.py):

* `Bodies`: a version's body (Attributes, Inputs, Outputs, Type Constraints) is built once per
  run and shared by Operators.md, Changelog.md and the operator page, at heading levels 3 and 4;
  the plain code is `toolkit.generate.docs.views.version_body`, which builds it on every call.
  Its rows are shared too (`SharedRows`): a row is made once for equal values.
* `version_changes`: `toolkit.model.changes.diff_schemas` of consecutive versions without
  comparing the attributes, inputs, outputs or type constraints a version left as they were
  (most new versions change one of them).
* `tidy_page`: `tidy("".join(parts))` of a page's parts, with the page's final blank lines left
  out before the join: a page is megabytes, and trimming its end after the join copies it.
  `page_utf8` is the page as the generator writes it, tidied after encoding: one wide character
  (`∞`) makes a joined page two or four bytes per character, its UTF-8 is mostly one.
* `gc_paused`: no cyclic garbage collection while the pages are built. The pages of a catalog
  allocate about a million short-lived objects that hold no cycles (strings, rows, views), and
  each allocation burst made the collector walk the registry's objects again. The output does not
  depend on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from toolkit.generate.docs.markdown import (
    BLANK_RUNS,
    FENCE_AT_START,
    FENCE_LINE,
    FENCED_BLOCK,
    Row,
    scan_fences,
    tidy,
)
from toolkit.generate.docs.views import (
    RowMakers,
    TypeSets,
    attribute_row,
    body_parts,
    constraint_row,
    param_row,
)
from toolkit.load.parallel import gc_paused as gc_paused  # the one pause of the cyclic collector
from toolkit.model.change_detection import Collector
from toolkit.model.change_kinds import SchemaChange
from toolkit.model.spec import Attribute, FormalParameter, OpSchema, TypeConstraint

SchemaKey = tuple[str, str, int]  # (domain, name, since_version): one schema of a registry


class Bodies:
    """`version_body(schema, level)` with the build shared across levels and pages (one
    instance per docs run: the key names a schema within one registry). A body at a level is one
    string object however often it is asked for; its rows come from `SharedRows`."""

    def __init__(self) -> None:
        self._parts: dict[SchemaKey, list[str]] = {}
        self._bodies: dict[tuple[SchemaKey, int], str] = {}
        self._rows = SharedRows().makers()

    def __call__(self, schema: OpSchema, level: int) -> str:
        key = (schema.domain, schema.name, schema.since_version)
        body = self._bodies.get((key, level))
        if body is None:
            parts = self._parts.get(key)
            if parts is None:
                parts = self._parts[key] = body_parts(schema, self._rows)
            body = self._bodies[key, level] = ("#" * level).join(parts)
        return body


class SharedRows:
    """The rows of the version bodies, each made once per run for equal values: an operator's
    versions mostly repeat their attributes, inputs, outputs and type constraints. A key holds
    every value the row is made from (`views.attribute_row`, `param_row`, `constraint_row`), the
    default as its `repr` (0 == 0.0 == False and -0.0 == 0.0, but their spellings differ)."""

    def __init__(self) -> None:
        self._attributes: dict[tuple[object, ...], Row] = {}
        self._params: dict[tuple[object, ...], Row] = {}
        self._constraints: dict[tuple[object, ...], Row] = {}

    def makers(self) -> RowMakers:
        return RowMakers(self.attribute, self.param, self.constraint)

    def attribute(self, attr: Attribute) -> Row:
        key = (attr.name, attr.type, attr.required, repr(attr.default), attr.doc)
        row = self._attributes.get(key)
        if row is None:
            row = self._attributes[key] = attribute_row(attr)
        return row

    def param(self, param: FormalParameter) -> Row:
        key = (
            param.name,
            param.type_str,
            param.option,
            param.homogeneous,
            param.min_arity,
            param.differentiability,
            param.doc,
        )
        row = self._params.get(key)
        if row is None:
            row = self._params[key] = param_row(param)
        return row

    def constraint(self, constraint: TypeConstraint) -> Row:
        key = (constraint.param, constraint.type_sets, constraint.allowed, constraint.doc)
        row = self._constraints.get(key)
        if row is None:
            row = self._constraints[key] = constraint_row(constraint)
        return row


def tidy_page(parts: Sequence[str]) -> str:
    """`tidy("".join(parts))`. The parts that hold only newlines at the end are left out and the
    page ends with one newline, which is what `tidy` makes of its end: a fenced block ends
    with a character other than a newline, so the last newlines are outside every block, and
    leaving them out changes no block (an opening line still ends with its newline)."""
    end = len(parts)
    while end and not parts[end - 1].strip("\n"):
        end -= 1
    kept = list(parts[:end])
    if kept and not kept[-1].endswith("\n"):
        kept.append("\n")
    return tidy("".join(kept))


def version_changes(old: OpSchema, new: OpSchema, type_sets: TypeSets) -> list[SchemaChange]:
    """`views.plain_changes(old, new, type_sets)`: the collector's passes in `diff_schemas`'s
    order, leaving out those over equal items, which find nothing: equal attributes, inputs or
    outputs (with no type parameter renamed) match by name one for one and every comparison of
    a pair is equal, equal type constraints rename nothing and add or remove no type (a renamed
    type parameter retypes the inputs and outputs that use it, so they are compared then). Field
    equality holds an item equal to itself, but `!=` finds a float NaN default changed even
    from itself: such attributes are compared."""
    out = Collector(old, new, type_sets, type_sets)
    out.operator_level()
    if old.attributes != new.attributes or any(_nan(a.default) for a in old.attributes):
        out.attributes()
    same_constraints = old.type_constraints == new.type_constraints
    renamed = {} if same_constraints else out.type_constraints_renames()
    if renamed or old.inputs != new.inputs:
        out.params("INPUT", old.inputs, new.inputs, renamed)
    if renamed or old.outputs != new.outputs:
        out.params("OUTPUT", old.outputs, new.outputs, renamed)
    if not same_constraints:
        out.type_constraints(renamed)
    out.docs()
    return out.changes


def _nan(value: object) -> bool:
    return isinstance(value, float) and value != value


# --------------------------------------------------------------------------- tidy in UTF-8
#
# `markdown.tidy`'s patterns over the page's UTF-8 bytes. They are ASCII, and UTF-8 writes every
# other character with bytes above 0x7f, so each matches the encoded text where it matches the
# text (a newline is the byte 0x0a and nothing else is).


def _utf8(pattern: re.Pattern[str]) -> re.Pattern[bytes]:
    return re.compile(pattern.pattern.encode("ascii"), pattern.flags & ~re.UNICODE)


FENCED_BLOCK_UTF8 = _utf8(FENCED_BLOCK)
FENCE_LINE_UTF8 = _utf8(FENCE_LINE)
FENCE_AT_START_UTF8 = _utf8(FENCE_AT_START)
BLANK_RUNS_UTF8 = _utf8(BLANK_RUNS)


def page_utf8(parts: Sequence[str]) -> bytes:
    """`tidy_page(parts).encode("utf-8")`: the parts are encoded and joined as `tidy_page` joins
    them, then tidied as `markdown.tidy` tidies text."""
    end = len(parts)
    while end and not parts[end - 1].strip("\n"):
        end -= 1
    data = b"".join([part.encode("utf-8") for part in parts[:end]])
    if data and not data.endswith(b"\n"):
        data += b"\n"
    if b"\n\n\n" in data:
        data = _collapse_blank_runs_utf8(data)
    start = 0
    while data.startswith(b"\n", start):
        start += 1
    if start == len(data):
        return b"\n"
    if start or data.endswith(b"\n\n"):
        return data[start:].rstrip(b"\n") + b"\n"
    return data


def _collapse_blank_runs_utf8(data: bytes) -> bytes:
    """`markdown.collapse_blank_runs` over UTF-8."""
    keep = [block.span() for block in _fenced_blocks_utf8(data) if data.find(b"\n\n\n", *block.span()) >= 0]
    if not keep:
        return BLANK_RUNS_UTF8.sub(b"\n\n", data)
    index = 0

    def collapse(run: re.Match[bytes]) -> bytes:
        nonlocal index
        start = run.start()
        while index < len(keep) and keep[index][1] <= start:
            index += 1
        return run.group(0) if index < len(keep) and keep[index][0] <= start else b"\n\n"

    return BLANK_RUNS_UTF8.sub(collapse, data)


def _fenced_blocks_utf8(data: bytes) -> Iterator[re.Match[bytes]]:
    """`markdown.fenced_blocks` over UTF-8."""
    return scan_fences(data, FENCE_AT_START_UTF8, FENCE_LINE_UTF8, FENCED_BLOCK_UTF8)
