"""Running the registered generators: a kind's files, validated, or a located GEN-FAILED.

Kept apart from `toolkit.generate.pipeline` (which writes what they produce) so that
`toolkit.generate.streaming`, which the pipeline uses, can run generators without importing it.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.checks.python_names import GENERATOR_FAILED
from toolkit.generate import GenerateContext, available_kinds, get_generator
from toolkit.generate.context import GenerationFailure
from toolkit.load.files import path_problem
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import Location
from toolkit.registry.core import Registry

__all__ = ["GeneratorError", "run_generators"]


class GeneratorError(Exception):
    """A generator failed or returned something invalid; nothing was written.

    `diagnostic` is the located report (GEN-FAILED): the spec location of what the generator was
    rendering (`toolkit.generate.context.rendering`), else the first spec path given."""

    def __init__(self, message: str, diagnostic: Diagnostic | None = None) -> None:
        super().__init__(message)
        self.diagnostic = diagnostic


def _validate_output(kind: str, files: object) -> dict[str, bytes]:
    if not isinstance(files, dict):
        raise GeneratorError(f"generator '{kind}' returned {type(files).__name__}, expected dict[str, bytes]")
    prefix = f"{kind}/"
    out: dict[str, bytes] = {}
    for path, data in files.items():
        if not isinstance(path, str) or not path.startswith(prefix):
            raise GeneratorError(f"generator '{kind}' produced {path!r}, outside its folder '{prefix}'")
        problem = path_problem(path)
        if problem is not None:
            raise GeneratorError(f"generator '{kind}' produced an unsafe path {path!r}: {problem}")
        if not isinstance(data, bytes):
            raise GeneratorError(f"generator '{kind}' produced {type(data).__name__} for {path!r}, not bytes")
        out[path] = data
    return out


def run_generators(
    registry: Registry, context: GenerateContext, kinds: Sequence[str] | None = None
) -> dict[str, bytes]:
    """Run the generators of `kinds` (default: all) in sorted order; the union of their files."""
    selected = sorted(set(kinds)) if kinds is not None else list(available_kinds())
    files: dict[str, bytes] = {}
    for kind in selected:
        generator = get_generator(kind)
        try:
            produced = generator(registry, context)
        except GeneratorError:
            raise
        except GenerationFailure as failure:
            cause = failure.cause
            message = f"generator '{kind}' failed on {failure.what}: {type(cause).__name__}: {cause}"
            raise GeneratorError(message, _failed(message, failure.location)) from cause
        except Exception as exc:
            message = f"generator '{kind}' failed: {type(exc).__name__}: {exc}"
            raise GeneratorError(message, _failed(message, _fallback_location(context))) from exc
        try:
            files.update(_validate_output(kind, produced))
        except GeneratorError as exc:
            raise GeneratorError(str(exc), _failed(str(exc), _fallback_location(context))) from None
    return dict(sorted(files.items()))


def _failed(message: str, location: Location) -> Diagnostic:
    return Diagnostic(GENERATOR_FAILED, message, location, "nothing was written; the outputs are unchanged")


def _fallback_location(context: GenerateContext) -> Location:
    """Where a failure outside any `rendering` block is reported: the first spec path, line 1."""
    return Location(context.spec_paths[0] if context.spec_paths else context.source, 1, 1)
