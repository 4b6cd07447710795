"""Where things are in a YAML buffer: the node under the cursor with its path of keys from the top,
the end of the node a diagnostic starts at, and the block mapping a line being typed belongs to.

The text is composed into PyYAML's node graph by the loader's `yamlsrc.compose` (never constructed
into objects: no tag runs; its depth bounded before a recursive composer sees it), at most
`files.MAX_FILE_BYTES` of it, and walked with every node visited once, so an alias bomb costs
its size, not its expansion. Lines and columns here are 0-based and count characters (the server
converts to the client's position encoding).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import yaml

from toolkit.load import yaml12
from toolkit.load.files import MAX_FILE_BYTES
from toolkit.load.yamlsrc import MAX_DEPTH, MAX_EXPANDED_NODES, YamlProblem, compose
from toolkit.model.integers import IntegerOutOfRange

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Hit:
    """The scalar under the cursor: its path (keys and list indexes from the top; the last element
    is the key itself when `is_key`), its node, and the mapping holding it (None at the top)."""

    path: Path_
    node: yaml.ScalarNode
    is_key: bool


@dataclass(frozen=True)
class Span:
    start: tuple[int, int]
    end: tuple[int, int]


class Document:
    """One buffer's node graph; `root` is None when the text is not YAML, is too large, or nests
    deeper or holds more nodes than the loader accepts (`yamlsrc.MAX_DEPTH`,
    `yamlsrc.MAX_EXPANDED_NODES`): such a file has no index, and a finding in it spans a word."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.root: yaml.Node | None = None
        # Each indexed node's parent entry and its key or index there: a path is built when asked
        # for, so the index costs one entry per node however deep the nodes lie.
        self._parents: list[int] = []
        self._steps: list[str | int] = []
        self._mappings: list[tuple[yaml.MappingNode, int]] = []
        self._scalars: list[tuple[yaml.ScalarNode, int, bool]] = []
        if len(text.encode("utf-8", errors="replace")) > MAX_FILE_BYTES:
            return
        text = text.lstrip("\ufeff")
        try:
            self.root = compose(text, "")
        except (yaml.YAMLError, YamlProblem, RecursionError):
            return
        if self.root is not None and not self._index(self.root):
            self.root = None  # beyond the loader's limits: no index (the loader reports the file)
            self._parents, self._steps, self._mappings, self._scalars = [], [], [], []

    def _index(self, top: yaml.Node) -> bool:
        """Index every node once; False when the graph nests deeper or holds more nodes than
        the loader accepts (the walk stops there, so the index never outgrows those limits)."""
        seen: set[int] = set()
        stack: list[tuple[yaml.Node, int, int]] = [(top, self._entry(-1, ""), 0)]
        while stack:
            node, entry, depth = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if len(seen) > MAX_EXPANDED_NODES or depth > MAX_DEPTH:
                return False
            if isinstance(node, yaml.MappingNode):
                self._mappings.append((node, entry))
                for key, value in node.value:
                    child = self._entry(entry, key.value if isinstance(key, yaml.ScalarNode) else "")
                    if isinstance(key, yaml.ScalarNode):
                        self._scalars.append((key, child, True))
                    stack.append((value, child, depth + 1))
            elif isinstance(node, yaml.SequenceNode):
                for index, item in enumerate(node.value):
                    stack.append((item, self._entry(entry, index), depth + 1))
            elif isinstance(node, yaml.ScalarNode):
                self._scalars.append((node, entry, False))
        return True

    def _entry(self, parent: int, step: str | int) -> int:
        self._parents.append(parent)
        self._steps.append(step)
        return len(self._parents) - 1

    def _path(self, entry: int) -> Path_:
        steps: list[str | int] = []
        while self._parents[entry] >= 0:
            steps.append(self._steps[entry])
            entry = self._parents[entry]
        return tuple(reversed(steps))

    @property
    def mappings(self) -> list[tuple[yaml.MappingNode, Path_]]:
        """Every mapping with its path."""
        return [(node, self._path(entry)) for node, entry in self._mappings]

    @property
    def scalars(self) -> Iterator[tuple[yaml.ScalarNode, Path_, bool]]:
        """Every scalar with its path (a key's: the path of its value) and whether it is a key."""
        return ((node, self._path(entry), is_key) for node, entry, is_key in self._scalars)

    def hit(self, line: int, column: int) -> Hit | None:
        """The innermost scalar (key or value) whose text holds the position."""
        best: tuple[yaml.ScalarNode, int, bool] | None = None
        for node, entry, is_key in self._scalars:
            start, end = _marks(node)
            if start <= (line, column) <= end and (best is None or _marks(best[0])[0] <= start):
                best = (node, entry, is_key)
        return Hit(self._path(best[1]), best[0], best[2]) if best is not None else None

    def end_of(self, line: int, column: int) -> tuple[int, int]:
        """Where the finding that starts at the position ends: the end of the node starting there
        (a scalar first, else a collection's first line), else the end of the word."""
        for node, _, _ in self._scalars:
            start, end = _marks(node)
            if start == (line, column) and end[0] == line:
                return end
        text = self.lines[line] if 0 <= line < len(self.lines) else ""
        stop = column
        while stop < len(text) and not text[stop].isspace() and text[stop] not in ",]}":
            stop += 1
        if stop == column:
            stop = max(len(text.rstrip()), column + 1) if column < len(text) else column
        return line, stop

    def span_of(self, path: Path_, *, key: bool = False) -> Span | None:
        """The text of the scalar at `path` (its key when `key`)."""
        for node, where, is_key in self.scalars:
            if where == path and is_key == key:
                start, end = _marks(node)
                return Span(start, end)
        return None

    def mapping_at_line(self, line: int, indent: int) -> Path_ | None:
        """The path of the block mapping a new key typed at column `indent` of `line` would join:
        the mapping starting at that column on the closest line above, when no line in between is
        indented less (the same block)."""
        best: tuple[int, Path_] | None = None
        for node, path in self.mappings:
            if node.flow_style or node.start_mark.column != indent or node.start_mark.line > line:
                continue
            if self._dedented_between(node.start_mark.line, line, indent):
                continue
            if best is None or node.start_mark.line >= best[0]:
                best = (node.start_mark.line, path)
        return best[1] if best else None

    def _dedented_between(self, first: int, last: int, indent: int) -> bool:
        for text in self.lines[first + 1 : last]:
            stripped = text.lstrip(" ")
            if stripped and not stripped.startswith("#") and len(text) - len(stripped) < indent:
                return True
        return False

    def node_at(self, path: Path_) -> yaml.Node | None:
        node = self.root
        for step in path:
            if isinstance(node, yaml.MappingNode) and isinstance(step, str):
                node = next((v for k, v in node.value if getattr(k, "value", None) == step), None)
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
                node = node.value[step]
            else:
                return None
        return node


def _marks(node: yaml.Node) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.start_mark.line, node.start_mark.column), (node.end_mark.line, node.end_mark.column)


def scalar_text(node: yaml.Node | None) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else ""


def int_value(node: yaml.Node | None) -> int | None:
    """The integer a scalar spells as the loader reads one (`yaml12`: YAML 1.2's core schema,
    converted by `model.integers`' bounded reader), else None: text that is no integer literal
    (`²`, which str.isdigit takes) or one no field holds (thousands of digits)."""
    text = scalar_text(node)
    if yaml12.resolve(text) != yaml12.INT:
        return None
    try:
        value: int = yaml12.construct(yaml12.INT, text)
    except IntegerOutOfRange:
        return None
    return value
