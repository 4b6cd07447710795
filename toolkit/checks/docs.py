"""DOC-* rules: doc text that the generated pages would have to repair.

Every `doc` of a loaded spec (operator versions, their inputs, outputs, attributes and type
constraints, domains and opset versions) is read with the CommonMark parser of
`toolkit.checks.markdown`; the docs generator repairs exactly what these rules report
(`toolkit.generate.mdsafe`). One diagnostic per rule and doc field, at the first place in the doc
(the message counts the others), located at the object that holds the doc. A version's
`suppress:` silences DOC-* rules for the docs of that version; a doc inherited through
`based_on` is reported once, at the version that wrote it.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.checks.markdown import Analysis, analyse
from toolkit.checks.markdown_fast import may_need_repair
from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.rules import register
from toolkit.model.spec import NOWHERE, FormalParameter, Location, OpSchema, SpecSet, display_domain

DOCS = "Docs"

# The heading level below which the docs generator demotes a doc's headings, by where the doc is
# shown: an operator version's doc sits under the version's section headings (level 4 in the
# changelog), a parameter's doc under the table of its section, a domain's doc under the domain
# page title, an opset version's doc under its changelog heading.
HEADING_FLOOR = {"version": 5, "parameter": 6, "domain": 3, "opset": 4}

DOC_HTML = register(
    "DOC-HTML",
    "docs",
    "warning",
    "A doc contains raw HTML; IR.md allows Markdown only (the docs generator escapes it).",
    category=DOCS,
    hint="IR.md allows Markdown only: use Markdown syntax or put the markup in `code`",
    doc="""\
**Why:** schema docs are Markdown (IR.md). Raw HTML is rendered differently, or not at all, by
each viewer, and an unclosed tag can swallow the rest of a generated page, so the docs generator
shows it as text (`&lt;b>`) with a note. What counts as HTML is what a CommonMark parser reads as
HTML: `a < b`, autolinks such as `<https://onnx.ai>` and anything inside code are not.

**Before:** `doc: Returns <b>x</b> squared.`

**After:** ``doc: Returns **x** squared.`` (or `` `<b>` `` when the text is about the tag).""",
)
DOC_FENCE = register(
    "DOC-FENCE",
    "docs",
    "warning",
    "A doc opens a code fence it never closes (the docs generator closes it).",
    category=DOCS,
    hint="close the code fence (``` on a line of its own) before the end of the doc",
    doc="""\
**Why:** an unclosed fence runs to the end of its container: shown as is, it would turn the rest
of the generated page into code. The docs generator closes it where the doc (or the list item
holding it) ends and adds a note.

**Before:** a doc ending in ```` ```python ```` and a line of code.

**After:** the same doc with ```` ``` ```` on a line of its own after the code.""",
)
DOC_HEADING = register(
    "DOC-HEADING",
    "docs",
    "warning",
    "A doc contains Markdown headings (the docs generator demotes them).",
    category=DOCS,
    hint="doc text is shown under the operator's own headings; use bold text or lists instead",
    doc="""\
**Why:** a doc is shown under the headings of the generated page (the operator, its version, the
Inputs table...). A heading in the doc, ATX (`## Example`) or setext (a line under `====` or
`----`), would restructure the page's table of contents, so the docs generator demotes it below
the page's own headings.

**Before:** `Example` over a line of `-------`, or `## Example`.

**After:** `**Example**` on a line of its own.""",
)


def check_docs(specs: SpecSet) -> list[Diagnostic]:
    """DOC-* diagnostics for every doc of `specs`."""
    out: list[Diagnostic] = []
    for domain in specs.domains:
        name = display_domain(domain.name)
        out += doc_diagnostics(domain.doc, f"domain '{name}'", domain.location, "domain")
        for opset in domain.opset_versions:
            where = opset.location if opset.location != NOWHERE else domain.location
            out += doc_diagnostics(opset.doc, f"opset version {opset.version} of '{name}'", where, "opset")
    for op in specs.operators:
        by_since = {schema.since_version: schema for schema in op.versions}
        for schema in op.versions:
            base = by_since.get(schema.based_on) if schema.based_on is not None else None
            silenced = frozenset(schema.suppress)
            for text, what, location, kind in _schema_docs(schema, base):
                out += (d for d in doc_diagnostics(text, what, location, kind) if d.rule not in silenced)
    return out


def _schema_docs(schema: OpSchema, base: OpSchema | None) -> Iterator[tuple[str, str, Location, str]]:
    """(doc, what it documents, where, kind) of one version, without what it inherits unchanged."""
    if schema.doc and not (base is not None and base.doc == schema.doc):
        yield schema.doc, schema.id, schema.location, "version"
    inherited: set[tuple[str, str, str]] = set()
    if base is not None:
        inherited |= {(kind, p.name, p.doc) for kind, p in _params(base)}
        inherited |= {("attribute", a.name, a.doc) for a in base.attributes}
        inherited |= {("type constraint", c.param, c.doc) for c in base.type_constraints}
    fields = [(kind, p.name, p.doc, p.location) for kind, p in _params(schema)]
    fields += [("attribute", a.name, a.doc, a.location) for a in schema.attributes]
    fields += [("type constraint", c.param, c.doc, c.location) for c in schema.type_constraints]
    for kind, name, text, location in fields:
        if text and (kind, name, text) not in inherited:
            where = location if location != NOWHERE else schema.location
            yield text, f"{schema.id} {kind} '{name}'", where, "parameter"


def _params(schema: OpSchema) -> Iterator[tuple[str, FormalParameter]]:
    for param in schema.inputs:
        yield "input", param
    for param in schema.outputs:
        yield "output", param


def doc_diagnostics(text: str, what: str, location: Location, kind: str) -> list[Diagnostic]:
    """The DOC-* findings of one doc: one per rule, at its first place in the doc."""
    if not text or not may_need_repair(text):
        return []
    analysis = analyse(text)
    if analysis.clean:
        return []
    return list(_findings(analysis, what, location, HEADING_FLOOR[kind]))


def _findings(analysis: Analysis, what: str, location: Location, floor: int) -> Iterator[Diagnostic]:
    if analysis.html:
        first = analysis.html[0]
        construct = "an HTML block" if first.block else "raw HTML"
        yield _diagnostic(
            DOC_HTML.id,
            f"{what}: doc line {first.line + 1}: {construct} '{_short(first.text)}'"
            + _more(len(analysis.html) - 1),
            location,
            DOC_HTML.hint,
        )
    if analysis.open_fences:
        fence = analysis.open_fences[0]
        yield _diagnostic(
            DOC_FENCE.id,
            f"{what}: doc line {fence.line + 1}: code fence {fence.marker} is never closed"
            + _more(len(analysis.open_fences) - 1),
            location,
            DOC_FENCE.hint,
        )
    headings = [h for h in analysis.headings if h.level < floor]
    if headings:
        heading = headings[0]
        style = "setext" if heading.setext else "ATX"
        yield _diagnostic(
            DOC_HEADING.id,
            f"{what}: doc line {heading.line + 1}: {style} heading of level {heading.level}"
            + _more(len(headings) - 1),
            location,
            DOC_HEADING.hint,
        )


def _diagnostic(rule_id: str, message: str, location: Location, hint: str) -> Diagnostic:
    return Diagnostic(rule_id, message, location, hint, Severity.WARNING)


def _more(count: int) -> str:
    return f" (and {count} more)" if count else ""


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
