"""What one walk of a model (`shape_infer`) found: the main graph's values, each subgraph's own,
and the shape findings over all of them; `toolkit.infer_shapes` writes it into the model
(`shape_write`), check-model reports it (`check.shape_rules`) and reads each graph's inferred
types (`check.walk_checks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkit.shapes.values import Shape, Sym

__all__ = ["Conflict", "ShapeResult", "Subgraph"]


@dataclass(frozen=True, slots=True)
class Conflict:
    """A node output whose inferred shape contradicts the shape declared for it (value_info or a
    graph output), or a body input whose declared shape contradicts the one its Loop or Scan node
    feeds it: a different rank, or two different static sizes of one dimension."""

    path: str  # the producing node's path (graph.node_path)
    value: str
    declared: tuple[int | Sym | None, ...]
    inferred: tuple[int | Sym | None, ...]
    operator: str  # the schema id of the producing node
    fed: bool = False  # `value` is a Loop's or Scan's body input, fed `inferred` by the node at `path`


@dataclass(frozen=True, slots=True)
class Subgraph:
    """What the walk found of one subgraph's own values (its outer graphs' values are theirs: two
    sibling branches may each define a value of one name, of different types and shapes)."""

    graph: Any  # the GraphProto (kept: `id(graph)` identifies it while the result lives)
    shapes: dict[str, Shape] | None  # None: not shaped, its types only (_Scope.shaped)
    produced: list[str]  # its node outputs, in order
    types: dict[str, str]  # its node outputs' inferred types


@dataclass
class ShapeResult:
    """One walk of a model: the main graph's values (`shapes`, `types`, `declared`, `produced`),
    each subgraph's own (`subgraphs`), and the findings over all of them."""

    shapes: dict[str, Shape] = field(default_factory=dict)  # value name -> shape (None: rank unknown)
    findings: list[tuple[str, str]] = field(default_factory=list)  # (node path, message)
    nodes: int = 0  # the nodes walked, subgraphs' included
    conflicts: list[Conflict] = field(default_factory=list)
    operators: dict[str, str] = field(default_factory=dict)  # node path -> schema id, for findings
    subgraphs: list[Subgraph] = field(default_factory=list)  # in the order they were walked
    produced: list[str] = field(default_factory=list)  # the main graph's node outputs, in order
    declared: dict[str, str | None] = field(default_factory=dict)  # the main graph's declared types
    types: dict[str, str] = field(default_factory=dict)  # value name -> inferred type (main graph)
