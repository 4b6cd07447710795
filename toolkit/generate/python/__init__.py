"""The `python` generator kind: typed schema classes and opset builders, from a Registry.

Layout under the output's `python/` folder (one importable package, relocatable: all imports
inside it are relative)::

    python/README.md
    python/pyproject.toml           makes `pip install <out>/python` work (setuptools)
    python/opset_toolkit_generated/ (or `[python] package` of opset.toml)
        __init__.py                 DOMAINS, opset(domain, version), schema(domain, op, since);
                                    the release table: RELEASES, OPSET_IR_VERSIONS,
                                    release_for_opset(), opset_ir_version(), min_ir_version_for()
        _runtime.py                 OpSchemaInfo, OpsetBase, Value classes, LightNode, BuildError
                                    (a copy of `runtime.py` of this package)
        py.typed
        <domain_pkg>/               ai_onnx, ai_onnx_ml, com_acme_vision, ... (dots -> "_")
            __init__.py             DOMAIN, OPSET_VERSIONS, opset(version); opsetN loaded lazily
            _opsets.py              every class Opset<N>, oldest first: each inherits Opset<N-1>
                                    and defines the builders new or changed in opset N (its
                                    builders follow the ONNX resolution rule); one module, so
                                    that importing an opset loads one file of classes
            opset<N>.py             its docstring, IR_VERSION, and Opset<N> from `_opsets`
            schemas/__init__.py     get(op, since_version), OPERATORS; per-op modules loaded lazily
            schemas/<Op>.py         class <Op>_<since>(OpSchemaInfo) per operator version

Builder methods are named after the operator; inputs are positional-only value names (`str`;
`Optional` with default None for trailing optional inputs, `*name` for a variadic input);
attributes are keyword-only with their defaults (required ones have none); `_outputs=` (a count or
names) and `_name=` (node name) are keyword-only extras. A call validates arity, required
attributes and attribute value types (`BuildError`, naming the operator and attribute) and returns
the output value(s) -- `Value` (a `str` subclass, typed `TensorValue`/`SequenceValue`/... from the
output's type) whose `.node` is the built `onnx.NodeProto` (a `LightNode` without onnx); several
outputs come back as a tuple. The opset classes import nothing but `_runtime`, and no generated
module imports `typing` at run time (annotation-only names are imported under TYPE_CHECKING); the
schema class of an operator is imported on the first call, so importing one opset module stays
cheap.

Modules: `layout` (files and what goes in each), `builders` (opset methods), `schema_classes`,
`release_table`, `names`, `source` (literals, docstrings, line layout), `runtime` (the
generated package's runtime; data to the toolkit, never imported by it), and the Jinja2 templates
of `templates/`, the one definition of the files, rendered by `jinja_render`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.generate.python.layout import Distribution, render_registry
from toolkit.generate.python.names import PACKAGE, domain_package
from toolkit.generate.python.source import PythonGenerationError

if TYPE_CHECKING:
    from toolkit.generate.context import GenerateContext
    from toolkit.registry.core import Registry

__all__ = [
    "PACKAGE",
    "Distribution",
    "PythonGenerationError",
    "domain_package",
    "generate",
    "render_registry",
]


def generate(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    """The `python` generator kind; `python.package`, `python.distribution` and `python.version`
    of the context's options name the package (`toolkit.load.project`)."""
    package = context.option("python.package", PACKAGE)
    dist = Distribution(
        package=package,
        name=context.option("python.distribution", package.replace("_", "-")),
        version=context.option("python.version", "0.1.0"),
    )
    return render_registry(registry, context.source, context.memo, dist)
