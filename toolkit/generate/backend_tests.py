"""The `backend_tests` generator: every example as a test case in onnx's backend test-data layout.

`backend_tests/<domain>/node/test_<op>_<example>/model.onnx` plus `test_data_set_0/input_N.pb`
and `output_N.pb`: point any runtime's backend-test runner (onnx.backend.test's loader, a
runtime's own onnx_test_runner) at `backend_tests/<domain>`. The bytes come from the toolkit's own
protobuf writer (`toolkit.model.onnx_wire`), so the onnx package is not needed.
"""

from __future__ import annotations

from toolkit.generate.context import GenerateContext, rendering
from toolkit.model.output_names import domain_folder
from toolkit.registry.core import Registry
from toolkit.registry.test_cases import all_cases, example_case

KIND = "backend_tests"


def generate(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for schema, example in all_cases(registry):
        with rendering(f"example '{example.name}' of {schema.id}", example.location):
            case = example_case(registry, schema, example)
        folder = f"{KIND}/{domain_folder(schema.domain)}/node/{case.folder}"
        for name, data in case.files:
            out[f"{folder}/{name}"] = data
    return out
