"""Generators: Registry -> {relative output path: bytes}, pure and deterministic.

The generator registry. A generator is a plain function

    def generate(registry: Registry, context: GenerateContext) -> dict[str, bytes]

that returns every file of its *kind* as `{path relative to --out: bytes}`; each path must start
with `<kind>/` (the kind's own subfolder, which `opset generate` prunes of stale files). Generators
never touch the disk: `toolkit.generate.pipeline` runs them all in memory and hands the union to the
one atomic writer (`toolkit.load.writer`).

`GenerateContext` lives in `toolkit.generate.context`: generators import it from there, never
from this package (which imports them).

Register a generator by adding it to `GENERATORS` (a small function that imports its module
when it runs, so that importing this package stays cheap and one kind's heavy imports are only
paid when that kind runs), or with the `@register_generator("kind")` decorator.

Kinds run in the order of `GENERATORS` (`run_order`) and their outputs merge in sorted kind
order, so the result never depends on the run or registration order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from toolkit.generate.context import GenerateContext, Generator

if TYPE_CHECKING:
    from toolkit.registry.core import Registry

__all__ = [
    "GENERATORS",
    "GenerateContext",
    "Generator",
    "available_kinds",
    "get_generator",
    "register_generator",
    "run_order",
]


def _proto(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    from toolkit.generate.proto_docs import render_registry

    return render_registry(registry, source=context.source, memo=context.memo)


def _python(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    from toolkit.generate.python import generate

    return generate(registry, context)


def _docs(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    from toolkit.generate.docs import generate

    return generate(registry, context)


def _backend_tests(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    from toolkit.generate.backend_tests import generate

    return generate(registry, context)


# In the order `opset generate` hands the kinds out (`run_order`), costliest first, so that the two
# costliest run side by side and the cheap ones fill in after them (on the onnx catalog: docs and
# python about equal, proto two thirds of them, the backend tests next to nothing). Kinds
# registered later (plugins) come after them.
GENERATORS: dict[str, Generator] = {
    "docs": _docs,
    "python": _python,
    "proto": _proto,
    "backend_tests": _backend_tests,
}


def register_generator(kind: str) -> Callable[[Generator], Generator]:
    """Decorator: register `function` as the generator of `kind` (a fresh kind name)."""
    if not kind or "/" in kind or kind.startswith("."):
        raise ValueError(f"invalid generator kind {kind!r}")

    def decorate(function: Generator) -> Generator:
        existing = GENERATORS.get(kind)
        if existing is not None and existing is not function:
            raise ValueError(f"generator kind {kind!r} is already registered")
        GENERATORS[kind] = function
        return function

    return decorate


def run_order(kinds: Iterable[str]) -> list[str]:
    """`kinds` in the order they are run: the order of `GENERATORS`."""
    rank = {kind: number for number, kind in enumerate(GENERATORS)}
    return sorted(kinds, key=lambda kind: (rank.get(kind, len(rank)), kind))


def available_kinds() -> tuple[str, ...]:
    """Every registered kind, sorted."""
    return tuple(sorted(GENERATORS))


def get_generator(kind: str) -> Generator:
    try:
        return GENERATORS[kind]
    except KeyError:
        raise KeyError(f"unknown generator kind {kind!r} (known: {', '.join(sorted(GENERATORS))})") from None
