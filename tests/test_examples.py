"""Operator examples: loading (literals, .npy, .pb), the codec, our TensorProto/ModelProto bytes as
onnx reads them, the backend test cases as onnxruntime runs them, and the docs section."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from toolkit.checks.run import load_specs
from toolkit.model.codec import schema_set_document, specset_from_schema_documents
from toolkit.model.examples import ExampleTensor
from toolkit.model.npy import NpyError, read_npy
from toolkit.model.onnx_wire import WireError, read_tensor, tensor_proto
from toolkit.registry.core import Registry
from toolkit.registry.test_cases import all_cases, example_case

DOMAIN = """\
domain: com.test.ex
opset_versions:
  - {version: 1, ir_version: 9}
type_sets:
  floats: [tensor(float), tensor(double), tensor(float16)]
"""
OPERATOR = """\
operator: Scale
domain: com.test.ex
versions:
  - since_version: 1
    doc: Multiplies by `alpha`.
    inputs:
      - {name: X, type: T}
      - {name: bias, type: T, option: optional}
    outputs:
      - {name: Y, type: T}
    attributes:
      alpha: {type: float, default: 1.0}
      tags: {type: strings}
    type_constraints:
      T: {allowed: "@floats"}
    examples:
      - name: literal
        doc: Nested lists give the shape.
        attributes: {alpha: 2, tags: [a, b]}
        inputs: [{dtype: float, data: [[1, 2], [3, 4]]}, null]
        outputs: [{dtype: float, data: [[2, 4], [6, 8]]}]
        tolerance: {rtol: 0.01, atol: 0}
      - name: files
        inputs: [{file: data/x.npy}, {file: data/bias.pb, dtype: double}]
        outputs: [{file: data/y.npy, shape: [3]}]
"""


def _tree(tmp_path: Path) -> Path:
    folder = tmp_path / "specs" / "com.test.ex"
    (folder / "data").mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    (folder / "Scale.yaml").write_text(OPERATOR)
    np.save(folder / "data" / "x.npy", np.array([1.5, -2.0, 0.25]))
    np.save(folder / "data" / "y.npy", np.array([1.5, -2.0, 0.25]))
    (folder / "data" / "bias.pb").write_bytes(
        numpy_helper.from_array(np.zeros(3), "bias").SerializeToString()
    )
    return tmp_path / "specs"


def _registry(root: Path) -> Registry:
    result = load_specs([root])
    assert not result.errors, result.diagnostics
    return Registry(result.specs)


def test_literals_files_and_attributes_load_as_plain_values(tmp_path: Path) -> None:
    schema = _registry(_tree(tmp_path)).versions("Scale", "com.test.ex")[0]
    literal, files = schema.examples
    assert literal.inputs[0] == ExampleTensor("float", (2, 2), (1.0, 2.0, 3.0, 4.0))
    assert literal.inputs[1] is None
    assert {a.name: a.value for a in literal.attributes} == {"alpha": 2.0, "tags": ("a", "b")}
    assert (literal.rtol, literal.atol) == (0.01, 0.0)
    assert files.inputs[0] == ExampleTensor("double", (3,), (1.5, -2.0, 0.25), file="data/x.npy")
    assert files.inputs[1] is not None and files.inputs[1].data == (0.0, 0.0, 0.0)
    assert (files.rtol, files.atol) == (1e-3, 1e-7)  # onnx's backend-test defaults
    assert isinstance(literal.inputs[0].data[0], float)  # no numpy scalars in the model


def test_examples_survive_the_codec_with_locations(tmp_path: Path) -> None:
    registry = _registry(_tree(tmp_path))
    domain = registry.domain("com.test.ex")
    document = schema_set_document(domain, registry.operators("com.test.ex"))
    decoded = specset_from_schema_documents([document.SerializeToString()])
    before = registry.versions("Scale", "com.test.ex")[0].examples
    after = decoded.operators[0].versions[0].examples
    assert after == before
    assert [e.location for e in after] == [e.location for e in before]
    assert after[0].inputs[0] is not None and after[0].inputs[0].location.line > 0


def test_a_changed_example_file_is_not_served_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.registry.core import load_registry

    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    root = _tree(tmp_path)
    first = load_registry([root]).versions("Scale", "com.test.ex")[0].examples[1].inputs[0]
    np.save(root / "com.test.ex" / "data" / "x.npy", np.array([9.0, 9.0, 9.0]))
    second = load_registry([root]).versions("Scale", "com.test.ex")[0].examples[1].inputs[0]
    assert first is not None and second is not None
    assert first.data != second.data == (9.0, 9.0, 9.0)


@pytest.mark.parametrize(
    "array",
    [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([1.5, np.nan, -np.inf], dtype=np.float16),
        np.array([[True, False]]),
        np.array(-7, dtype=">i8"),
        np.array([2**64 - 1], dtype=np.uint64),
        np.zeros((0, 3), dtype=np.int16),
    ],
)
def test_npy_files_written_by_numpy_read_without_numpy(array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, array)
    tensor = read_npy(buffer.getvalue())
    assert tensor.shape == array.shape
    np.testing.assert_array_equal(
        np.array(tensor.data, dtype=array.dtype.newbyteorder("=")).reshape(array.shape), array
    )


def test_unsupported_npy_files_are_refused() -> None:
    for array in (np.array(["a"]), np.asfortranarray(np.ones((2, 2))), np.array([1 + 2j])):
        buffer = io.BytesIO()
        np.save(buffer, array)
        with pytest.raises(NpyError):
            read_npy(buffer.getvalue())


TENSORS = [
    ExampleTensor("float", (2,), (1.5, -0.0)),
    ExampleTensor("double", (1, 2), (1e300, float("-inf"))),
    ExampleTensor("float16", (3,), (0.5, 65504.0, 1e9)),
    ExampleTensor("bfloat16", (2,), (1.0, -3.0)),
    ExampleTensor("int8", (2,), (-128, 127)),
    ExampleTensor("uint16", (1,), (65535,)),
    ExampleTensor("int64", (2,), (-(2**63), 2**63 - 1)),
    ExampleTensor("uint64", (1,), (2**64 - 1,)),
    ExampleTensor("bool", (2,), (True, False)),
    ExampleTensor("string", (2,), ("a", "ünï")),
    ExampleTensor("int32", (), (-5,)),
]


@pytest.mark.parametrize("tensor", TENSORS, ids=lambda t: t.dtype)
def test_our_tensor_bytes_are_what_onnx_reads(tensor: ExampleTensor) -> None:
    proto = onnx.TensorProto()
    proto.ParseFromString(tensor_proto(tensor, "t"))
    assert proto.name == "t"
    array = numpy_helper.to_array(proto)
    assert array.shape == tensor.shape
    expected = list(tensor.data)
    if tensor.dtype == "float16":
        expected = [0.5, 65504.0, float("inf")]  # beyond the largest half: infinity
    if tensor.dtype == "string":
        assert [v.decode() if isinstance(v, bytes) else v for v in array.ravel().tolist()] == expected
    else:
        assert (
            array.astype(np.float64 if tensor.dtype in ("float16", "bfloat16") else array.dtype)
            .ravel()
            .tolist()
            == expected
        )
    assert read_tensor(tensor_proto(tensor)).data == tuple(expected)


@pytest.mark.parametrize(
    "proto",
    [
        onnx.helper.make_tensor("a", onnx.TensorProto.FLOAT, [2], [1.0, 2.5]),
        onnx.helper.make_tensor("b", onnx.TensorProto.INT8, [3], [-1, 0, 1]),
        onnx.helper.make_tensor("c", onnx.TensorProto.INT64, [2], [-3, 4]),
        onnx.helper.make_tensor("d", onnx.TensorProto.BOOL, [2], [True, False]),
        onnx.helper.make_tensor("e", onnx.TensorProto.FLOAT16, [1], np.array([0.5], np.float16)),
        onnx.helper.make_tensor("f", onnx.TensorProto.DOUBLE, [1], [0.1]),
        onnx.helper.make_tensor("g", onnx.TensorProto.UINT32, [1], [4000000000]),
        numpy_helper.from_array(np.array([[1, -2]], dtype=np.int32), "h"),
    ],
    ids=lambda p: p.name,
)
def test_tensors_onnx_writes_are_read_back(proto: onnx.TensorProto) -> None:
    tensor = read_tensor(proto.SerializeToString())
    expected = numpy_helper.to_array(proto)
    assert tensor.shape == expected.shape
    assert list(tensor.data) == expected.ravel().tolist()


def test_broken_tensor_bytes_are_a_wire_error() -> None:
    good = tensor_proto(ExampleTensor("float", (2,), (1.0, 2.0)))
    for bad in (
        good[:-3],
        b"\x08",
        onnx.helper.make_tensor("x", onnx.TensorProto.COMPLEX64, [1], [1 + 2j]).SerializeToString(),
    ):
        with pytest.raises(WireError):
            read_tensor(bad)


def test_backend_cases_are_valid_onnx_and_run_on_onnxruntime(tmp_path: Path) -> None:
    ort = pytest.importorskip("onnxruntime")
    registry = _registry(_tree(tmp_path))
    cases = all_cases(registry)
    assert [e.name for _, e in cases] == ["literal", "files"]
    for schema, example in cases:
        case = example_case(registry, schema, example)
        files = dict(case.files)
        model = onnx.load_from_string(files["model.onnx"])
        onnx.checker.check_model(model)
        assert [(o.domain, o.version) for o in model.opset_import] == [("com.test.ex", 1)]
        node = model.graph.node[0]
        assert (node.op_type, node.domain) == ("Scale", "com.test.ex")
        assert list(node.input) == (["X", ""] if example.name == "literal" else ["X", "bias"])
        inputs = [
            numpy_helper.to_array(onnx.load_tensor_from_string(files[f"test_data_set_0/input_{i}.pb"]))
            for i in range(len(model.graph.input))
        ]
        assert inputs[0].shape == example.inputs[0].shape  # type: ignore[union-attr]
    # an ai.onnx example runs on onnxruntime as the backend runner would run it
    relu = tmp_path / "relu" / "ai.onnx"
    relu.mkdir(parents=True)
    (relu / "domain.yaml").write_text("domain: ai.onnx\nopset_versions:\n  - {version: 14, ir_version: 7}\n")
    (relu / "Relu.yaml").write_text(
        "operator: Relu\ndomain: ai.onnx\nversions:\n  - since_version: 14\n    doc: max(0, x)\n"
        "    inputs: [{name: X, type: T}]\n    outputs: [{name: Y, type: T}]\n"
        "    type_constraints: {T: {allowed: [tensor(float)]}}\n"
        "    examples:\n      - {name: basic, inputs: [{dtype: float, data: [-1, 2]}], outputs: [{dtype: float, data: [0, 2]}]}\n"
    )
    registry = _registry(tmp_path / "relu")
    ((schema, example),) = all_cases(registry)
    files = dict(example_case(registry, schema, example).files)
    session = ort.InferenceSession(files["model.onnx"], providers=["CPUExecutionProvider"])
    feed = numpy_helper.to_array(onnx.load_tensor_from_string(files["test_data_set_0/input_0.pb"]))
    (got,) = session.run(None, {"X": feed})
    want = numpy_helper.to_array(onnx.load_tensor_from_string(files["test_data_set_0/output_0.pb"]))
    np.testing.assert_array_equal(got, want)


def test_generate_writes_the_backend_test_layout_deterministically(tmp_path: Path) -> None:
    """`<out>/backend_tests/<domain>/node/test_<op>_<example>/` as onnx's backend-test loader
    expects (model.onnx, test_data_set_0/input_N.pb, output_N.pb); a second run is unchanged."""
    from toolkit.cli import main

    root = _tree(tmp_path)
    assert (
        main(
            [
                "generate",
                "--specs",
                str(root),
                "--out",
                str(tmp_path / "out"),
                "--only",
                "backend_tests",
                "-q",
            ]
        )
        == 0
    )
    data = tmp_path / "out" / "backend_tests" / "com.test.ex"
    assert sorted(p.name for p in (data / "node").iterdir()) == ["test_scale_files", "test_scale_literal"]
    files = sorted(p.relative_to(data).as_posix() for p in data.rglob("*") if p.is_file())
    assert files == [
        "node/test_scale_files/model.onnx",
        "node/test_scale_files/test_data_set_0/input_0.pb",
        "node/test_scale_files/test_data_set_0/input_1.pb",
        "node/test_scale_files/test_data_set_0/output_0.pb",
        "node/test_scale_literal/model.onnx",
        "node/test_scale_literal/test_data_set_0/input_0.pb",
        "node/test_scale_literal/test_data_set_0/output_0.pb",
    ]
    again = tmp_path / "again"
    shutil.copytree(tmp_path / "out", again)
    assert (
        main(
            [
                "generate",
                "--specs",
                str(root),
                "--out",
                str(again),
                "--only",
                "backend_tests",
                "--check",
                "-q",
            ]
        )
        == 0
    )
