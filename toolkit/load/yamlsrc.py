"""Safe YAML reading that keeps source positions.

PyYAML composes the node graph (with the C parser when it is available); we build plain
Python values ourselves so that we can reject duplicate keys, object-constructing tags and
alias bombs, and remember where every key and value came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from toolkit.load import yaml12
from toolkit.load.files import MAX_FILE_BYTES, encoding_diagnostic, read_regular_file, too_large_diagnostic
from toolkit.load.yaml_hints import syntax_hint
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.integers import IntegerOutOfRange
from toolkit.model.spec import Location

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_CONSTRUCTED = frozenset((_INT, _FLOAT, _BOOL, _NULL))

_SCALAR = yaml.ScalarNode
_SEQUENCE = yaml.SequenceNode
# The composer asks for the tag of every plain scalar, and the same few spellings (keys, type
# names, small numbers) come up again and again: answered from memory, in bounded room (short
# spellings only, so a hostile file's long scalars are not kept alive).
_MEMO_CHARS = 64
_plain_tag = lru_cache(maxsize=4096)(yaml12.resolve)

try:
    _Base: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader


class _Loader(_Base):  # type: ignore[misc]
    """The safe loader resolving plain scalars by YAML 1.2's core schema (`yaml12`), as editors
    do, instead of PyYAML's YAML 1.1 table; quoted scalars are strings without a look."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is _SCALAR:
            if not implicit[0]:
                return _STR
            return _plain_tag(value) if len(value) <= _MEMO_CHARS else yaml12.resolve(value)
        return _SEQ if kind is _SEQUENCE else _MAP

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


MAX_EXPANDED_NODES = 200_000  # per document; a billion-laughs file blows through this at once
# Spec documents nest a handful of levels (versions > item > attributes > name > default);
# the limit keeps the recursive builder (and the type checks after it) far from Python's
# recursion limit. libyaml itself refuses documents nested 1000 levels deep.
MAX_DEPTH = 64


class MarkedDict(dict[str, Any]):
    """A mapping that remembers where each key and each value started, and for a `doc` value
    where its text starts (`text_marks`, None when it has none; see `text_location_of`)."""

    __slots__ = ("key_marks", "mark", "text_marks", "value_marks")

    def __init__(self, mark: tuple[int, int]) -> None:
        # made empty (by dict.__new__): no dict.__init__ to call, one call less per mapping
        self.mark = mark
        self.key_marks: dict[str, tuple[int, int]] = {}
        self.value_marks: dict[str, tuple[int, int]] = {}
        self.text_marks: dict[str, tuple[int, int, bool]] | None = None


class MarkedList(list[Any]):
    __slots__ = ("item_marks", "mark")

    def __init__(self, mark: tuple[int, int]) -> None:
        self.mark = mark  # made empty by list.__new__, as MarkedDict
        self.item_marks: list[tuple[int, int]] = []


class YamlProblem(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.format())
        self.diagnostic = diagnostic


def read_yaml(path: Path, display: str, data: bytes | None = None) -> Any:
    """Read one YAML document; raise YamlProblem with a located diagnostic on any defect
    (OSError when the file cannot be read; NotRegularFile when it is not a regular file).
    `data`: the file's bytes when they were read already (from git objects); `path` is not read."""
    if data is None:
        data = read_regular_file(path, MAX_FILE_BYTES)
    if len(data) > MAX_FILE_BYTES:
        raise YamlProblem(too_large_diagnostic(display))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlProblem(encoding_diagnostic(display, data, exc)) from None
    return parse_yaml_text(text, display)


def parse_yaml_text(text: str, display: str) -> Any:
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        node = compose(text, display)
    except yaml.reader.ReaderError as exc:  # a control character: located by its character index
        raise YamlProblem(
            Diagnostic(
                "YAML-SYNTAX",
                f"malformed YAML: character U+{exc.character:04X} is not allowed in YAML text",
                _position(text, display, _character_index(text, exc.position)),
                "remove the control character (write it as an escape such as \\x07 in a double-quoted string)",
            )
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = _within_text(text, *((mark.line + 1, mark.column + 1) if mark is not None else (1, 1)))
        problem = exc.problem or exc.context or "malformed YAML"
        if "nesting depth" in problem:  # libyaml's own limit
            raise YamlProblem(_depth_diagnostic(Location(display, line, column))) from None
        where = Location(display, line, column)
        raise YamlProblem(
            Diagnostic(
                "YAML-SYNTAX",
                f"malformed YAML: {problem}",
                where,
                syntax_hint(_LINE_BREAK.split(text), line, column),
            )
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(
            Diagnostic("YAML-SYNTAX", f"malformed YAML: {exc}", Location(display, 1, 1), "")
        ) from None
    except RecursionError:  # pragma: no cover - only a composer without a depth limit gets here
        raise YamlProblem(_depth_diagnostic(Location(display, 1, 1))) from None
    if node is None:
        return None
    return _Builder(display, text).build(node, 0)


def compose(text: str, display: str) -> yaml.Node | None:
    """The node graph of `text` (never constructed: no tag runs), by the loader's resolver; a
    document nested deeper than MAX_DEPTH is YamlProblem (YAML-DEPTH) before a composer that
    recurses without a limit sees it. Every reader of a spec buffer composes it here (the loader,
    the language server), so none can be made to overflow the stack. PyYAML's errors pass."""
    if not _COMPOSER_BOUNDED:
        _check_depth(text, display)
    node: yaml.Node | None = yaml.compose(text, Loader=_Loader)
    return node


def _character_index(text: str, position: int) -> int:
    """libyaml reports a bad character by its byte offset in the UTF-8 text; PyYAML's own
    reader by its character index."""
    if _Base is yaml.SafeLoader or text.isascii():
        return position
    return len(text.encode("utf-8")[:position].decode("utf-8", errors="replace"))


def _position(text: str, display: str, index: int) -> Location:
    """The line and column of character `index`, counting lines as YAML does."""
    before = text[:index]
    breaks = list(_LINE_BREAK.finditer(before))
    start = breaks[-1].end() if breaks else 0
    return Location(display, len(breaks) + 1, index - start + 1)


def _within_text(text: str, line: int, column: int) -> tuple[int, int]:
    """A position the file really has: libyaml reports an error at the end of the stream on
    the line after the last one; point at the end of the last line instead."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the text ends with a line break: no line follows it
    if line <= len(lines):
        return line, column
    return len(lines), len(lines[-1]) + 1 if lines else 1


def _depth_diagnostic(location: Location) -> Diagnostic:
    return Diagnostic(
        "YAML-DEPTH",
        f"lists and mappings are nested more than {MAX_DEPTH} levels deep here",
        location,
        "a spec nests a few levels; check for runaway brackets or indentation",
    )


def _libyaml_bounded() -> bool:
    """libyaml 0.2.5 and later refuse documents nested 1000 levels deep before composing
    them; its composer recurses in C, so an older one could overflow the stack."""
    if _Base is yaml.SafeLoader:
        return False
    try:
        from yaml import _yaml

        return tuple(int(p) for p in _yaml.get_version_string().split(".")[:3]) >= (0, 2, 5)
    except (ImportError, AttributeError, ValueError):  # pragma: no cover
        return False


def _check_depth(text: str, display: str) -> None:
    """Walk the event stream (produced without recursion) and refuse a document nested deeper
    than MAX_DEPTH before the recursive composer sees it."""
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = Location(display, mark.line + 1, mark.column + 1) if mark else Location(display, 1, 1)
                raise YamlProblem(_depth_diagnostic(where))
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


_COMPOSER_BOUNDED = _libyaml_bounded()


# What YAML counts as a line break (the marks' line numbers count these).
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
_BLOCK_STYLES = ("|", ">")
# The values whose text positions are kept: the doc checks point at places inside docs.
# body: a function body (#16); default: a graph attribute's default
_TEXT_KEYS = frozenset({"doc", "body", "shape", "value", "require", "default"})
# Shape expressions (#27): a quoted one-line scalar without escapes is exact too, one column on.
_EXPRESSION_KEYS = frozenset({"shape", "value", "require"})  # value: an output's value rule


class _Builder:
    def __init__(self, display: str, text: str = "") -> None:
        self.display = display
        self.budget = MAX_EXPANDED_NODES
        self.text = text
        self._lines: list[str] | None = None  # split on the first block scalar only

    def location(self, node: yaml.Node) -> Location:
        mark = node.start_mark
        return Location(self.display, mark.line + 1, mark.column + 1)

    def problem(self, rule: str, message: str, node: yaml.Node, hint: str) -> YamlProblem:
        return YamlProblem(Diagnostic(rule, message, self.location(node), hint))

    def key(self, node: yaml.Node, depth: int) -> str:
        """A mapping key as text. Keys are names or domains: a number key keeps its spelling
        (`.inf` stays '.inf', which no name check accepts, instead of becoming the name 'inf');
        a boolean, null or collection key is an error, and so is a spelling YAML 1.1 reads
        otherwise (an attribute named `on` is the key True to PyYAML): YAML-AMBIGUOUS, as for a
        value."""
        if node.__class__ is yaml.ScalarNode and node.tag == yaml12.ONE_ONE_ONLY:
            raise self.yaml11_problem(node, key=True)
        if node.__class__ is yaml.ScalarNode and node.tag in (_INT, _FLOAT):
            self.budget -= 1
            return str(node.value)
        key = self.build(node, depth)
        if not isinstance(key, str):
            shown = (
                "a list or mapping"
                if isinstance(key, (list, dict))
                else "null"
                if key is None
                else "a boolean"
            )
            raise self.problem(
                "SCHEMA-TYPE",
                f"mapping keys must be strings; this key reads as {shown}",
                node,
                "quote the key",
            )
        return key

    def build(self, node: yaml.Node, depth: int) -> Any:
        """The value of `node`, `depth` collections below the document's root."""
        self.budget -= 1
        if self.budget < 0:
            raise self.problem(
                "YAML-ALIAS-LIMIT",
                f"document expands to more than {MAX_EXPANDED_NODES} nodes (alias expansion)",
                node,
                "do not nest aliases of aliases; write the values out",
            )
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if depth >= MAX_DEPTH:
            raise YamlProblem(_depth_diagnostic(self.location(node)))
        depth += 1
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                raise self.tag_problem(node)
            seq = MarkedList((node.start_mark.line + 1, node.start_mark.column + 1))
            item_marks = seq.item_marks
            for item in node.value:
                seq.append(self.build(item, depth))
                mark = item.start_mark
                item_marks.append((mark.line + 1, mark.column + 1))
            return seq
        assert isinstance(node, yaml.MappingNode)
        if node.tag != _MAP:
            raise self.tag_problem(node)
        mapping = MarkedDict((node.start_mark.line + 1, node.start_mark.column + 1))
        key_marks, value_marks = mapping.key_marks, mapping.value_marks
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise self.problem(
                    "YAML-TAG", "merge keys (`<<`) are not supported", key_node, "write the keys out"
                )
            if key_node.__class__ is _SCALAR and key_node.tag == _STR:
                self.budget -= 1  # the common case of `key()`, inlined: a plain string key
                key = key_node.value
            else:
                key = self.key(key_node, depth)
            if key in mapping:
                first = key_marks[key]
                raise self.problem(
                    "YAML-DUPLICATE-KEY",
                    f"duplicate key '{key}' (first defined at line {first[0]})",
                    key_node,
                    "remove one of the two entries",
                )
            scalar = value_node.__class__ is _SCALAR
            mapping[key] = self.build(value_node, depth)
            mark = key_node.start_mark
            key_marks[key] = (mark.line + 1, mark.column + 1)
            mark = value_node.start_mark
            value_marks[key] = (mark.line + 1, mark.column + 1)
            if scalar and key in _TEXT_KEYS:
                if mapping.text_marks is None:
                    mapping.text_marks = {}
                mapping.text_marks[key] = (
                    _expression_start(value_node)
                    if key in _EXPRESSION_KEYS and value_node.style in ("'", '"')
                    else self.text_start(value_node, node.start_mark.column)
                )
        return mapping

    def text_start(self, node: yaml.ScalarNode, parent_indent: int) -> tuple[int, int, bool]:
        """(line, column, exact) where the text of a scalar starts; exact: the text's lines are
        the source lines one for one, columns included (a `|` block, or a plain scalar on one
        line); otherwise folding or escapes stand between the two."""
        start = node.start_mark
        if node.style not in _BLOCK_STYLES:
            return start.line + 1, start.column + 1, not node.style and node.end_mark.line == start.line
        return (*self.block_start(node, parent_indent), node.style == "|")

    def block_start(self, node: yaml.ScalarNode, parent_indent: int) -> tuple[int, int]:
        """(line, column) where the text of a block scalar starts: the line after its header,
        at the content indentation (the header's indentation indicator added to the parent
        mapping's indentation, or else that of the first line that is not blank)."""
        if self._lines is None:
            text = self.text
            # str.split is much faster than the regex; YAML's other line breaks are rare.
            plain = "\r" not in text and "\x85" not in text and "\u2028" not in text and "\u2029" not in text
            self._lines = text.split("\n") if plain else _LINE_BREAK.split(text)
        lines = self._lines
        header_line = node.start_mark.line
        header = lines[header_line][node.start_mark.column + 1 :] if header_line < len(lines) else ""
        digits = [c for c in header.split("#", 1)[0].strip() if c.isdigit()]
        if digits:
            indent = parent_indent + int(digits[0])
        else:
            indent = parent_indent + 1
            for line in lines[header_line + 1 :]:
                content = line.lstrip(" ")
                if content:
                    indent = len(line) - len(content)
                    break
        return header_line + 2, indent + 1

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if tag in (_STR, _TIMESTAMP):
            return node.value
        if tag == yaml12.ONE_ONE_ONLY:
            raise self.yaml11_problem(node)
        if tag not in _CONSTRUCTED:
            raise self.tag_problem(node)
        value = node.value
        plain = yaml12.resolve(value)
        if plain != tag and not (tag == _FLOAT and plain == _INT):  # an explicit tag such as `!!int abc`
            raise self.problem(
                "YAML-TAG",
                f"'{value}' is not a value of tag '{tag}' in YAML 1.2",
                node,
                "remove the tag and write the value plainly (true, 3, 0.5, null)",
            )
        try:
            return yaml12.construct(tag, value)
        except IntegerOutOfRange as exc:
            raise self.problem(
                "SCHEMA-VALUE", str(exc), node, "write a smaller number, or quote it for a text"
            ) from None

    def yaml11_problem(self, node: yaml.ScalarNode, *, key: bool = False) -> YamlProblem:
        """YAML-AMBIGUOUS for a plain value, or a plain key (read as the text it spells)."""
        value = node.value
        if key:
            reading, fix = f"the name '{value}'", f"quote the key ('{value}'): one name for every reader"
        else:
            reading = yaml12.one_two_reading(value)
            fix = f"quote it ('{value}') for the text, or write {yaml12.suggestion(value)}: one meaning for every reader"
        return self.problem(
            "YAML-AMBIGUOUS",
            f"{'key ' if key else ''}`{value}` is {reading} in YAML 1.2 (as this tool and editors read it) "
            f"but {yaml12.one_one_reading(value)} in YAML 1.1 (PyYAML's yaml.safe_load)",
            node,
            fix,
        )

    def tag_problem(self, node: yaml.Node) -> YamlProblem:
        return self.problem(
            "YAML-TAG",
            f"tag '{node.tag}' is not allowed",
            node,
            "specs are plain data: remove the tag (only strings, numbers, booleans, null, lists, maps)",
        )


def location_of(root: Any, path: tuple[str | int, ...], display: str, *, key: bool = False) -> Location:
    """Location of the value (or the key, with key=True) at `path`; the nearest known ancestor otherwise."""
    node = root
    best = getattr(root, "mark", (1, 1))
    for index, step in enumerate(path):
        last = index == len(path) - 1
        if isinstance(node, MarkedDict) and isinstance(step, str) and step in node:
            marks = node.key_marks if (key and last) else node.value_marks
            best = marks[step]
            node = node[step]
        elif isinstance(node, MarkedList) and isinstance(step, int) and 0 <= step < len(node):
            best = node.item_marks[step]
            node = node[step]
        else:
            break
    return Location(display, best[0], best[1])


def _expression_start(node: yaml.ScalarNode) -> tuple[int, int, bool]:
    """(line, column, exact) of the text of a quoted scalar: exact when it is on one line and its
    source is the text between the quotes (no escapes, no doubled quotes, no folding)."""
    start, end = node.start_mark, node.end_mark
    exact = end.line == start.line and end.column - start.column == len(node.value) + 2
    return start.line + 1, start.column + (2 if exact else 1), exact


def text_location_of(
    root: Any, path: tuple[str | int, ...], display: str, parent: Any = None
) -> tuple[Location, bool]:
    """Where the text of the `doc` string at `path` starts, and whether its lines and columns
    are the source's one for one (a `|` block, a plain scalar on one line). A block scalar's
    text starts on the line after its header, any other value where the value starts. `parent`:
    the value at `path[:-1]`, when the caller holds it (not walked to again)."""
    if parent is None:
        parent = root
        for step in path[:-1]:
            try:
                parent = parent[step]
            except (KeyError, IndexError, TypeError):
                return location_of(root, path, display), False
    marks = parent.text_marks if isinstance(parent, MarkedDict) else None
    key = path[-1] if path else None
    if marks is not None and isinstance(key, str) and key in marks:
        line, column, exact = marks[key]
        return Location(display, line, column), exact
    return location_of(root, path, display), False


@dataclass
class Source:
    """A spec document read with `read_yaml`: its file, the name diagnostics use for it, the data."""

    path: Path
    display: str
    data: Any

    def loc(self, *path: str | int, key: bool = False) -> Location:
        return location_of(self.data, tuple(path), self.display, key=key)

    def loc_in(
        self, container: Any, at: tuple[str | int, ...], step: str | int, *, key: bool = False
    ) -> Location:
        """`loc(*at, step, key=key)` for `container`, the value at `at`, without walking `at` again:
        each collection `read_yaml` makes holds the marks of what it holds."""
        if isinstance(container, MarkedDict) and isinstance(step, str) and step in container:
            line, column = (container.key_marks if key else container.value_marks)[step]
            return Location(self.display, line, column)
        if isinstance(container, MarkedList) and isinstance(step, int) and 0 <= step < len(container):
            line, column = container.item_marks[step]
            return Location(self.display, line, column)
        return self.loc(*at, step, key=key)

    def text_loc(self, *path: str | int) -> tuple[Location, bool]:
        return text_location_of(self.data, tuple(path), self.display)

    def text_loc_in(self, container: Any, at: tuple[str | int, ...], key: str) -> tuple[Location, bool]:
        """`text_loc(*at, key)` for `container`, the value at `at`, without walking `at` again."""
        return text_location_of(self.data, (*at, key), self.display, container)
