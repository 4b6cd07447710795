"""What the model of an example needs besides the node, worked out from the registry: the opset
imports, the IR version, and the model-local functions. Shared by the backend test data generator
(`opset generate`, kind `backend_tests`) and `opset test-runtime`, so both run the same bytes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.model.example_model import TestCase, model_proto, test_case
from toolkit.model.examples import Example
from toolkit.model.onnx_text import TextParseError
from toolkit.model.spec import OpSchema
from toolkit.registry.core import Registry

# Domains whose operators runtimes implement themselves: a model-local function of one of their
# operators would stand in for the runtime's own kernel.
STANDARD_DOMAINS = frozenset({"", "ai.onnx.ml", "ai.onnx.preview.training"})
# The IR version of a model for a domain version the registry knows no IR version for.
FALLBACK_IR_VERSION = 10


@dataclass(frozen=True)
class ModelFrame:
    """Everything of an example's model but the node: opset imports, IR version, functions."""

    opset_imports: tuple[tuple[str, int], ...]
    ir_version: int
    functions: tuple[bytes, ...] = ()


def model_frame(registry: Registry, schema: OpSchema) -> ModelFrame:
    """The operator's domain imported at the version's since_version (where the version is in
    effect by definition), with the IR version that opset version declares. A vendor version with
    a function body carries it as a model-local function (with the opsets the body imports), so a
    runtime without a kernel for the operator runs the example by its body."""
    ir_version = FALLBACK_IR_VERSION
    if registry.has_domain(schema.domain):
        opset = registry.domain(schema.domain).opset(schema.since_version)
        if opset is not None:
            ir_version = opset.ir_version
    imports = {schema.domain: schema.since_version}
    functions: tuple[bytes, ...] = ()
    if schema.function is not None and schema.domain not in STANDARD_DOMAINS:
        # Imported here: it loads the protobuf runtime (tens of ms), which only a vendor function
        # body needs; the backend_tests kind of a tree without one (or without examples) runs
        # without it, in a process that has no other use for it (#24).
        from toolkit.model.codec_functions import encode_function

        try:
            functions = (encode_function(schema).SerializeToString(),)
        except TextParseError:
            pass  # the spec check FUNCTION-SYNTAX reports the body; the example runs without it
        else:
            for domain, version in schema.function.opset_imports:
                imports.setdefault(domain, version)
    return ModelFrame(tuple(sorted(imports.items())), ir_version, functions)


def example_model(
    registry: Registry, schema: OpSchema, example: Example
) -> tuple[bytes, list[str], list[str]]:
    """(ModelProto bytes, graph input names, graph output names) of one example."""
    frame = model_frame(registry, schema)
    return model_proto(
        schema,
        example,
        opset_imports=frame.opset_imports,
        ir_version=frame.ir_version,
        functions=frame.functions,
    )


def example_case(registry: Registry, schema: OpSchema, example: Example) -> TestCase:
    frame = model_frame(registry, schema)
    return test_case(
        schema,
        example,
        opset_imports=frame.opset_imports,
        ir_version=frame.ir_version,
        functions=frame.functions,
    )


def all_cases(registry: Registry) -> Sequence[tuple[OpSchema, Example]]:
    """Every (version, example) of the registry in domain, operator, version, example order."""
    return [
        (schema, example)
        for schema in sorted(registry.all_schemas(), key=lambda s: (s.domain, s.name, s.since_version))
        for example in schema.examples
    ]
