"""onnx's backend node test cases as examples of the imported operator versions (`import-onnx`).

The cases are built at run time by the installed onnx package (`onnx.backend.test.case.node`:
its wheel ships the code that makes `data/node`, not the folder) and written beside the imported
specs as TensorProto `.pb` files, never committed. A case becomes an example of the operator
version its model's opset import resolves to when it is one node whose inputs and outputs are
tensors of element types examples support and whose attributes the DSL can write; the rest are
counted as skipped, by reason.
"""

from __future__ import annotations

import bisect
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkit.model.examples import EXAMPLE_DTYPES
from toolkit.model.onnx_wire import WireError, read_tensor
from toolkit.model.types import ATTRIBUTE_TYPE_NUMBERS

# AttributeProto.AttributeType numbers the DSL's example attributes can carry.
_SCALARS = {
    ATTRIBUTE_TYPE_NUMBERS[name]: field for name, field in (("float", "f"), ("int", "i"), ("string", "s"))
}
_LISTS = {ATTRIBUTE_TYPE_NUMBERS[name]: name for name in ("floats", "ints", "strings")}
_TENSOR = ATTRIBUTE_TYPE_NUMBERS["tensor"]


@dataclass
class BackendExamples:
    """Example entries per (domain, op, since_version), the files they name, and skip counts."""

    entries: dict[tuple[str, str, int], list[dict[str, Any]]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)  # path relative to the domain folder
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.entries.values())


def backend_examples(versions: Mapping[tuple[str, str], Sequence[Any]]) -> BackendExamples:
    """Attach every usable node test case of the installed onnx to the onnx schemas `versions`
    (per (domain, op): onnx OpSchema objects, oldest first)."""
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the case generators' numpy warnings are not ours
        cases = node.collect_testcases(None)
    found = BackendExamples()
    for case in sorted(cases, key=lambda c: c.name):
        reason = _attach(case, versions, found)
        if reason:
            found.skipped[reason] += 1
    return found


def _attach(case: Any, versions: Mapping[tuple[str, str], Sequence[Any]], found: BackendExamples) -> str:
    import onnx

    model = case.model
    if len(model.graph.node) != 1 or model.graph.initializer:
        return "not one node"
    node_proto = model.graph.node[0]
    domain = "" if node_proto.domain == "ai.onnx" else node_proto.domain
    history = versions.get((domain, node_proto.op_type))
    imports = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    if not history or domain not in imports:
        return "operator not in the catalog"
    sinces = [s.since_version for s in history]
    index = bisect.bisect_right(sinces, imports[domain]) - 1
    if index < 0:
        return "operator not in the catalog"
    schema = history[index]
    if not case.data_sets:
        return "no data set"
    inputs, outputs = case.data_sets[0]
    graph_inputs = [v.name for v in model.graph.input]
    graph_outputs = [v.name for v in model.graph.output]
    if list(node_proto.output) != graph_outputs or len(outputs) != len(graph_outputs):
        return "outputs are not the node's"
    folder = f"examples/{node_proto.op_type}/{case.name}"
    entry: dict[str, Any] = {"name": case.name.removeprefix("test_")}
    files: dict[str, bytes] = {}
    attributes: dict[str, Any] = {}
    for attr in node_proto.attribute:
        value = _attribute(attr, f"{folder}/attr_{attr.name}.pb", files)
        if value is None:
            return "attribute the DSL cannot write"
        attributes[attr.name] = value
    written_inputs: list[Any] = []
    for name in node_proto.input:
        if not name:
            written_inputs.append(None)
            continue
        if name not in graph_inputs:
            return "input is not a graph input"
        position = graph_inputs.index(name)
        tensor = _tensor_file(onnx, inputs[position], f"{folder}/input_{position}.pb", files)
        if tensor is None:
            return "input that is not a supported tensor"
        written_inputs.append(tensor)
    written_outputs = []
    for position, value in enumerate(outputs):
        tensor = _tensor_file(onnx, value, f"{folder}/output_{position}.pb", files)
        if tensor is None:
            return "output that is not a supported tensor"
        written_outputs.append(tensor)
    if not _types_allowed(schema, written_inputs, written_outputs, files):
        return "type outside the schema's constraints"
    if attributes:
        entry["attributes"] = attributes
    entry["inputs"] = written_inputs
    entry["outputs"] = written_outputs
    entry["tolerance"] = {"rtol": float(case.rtol), "atol": float(case.atol)}
    found.entries.setdefault((domain, node_proto.op_type, schema.since_version), []).append(entry)
    found.files.update(files)
    return ""


def _tensor_file(onnx: Any, value: Any, path: str, files: dict[str, bytes]) -> dict[str, str] | None:
    import numpy as np

    if not isinstance(value, np.ndarray):
        return None  # sequences, optionals, maps
    try:
        data = onnx.numpy_helper.from_array(value).SerializeToString()
        tensor = read_tensor(data)
    except (WireError, TypeError, ValueError):
        return None
    if tensor.dtype not in EXAMPLE_DTYPES:
        return None
    files[path] = data
    return {"file": path}


def _attribute(attr: Any, path: str, files: dict[str, bytes]) -> Any:
    kind = int(attr.type)
    if kind in _SCALARS:
        value = getattr(attr, _SCALARS[kind])
        return value.decode("utf-8") if isinstance(value, bytes) else value
    if kind in _LISTS:
        values = list(getattr(attr, _LISTS[kind]))
        return [v.decode("utf-8") if isinstance(v, bytes) else v for v in values]
    if kind == _TENSOR:
        data = attr.t.SerializeToString()
        try:
            tensor = read_tensor(data)
        except WireError:
            return None
        if tensor.dtype not in EXAMPLE_DTYPES:
            return None
        files[path] = data
        return {"file": path}
    return None


def _types_allowed(schema: Any, inputs: list[Any], outputs: list[Any], files: dict[str, bytes]) -> bool:
    """Whether each value's type is allowed for its formal parameter (what EXAMPLE-TYPE checks)."""
    allowed = {tc.type_param_str: set(tc.allowed_type_strs) for tc in schema.type_constraints}
    for params, values in ((schema.inputs, inputs), (schema.outputs, outputs)):
        for index, value in enumerate(values):
            if value is None or not params:
                continue
            param = params[min(index, len(params) - 1)]
            type_str = f"tensor({read_tensor(files[value['file']]).dtype})"
            if type_str not in allowed.get(param.type_str, {param.type_str}):
                return False
    return True
