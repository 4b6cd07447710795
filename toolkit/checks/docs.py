"""DOC-* rules: doc text that the generated pages would have to repair.

Every `doc` of a loaded spec (operator versions, their inputs, outputs, attributes, type
constraints and examples, domains and opset versions) is read with the CommonMark parser of
`toolkit.checks.markdown`; the docs generator repairs exactly what these rules report
(`toolkit.generate.mdsafe`). One diagnostic per rule and doc field, at the first place in the doc
(the message counts the others). A version's `suppress:` silences DOC-* rules for the docs of that
version; a doc inherited through `based_on` is reported once, at the version that wrote it.

Where: in a literal block doc (`doc: |`) the doc's lines are the source lines, so a finding is
located at its own line and column. Any other doc (plain, quoted, folded) may have been folded or
escaped on its way from the source, so the finding is located where the doc's text starts and the
message names the doc line (unless it is the first).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from toolkit.checks.markdown import Analysis, analyse
from toolkit.checks.markdown_fast import may_need_repair
from toolkit.checks.markdown_text import ControlChars, control_chars
from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.rules import register
from toolkit.model.spec import (
    NOWHERE,
    Attribute,
    DomainSpec,
    FormalParameter,
    Location,
    OperatorSpec,
    OpSchema,
    OpsetVersion,
    SpecSet,
    TypeConstraint,
    display_domain,
)

DocOwner = FormalParameter | Attribute | TypeConstraint | OpSchema | OpsetVersion | DomainSpec

DOCS = "Docs"

# The heading level below which the docs generator demotes a doc's headings, by where the doc is
# shown: an operator version's doc sits under the version's section headings (level 4 in the
# changelog), a parameter's doc under the table of its section, a domain's doc under the domain
# page title, an opset version's doc under its changelog heading.
HEADING_FLOOR = {"version": 5, "parameter": 6, "domain": 3, "opset": 4, "example": 5}

DOC_HTML = register(
    "DOC-HTML",
    "docs",
    "warning",
    "A doc contains raw HTML; ONNX's IR.md allows Markdown only (the docs generator escapes it).",
    category=DOCS,
    hint="ONNX's IR.md allows Markdown only: use Markdown syntax or put the markup in `code`",
    doc="""\
**Why:** schema docs are Markdown (ONNX's IR.md). Raw HTML is rendered differently, or not at all, by
each viewer, and an unclosed tag can swallow the rest of a generated page, so the docs generator
shows it as text (`&lt;b>`) with a note. What counts as HTML is what a CommonMark parser reads as
HTML: `a < b`, autolinks such as `<https://onnx.ai>` and anything inside code are not.

**Before:** `doc: Returns <b>x</b> squared.`

**After:** ``doc: Returns **x** squared.`` (or `` `<b>` `` when the text is about the tag).""",
)
DOC_UNSAFE_LINK = register(
    "DOC-UNSAFE-LINK",
    "docs",
    "warning",
    "A doc links to a URL other than http, https, mailto or a relative one (the docs generator "
    "shows the link as text).",
    category=DOCS,
    hint="link to an http(s) page, a mailto: address or a relative path; put a URL meant as text in `code`",
    doc="""\
**Why:** a doc is shown on generated pages, and a link to a `javascript:`, `vbscript:` or
`data:` URL runs script in the reader's browser when followed (an image loads its target
without a click). Docs may come from a stranger's pull request, so only http, https and mailto
URLs and scheme-less ones (`other.md`, `#anchor`) are kept; the scheme is read as a browser
reads it, after entities (`java&#x09;script:`), escapes and control characters. The rule covers
inline links and images, link reference definitions (`[x]: url`) and autolinks (`<scheme:...>`):
an autolink is kept only when every renderer shows it as a link (`<https://...>`, an e-mail
address), since Python-Markdown reads `<xx:y/onfocus=...>` as an HTML element. The docs
generator shows the construct as text (it escapes the `(` after the link text, the `[` of the
definition, or the autolink's `<`) and adds a note.

**Before:** `doc: See [the demo](javascript:run()) or <xx:y/onfocus=run()/autofocus>.`

**After:** `doc: See [the demo](https://example.com/demo).`""",
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
DOC_CONTROL_CHAR = register(
    "DOC-CONTROL-CHAR",
    "docs",
    "warning",
    "A doc holds a control or bidirectional character (an escape sequence, NUL, U+2028, U+202E...); "
    "the docs generator writes it visibly as `\\uXXXX`.",
    category=DOCS,
    hint="remove the character (a double-quoted YAML string spells it as an escape such as `\\x1b` or `\\u202e`)",
    doc="""\
**Why:** a doc is shown on generated pages and in `opset show`. A terminal escape sequence, a
NUL, a line or paragraph separator (U+2028, U+2029) or a bidirectional override (U+202E, the
Trojan Source trick) can make the text read otherwise than it is, or hide part of it. A YAML file
cannot hold most of them raw (YAML-CONTROL), but a double-quoted string can spell them as escapes
(`"\\x1b[2K"`). The docs generator writes each one visibly (`\\u001b`) and adds a note; line
breaks (LF, CR) and tabs are text and stay as they are.

**Before:** `doc: "Computes x.\\u202e"`

**After:** `doc: "Computes x."`""",
)


def check_docs(specs: SpecSet) -> list[Diagnostic]:
    """DOC-* diagnostics for every doc of `specs`."""
    out = domain_doc_diagnostics(specs)
    for op in specs.operators:
        out += operator_docs(op).diagnostics
    return out


def domain_doc_diagnostics(specs: SpecSet) -> list[Diagnostic]:
    """DOC-* diagnostics for the docs of the domains and their opset versions."""
    out: list[Diagnostic] = []
    for domain in specs.domains:
        name = display_domain(domain.name)
        out += doc_diagnostics(domain.doc, f"domain '{name}'", _place(domain, domain.location), "domain")
        for opset in domain.opset_versions:
            where = _place(opset, domain.location)
            out += doc_diagnostics(opset.doc, f"opset version {opset.version} of '{name}'", where, "opset")
    return out


class OperatorDocs(NamedTuple):
    """The DOC-* diagnostics of one operator's docs, and the analyses they were found in (for
    `markdown.remember` in another process: the docs generator reads the same docs)."""

    diagnostics: list[Diagnostic]
    analyses: list[Analysis]


def operator_docs(op: OperatorSpec) -> OperatorDocs:
    """DOC-* diagnostics for the docs of one operator's versions: they depend on the operator
    alone, so the loader may run this in the worker that read the operator's file."""
    out = OperatorDocs([], [])
    by_since = {schema.since_version: schema for schema in op.versions}
    for schema in op.versions:
        base = by_since.get(schema.based_on) if schema.based_on is not None else None
        silenced = frozenset(schema.suppress)
        for text, owner, field in _schema_docs(schema, base):
            controls = control_chars(text)
            if controls is None and not may_need_repair(text):
                continue  # nothing to report (see doc_diagnostics): what and where are not needed
            what = schema.id if field is None else f"{schema.id} {field[0]} '{field[1]}'"
            place = _place(owner, schema.location)
            kind = "version" if field is None else "parameter"
            found = _analysis_diagnostics(text, what, place, kind, out.analyses, controls)
            out.diagnostics.extend(d for d in found if d.rule not in silenced)
        for example in schema.examples:  # not inherited: each version's own
            controls = control_chars(example.doc)
            if example.doc and (controls is not None or may_need_repair(example.doc)):
                where = (example.location if example.location != NOWHERE else schema.location, False)
                what = f"{schema.id} example '{example.name}'"
                found = _analysis_diagnostics(example.doc, what, where, "example", out.analyses, controls)
                out.diagnostics.extend(d for d in found if d.rule not in silenced)
    return out


def _place(owner: DocOwner, fallback: Location) -> tuple[Location, bool]:
    """Where the doc of `owner` starts and whether its lines are the source lines (`doc_literal`);
    for a model built without doc locations, the owner itself (else `fallback`)."""
    if owner.doc_location != NOWHERE:
        return owner.doc_location, owner.doc_literal
    return (owner.location if owner.location != NOWHERE else fallback), False


def _schema_docs(
    schema: OpSchema, base: OpSchema | None
) -> Iterator[tuple[str, DocOwner, tuple[str, str] | None]]:
    """(doc, its owner, (kind, name) of the field it documents, None for the version's own doc) of
    one version, without what it inherits unchanged."""
    if schema.doc and not (base is not None and base.doc == schema.doc):
        yield schema.doc, schema, None
    inherited: set[tuple[str, str, str]] = set()
    if base is not None:
        inherited |= {(kind, p.name, p.doc) for kind, p in _params(base)}
        inherited |= {("attribute", a.name, a.doc) for a in base.attributes}
        inherited |= {("type constraint", c.param, c.doc) for c in base.type_constraints}
    fields: list[tuple[str, str, DocOwner]] = [(kind, p.name, p) for kind, p in _params(schema)]
    fields += [("attribute", a.name, a) for a in schema.attributes]
    fields += [("type constraint", c.param, c) for c in schema.type_constraints]
    for kind, name, owner in fields:
        if owner.doc and (kind, name, owner.doc) not in inherited:
            yield owner.doc, owner, (kind, name)


def _params(schema: OpSchema) -> Iterator[tuple[str, FormalParameter]]:
    for param in schema.inputs:
        yield "input", param
    for param in schema.outputs:
        yield "output", param


def doc_diagnostics(text: str, what: str, place: tuple[Location, bool], kind: str) -> list[Diagnostic]:
    """The DOC-* findings of one doc: one per rule, at its first place in the doc. `place` is
    where the doc's text starts and whether its lines are the source lines one for one."""
    controls = control_chars(text)
    if not text or (controls is None and not may_need_repair(text)):
        return []
    return _analysis_diagnostics(text, what, place, kind, [], controls)


def _analysis_diagnostics(
    text: str,
    what: str,
    place: tuple[Location, bool],
    kind: str,
    analyses: list[Analysis],
    controls: ControlChars | None = None,
) -> list[Diagnostic]:
    """`doc_diagnostics` of a doc the prefilter flagged or that holds control characters
    (`controls`); its analysis is added to `analyses`."""
    out: list[Diagnostic] = []
    if controls is not None:
        at = _Locator(text, *place)
        message = f"{at.prefix(what, controls.line)}{controls.message}"
        out.append(
            _diagnostic(DOC_CONTROL_CHAR.id, message, at.where(controls.line, 0), DOC_CONTROL_CHAR.hint)
        )
    if controls is None or may_need_repair(text):
        analysis = analyse(text)
        analyses.append(analysis)
        if not analysis.clean:
            out += _findings(analysis, what, _Locator(text, *place), HEADING_FLOOR[kind])
    return out


class _Locator:
    """Source positions of places in a doc, given as (line, column) of the normalized text the
    analysis reads (`toolkit.checks.markdown.normalize`: tabs expanded, dedented, blank lines
    trimmed at both ends)."""

    def __init__(self, text: str, start: Location, literal: bool) -> None:
        self.start = start
        self.literal = literal
        self.raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        expanded = [line.expandtabs(4) for line in self.raw]
        self.lead = next((i for i, line in enumerate(expanded) if line.rstrip()), 0)
        indents = [len(line) - len(line.lstrip(" ")) for line in expanded if line.lstrip(" ")]
        self.margin = min(indents, default=0)

    def exact(self, line: int) -> bool:
        """Whether the location of doc line `line` is that line (else: where the doc starts)."""
        return self.literal or self.lead + line == 0

    def where(self, line: int, column: int) -> Location:
        if not self.literal:
            return self.start
        row = self.lead + line
        raw = self.raw[row] if row < len(self.raw) else ""
        offset = column + self.margin
        # Tabs were expanded before the analysis: a column after a tab is not the source column,
        # so point at the text's indentation instead.
        at = self.start.column + (offset if "\t" not in raw[:offset] else 0)
        return Location(self.start.file, self.start.line + row, at)

    def prefix(self, what: str, line: int) -> str:
        """`what`, and the line of the doc value when the location does not show it."""
        return f"{what}: " if self.exact(line) else f"{what}: doc line {self.lead + line + 1}: "


def _findings(analysis: Analysis, what: str, at: _Locator, floor: int) -> Iterator[Diagnostic]:
    if analysis.html:
        first = analysis.html[0]
        construct = "an HTML block" if first.block else "raw HTML"
        yield _diagnostic(
            DOC_HTML.id,
            f"{at.prefix(what, first.line)}{construct} '{_short(first.text)}'"
            + _more(len(analysis.html) - 1),
            at.where(first.line, first.column),
            DOC_HTML.hint,
        )
    if analysis.open_fences:
        fence = analysis.open_fences[0]
        yield _diagnostic(
            DOC_FENCE.id,
            f"{at.prefix(what, fence.line)}code fence {fence.marker} is never closed"
            + _more(len(analysis.open_fences) - 1),
            at.where(fence.line, fence.column),
            DOC_FENCE.hint,
        )
    if analysis.unsafe_links:
        link = analysis.unsafe_links[0]
        if link.construct == "autolink":
            shown = f"autolink of scheme '{link.scheme}' (a renderer may read it as an HTML element)"
        else:
            shown = f"{link.construct} to a {link.scheme}: URL"
        yield _diagnostic(
            DOC_UNSAFE_LINK.id,
            f"{at.prefix(what, link.line)}{shown}" + _more(len(analysis.unsafe_links) - 1),
            at.where(link.line, link.column),
            DOC_UNSAFE_LINK.hint,
        )
    headings = [h for h in analysis.headings if h.level < floor]
    if headings:
        heading = headings[0]
        style = "setext" if heading.setext else "ATX"
        yield _diagnostic(
            DOC_HEADING.id,
            f"{at.prefix(what, heading.line)}{style} heading of level {heading.level}"
            + _more(len(headings) - 1),
            at.where(heading.line, heading.column),
            DOC_HEADING.hint,
        )


def _diagnostic(rule_id: str, message: str, location: Location, hint: str) -> Diagnostic:
    return Diagnostic(rule_id, message, location, hint, Severity.WARNING)


def _more(count: int) -> str:
    return f" (and {count} more)" if count else ""


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
