"""What may run beside the model walk (`shape_infer`): check-model's graph and node checks
(`check.walk_checks`) see each node of the main graph and of its subgraphs once, with the input,
output and attribute lists the walk read of it (#27, #24: one traversal)."""

from __future__ import annotations

from collections.abc import Container, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolkit.onnx_bridge.check.types import AttributeFacts, Declarations


class GraphHooks(Protocol):
    """What runs beside the walk over one graph's nodes (check-model's graph and node checks), on
    the fields the walk read of each node: `before` a node's subgraphs are walked (its inputs:
    its result is handed back to `after`; a node holding no graph has no `before`, its `mark` is
    None), `after` its output types are known, `leave` after the graph's last node. A node whose
    signature (see `after`) is in `clean`, with no empty input name, gets `repeated` instead of
    `after`: its node checks are known to find nothing."""

    clean: Container[object]

    def before(self, node: Any, index: int, inputs: list[str]) -> int: ...

    def after(
        self,
        mark: int | None,
        node: Any,
        index: int,
        op: tuple[str, str],
        inputs: list[str],
        outputs: list[str],
        facts: AttributeFacts,
        typing: tuple[str | None, ...],
        signature: object | None,
    ) -> None:
        """`op`: the node's (domain, op_type) as read; `facts`: its attributes' (check.fastpath);
        `typing`: its inputs' types in the walk's
        scope (what they were before its outputs were typed); `signature`: None, or the walk's
        outcome for the node (an object compared by identity), a function of its operator
        version, its inputs' types, shapes and known values, its attributes' facts and what its
        rules read of them, and its output count; its outputs are typed as that outcome says."""

    def repeated(self, node: Any, index: int, inputs: list[str], outputs: list[str]) -> None:
        """A node without subgraphs whose signature is in `clean`: `after` less the node checks."""

    def leave(self) -> None: ...

    def reordered(self) -> None:
        """The node's subgraphs were not walked once each in attribute order."""


class WalkHooks(Protocol):
    def enter(
        self,
        graph: Any,
        path: str,
        outer: GraphHooks | None,
        found: Declarations,
        fed: Mapping[str, str | None] | None,
        types: MutableMapping[str, str | None],
    ) -> GraphHooks:
        """The hooks of `graph` (the main graph: `outer` None; else a subgraph of the node that
        `outer`'s graph is at) whose declarations the walk read as `found`, whose Loop or Scan
        feeds `fed`, and whose types the walk keeps in `types`."""
