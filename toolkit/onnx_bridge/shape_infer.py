"""`toolkit.infer_shapes` and `opset infer-shapes`: shapes through an ONNX model from the specs'
shape rules (#27), written into the model's `value_info` as onnx.shape_inference does.

The main graph's nodes are visited in order (onnx requires it topological); each node's operator
version is resolved in the registry (the imported onnx catalog with its shape overlay, plus any
vendor specs) and its rules evaluated by `toolkit.shapes.engine`. Element types come from the
type inference check-model runs (`check.inference.infer_types`). Constant inputs (integer
initializers and Constant nodes, at most `MAX_CONSTANT` elements) feed the rules' `value(I)`, and
so do the values the operators' value rules compute from shapes (Shape -> Gather -> Concat: onnx's
data propagation), kept for an output of rank 0 or 1.
Subgraphs are walked with their outer graphs' values in scope: If's outputs are what both
branches agree on, Loop's and Scan's states what the body keeps, their scan outputs the body's
slices with the iteration axis added. A call of a model-local function gets the outputs of the
function's body walked with the call's values (`shape_functions`). Nothing of the model is
executed.
"""

from __future__ import annotations

import itertools
import os
from collections import ChainMap
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.model.spec import OpSchema
from toolkit.model.types import ELEMENT_TYPE_NUMBERS
from toolkit.onnx_bridge.graph import graph_path, node_path, opset_imports
from toolkit.registry.core import Registry
from toolkit.shapes.engine import MAX_LIST, Inference, bind_inputs, infer, reads
from toolkit.shapes.values import ABSENT, Dim, Shape, Sym, Value, axis_in

if TYPE_CHECKING:
    from toolkit.onnx_bridge.shape_functions import Calls

__all__ = [
    "MAX_CONSTANT",
    "Conflict",
    "ShapeResult",
    "attribute_value",
    "infer_model_shapes",
    "infer_shapes",
    "infer_shapes_file",
    "registry_for",
    "shape_of",
    "tensor_constant",
]

MAX_CONSTANT = MAX_LIST  # elements of a constant read for value(I)
_INT_TYPES = {
    ELEMENT_TYPE_NUMBERS[t] for t in ("int64", "int32", "int16", "int8", "uint8", "uint16", "uint32")
}


@dataclass(frozen=True, slots=True)
class Conflict:
    """A node output whose inferred shape contradicts the shape declared for it (value_info or a
    graph output): a different rank, or two different static sizes of one dimension."""

    path: str  # the producing node's path (graph.node_path)
    value: str
    declared: tuple[int | Sym | None, ...]
    inferred: tuple[int | Sym | None, ...]
    operator: str  # the schema id of the producing node


@dataclass
class ShapeResult:
    shapes: dict[str, Shape] = field(default_factory=dict)  # value name -> shape (None: rank unknown)
    findings: list[tuple[str, str]] = field(default_factory=list)  # (node path, message)
    nodes: int = 0  # the nodes walked, subgraphs' included
    conflicts: list[Conflict] = field(default_factory=list)
    operators: dict[str, str] = field(default_factory=dict)  # node path -> schema id, for findings
    # (a subgraph's GraphProto, the shapes of its own values)
    subgraphs: list[tuple[Any, dict[str, Shape]]] = field(default_factory=list)


def registry_for(specs: Registry | Sequence[str | os.PathLike[str]] | None) -> Registry:
    """The registry of `specs` (a Registry, or spec paths added to the onnx catalog), or the catalog."""
    if isinstance(specs, Registry):
        return specs
    from toolkit.onnx_bridge.catalog import model_registry

    return model_registry(list(specs or ()), adapters=False)


def _shape_of(type_proto: Any) -> Shape:
    """A tensor's shape; an optional tensor's is the shape of the tensor it holds (only
    OptionalGetElement's rule reads it: a value is written only where its type is a tensor)."""
    if type_proto.WhichOneof("value") == "optional_type":
        type_proto = type_proto.optional_type.elem_type
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    dims: list[int | Sym | None] = []
    for dim in type_proto.tensor_type.shape.dim:
        kind = dim.WhichOneof("value")
        dims.append(
            (dim.dim_value if dim.dim_value >= 0 else None)
            if kind == "dim_value"
            else Sym(dim.dim_param)
            if kind == "dim_param"
            else None
        )
    return tuple(dims)


_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL


def _constant(tensor: Any) -> tuple[Shape, tuple[int, ...] | None]:
    """A tensor's shape, and its values when it is a small integer tensor held in the model.

    Never external data: reading it would open a file the model names (relative to the working
    directory). A tensor whose stored values do not match its dims has no values, never an error."""
    shape = tuple(int(d) if d >= 0 else None for d in tensor.dims)
    if tensor.data_type not in _INT_TYPES or len(shape) > 1 or tensor.data_location == _EXTERNAL:
        return shape, None
    count = shape[0] if shape else 1
    if count is None or count > MAX_CONSTANT:
        return shape, None
    from onnx import numpy_helper

    try:
        values = numpy_helper.to_array(tensor).reshape(-1).tolist()
    except (ValueError, TypeError, OverflowError):
        return shape, None
    return shape, tuple(int(v) for v in values)


def _attribute(attr: Any) -> Value:
    if attr.ref_attr_name:
        return None  # a function body's reference: set, to a value only the caller knows
    from onnx.helper import get_attribute_value  # onnx is an extra: imported when a model is read

    try:
        value = get_attribute_value(attr)
    except ValueError:  # set without a value of its declared type: not known (never the default)
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return tuple(v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value)
    return value if isinstance(value, (int, float)) else ABSENT


def infer_model_shapes(model: Any, registry: Registry) -> ShapeResult:
    """Every value's shape the rules give over the main graph and its subgraphs (If, Loop, Scan),
    and the constraints' findings."""
    result = ShapeResult()
    counter = itertools.count()

    def fresh() -> Sym:
        return Sym(f"opset_unk__{next(counter)}")

    walk = _Walk(registry, opset_imports(model.opset_import), result, fresh)
    if model.functions:
        from toolkit.onnx_bridge.shape_functions import Calls, function_map

        walk.calls = Calls(functions=function_map(model.functions), imports=walk.imports, fresh=fresh)
    walk.graph(model.graph, result.shapes, {}, graph_path(model))
    return result


Scope = MutableMapping[str, Shape]
# what is known of the contents of small integer tensors: constants, and values computed from
# shapes by the operators' value rules (Shape -> Gather -> Concat -> Reshape)
Values = MutableMapping[str, tuple[Dim, ...]]


@dataclass(frozen=True, slots=True)
class _Version:
    """The operator version a model's (domain, op_type) resolves to, when it has shape rules, and
    what the walk must read of a node for them: the attributes named, the inputs (by position and
    formal name) whose known values they may read (engine.reads); a variadic one's are read from
    its position on."""

    schema: OpSchema | None
    attributes: frozenset[str] = frozenset()
    values: tuple[tuple[int, str], ...] = ()


class _Walk:
    """One pass over a graph's nodes in order; a subgraph sees its outer graphs' values (a
    ChainMap over them) and its own are kept apart (`ShapeResult.subgraphs`)."""

    def __init__(
        self, registry: Registry, imports: dict[str, int], result: ShapeResult, fresh: Callable[[], Sym]
    ) -> None:
        self.registry = registry
        self.imports = imports
        self.result = result
        self.fresh = fresh
        self.outputs: dict[str, Shape] = {}  # the graphs' declared outputs, for conflicts
        # per (domain, op_type): the version the model imports, and what its rules read (None:
        # no shape rule); and the results already evaluated, by what they depend on
        self.schemas: dict[tuple[str, str], _Version] = {}
        self.memo: dict[tuple[object, ...], Inference] = {}
        self.types: dict[bytes, Shape] = {}
        self.calls: Calls | None = None  # the model's local functions, when it has any

    def declared(self, type_proto: Any) -> Shape:
        """_shape_of, once per distinct type: a model declares the same few types on thousands of
        values, and its bytes are quicker to read than its fields."""
        key = type_proto.SerializeToString()
        shape = self.types.get(key, ABSENT)
        if shape is ABSENT:
            shape = self.types[key] = _shape_of(type_proto)
        return shape  # type: ignore[return-value]

    def schema(self, domain: str, op_type: str) -> _Version:
        version = self.imports.get(domain or "")
        schema = self.registry.find_schema(op_type, version, domain) if version is not None else None
        if schema is None or not any(p.shape is not None for p in schema.outputs):
            return _Version(None)
        read = reads(schema)
        constants = tuple((at, p.name) for at, p in enumerate(schema.inputs) if p.name in read.values)
        return _Version(schema, read.attributes, constants)

    def graph(self, graph: Any, shapes: Scope, values: Values, path: str) -> None:
        for info in (*graph.input, *graph.value_info):
            name, declared = info.name, self.declared(info.type)
            known = shapes.get(name)
            shapes[name] = declared if known is None else _merge(known, declared)
        for tensor in graph.initializer:
            shapes[tensor.name], constant = _constant(tensor)
            if constant is not None:
                values[tensor.name] = constant
        self.outputs.update((info.name, self.declared(info.type)) for info in graph.output)
        self.result.nodes += len(graph.node)
        for index, node in enumerate(graph.node):
            self.node(node, shapes, values, path, index)

    def node(self, node: Any, shapes: Scope, values: Values, graph: str, index: int) -> None:
        """One node of the graph at path `graph` (its path, graph.node_path, is made only where
        there is something to locate: check-model's findings are located as its own)."""
        domain, op_type = node.domain, node.op_type  # each read of a protobuf field makes a new str
        if domain in ("", "ai.onnx"):
            if op_type == "Constant" and len(node.output) == 1:
                tensors = [a.t for a in node.attribute if a.name == "value" and a.HasField("t")]
                if tensors:
                    shapes[node.output[0]], constant = _constant(tensors[0])
                    if constant is not None:
                        values[node.output[0]] = constant
                return
            if op_type in ("If", "Loop", "Scan"):
                self.control(node, shapes, values, node_path(graph, node, index))
                return
        if self.calls is not None:
            called = self.calls.call(self, node, shapes, values, graph, index)
            if called is not None:  # a call of a local function: its body's outputs
                self.settle(node, shapes, called)
                return
        found = self.schemas.get((domain, op_type))
        if found is None:
            found = self.schemas[domain, op_type] = self.schema(domain, op_type)
        if found.schema is None:
            return
        names = node.input
        outputs = node.output
        given: tuple[Value, ...] = tuple(map(shapes.get, names))
        if "" in names:  # an optional input left out
            given = tuple(shape if name else ABSENT for name, shape in zip(names, given))
        read = found.attributes
        attributes = tuple((a.name, _attribute(a)) for a in node.attribute if a.name in read) if read else ()
        constants = tuple(_known(values, names, at, formal, found) for at, formal in found.values)
        # a node's result depends only on these (engine.reads derives what the rules read), so
        # the 10,000 nodes of a real model are a few hundred evaluations
        key = (id(found.schema), given, attributes, constants, len(outputs))
        inferred = self.memo.get(key)
        if inferred is None:
            inferred = infer(
                found.schema,
                bind_inputs(found.schema, given),
                {name: value for name, value in attributes if value is not ABSENT},
                {name: value for name, value in constants if value is not None},
                self.fresh,
                outputs=len(outputs),
            )
            if not inferred.minted:  # a fresh symbol must stay fresh: never reused
                self.memo[key] = inferred
        for name, content in zip(outputs, inferred.values):
            if name and content is not None:
                values[name] = content  # computed from shapes: later nodes' value() reads it
        if inferred.findings:
            path = node_path(graph, node, index)
            self.result.operators[path] = found.schema.id
            self.result.findings.extend((path, message) for message in inferred.findings)
        for name, shape, has_rule in zip(outputs, inferred.outputs, inferred.has_rule):
            if name and has_rule and shape is not None:
                known = shapes.get(name)
                if known == shape:
                    continue  # declared as inferred (a value_info, typically): nothing to refine
                declared = known if known is not None else self.outputs.get(name)
                if declared is None:
                    shapes[name] = shape
                elif _contradicts(declared, shape):
                    conflict = Conflict(node_path(graph, node, index), name, declared, shape, found.schema.id)
                    self.result.conflicts.append(conflict)
                    # later nodes see the declared shape, so one bad declaration is one finding
                else:
                    shapes[name] = _merge(known, shape)

    def body(
        self,
        graph: Any,
        inputs: Sequence[Shape],
        shapes: Scope,
        values: Values,
        path: str,
    ) -> list[Shape]:
        """Walk a subgraph whose inputs have the shapes `inputs`; the shapes of its outputs."""
        inner: ChainMap[str, Shape] = ChainMap({}, shapes)
        for info, shape in zip(graph.input, inputs):
            inner[info.name] = shape
        self.graph(graph, inner, ChainMap({}, values), path)
        self.result.subgraphs.append((graph, dict(inner.maps[0])))
        return [_merge(_shape_of(info.type), inner.get(info.name)) for info in graph.output]

    def control(self, node: Any, shapes: Scope, values: Values, path: str) -> None:
        """If, Loop and Scan: their outputs' shapes come from their bodies."""
        graphs = {a.name: a.g for a in node.attribute if a.HasField("g")}
        ints = {
            a.name: (a.i if a.type == a.INT else tuple(a.ints)) for a in node.attribute if not a.HasField("g")
        }
        given = [shapes.get(name) if name else None for name in node.input]
        out: list[Shape] = []
        if node.op_type == "If" and {"then_branch", "else_branch"} <= graphs.keys():
            then = self.body(graphs["then_branch"], (), shapes, values, f"{path}/then_branch")
            other = self.body(graphs["else_branch"], (), shapes, values, f"{path}/else_branch")
            out = [_agree(a, b) for a, b in zip(then, other)]
        elif node.op_type == "Loop" and "body" in graphs:
            states = given[2:]
            got = self.body(graphs["body"], [(), (), *states], shapes, values, f"{path}/body")[1:]
            out = [_agree(a, b) for a, b in zip(states, got)]
            out += [None if s is None else (None, *s) for s in got[len(states) :]]  # iterations: unknown
        elif node.op_type == "Scan" and "body" in graphs and isinstance(ints.get("num_scan_inputs"), int):
            out = self.scan(node, graphs["body"], given, ints, shapes, values, path)
        self.settle(node, shapes, out)

    def settle(self, node: Any, shapes: Scope, out: Sequence[Shape]) -> None:
        """The outputs of a node whose shapes come from a graph (a subgraph, a function's body):
        the declared shapes refined."""
        for name, shape in zip(node.output, out):
            if name and shape is not None:
                shapes[name] = _merge(shapes.get(name), shape)

    def scan(
        self,
        node: Any,
        body: Any,
        given: list[Shape],
        ints: dict[str, Any],
        shapes: Scope,
        values: Values,
        path: str,
    ) -> list[Shape]:
        """Scan-8 scans axis 1 of batched inputs (batch first); Scan-9 and later scan the axes
        `scan_input_axes` (default 0) and insert the count at `scan_output_axes` (default 0)."""
        version = self.imports.get("", 0)
        batched = version < 9
        scanned = int(ints["num_scan_inputs"])
        inputs = given[1:] if batched else given
        states, scans = inputs[: len(inputs) - scanned], inputs[len(inputs) - scanned :]
        axes = ints.get("scan_input_axes") or (0,) * scanned
        if batched:
            axes = (1,) * scanned
        slices: list[Shape] = []
        length: Dim = None
        for shape, axis in zip(scans, axes):
            at = axis_in(axis, len(shape)) if shape is not None else None
            if shape is None or at is None:
                slices.append(None)
                continue
            length = shape[at] if length is None else length
            slices.append(shape[:at] + shape[at + 1 :] if not batched else shape[2:])
        if batched:
            batch = scans[0][0] if scans and scans[0] else None
            inner_states = [s[1:] if s else None for s in states]
            got = self.body(body, [*inner_states, *slices], shapes, values, f"{path}/body")
            out = [_agree(s, None if g is None else (batch, *g)) for s, g in zip(states, got)]
            return out + [None if g is None else (batch, length, *g) for g in got[len(states) :]]
        got = self.body(body, [*states, *slices], shapes, values, f"{path}/body")
        out = [_agree(s, g) for s, g in zip(states, got)]
        out_axes = ints.get("scan_output_axes") or ()
        for index, shape in enumerate(got[len(states) :]):
            axis = out_axes[index] if index < len(out_axes) else 0
            at = axis_in(axis, len(shape) + 1) if shape is not None else None
            out.append(None if shape is None or at is None else (*shape[:at], length, *shape[at:]))
        return out


def _known(values: Values, names: Sequence[str], at: int, formal: str, found: _Version) -> tuple[str, Value]:
    """An input's known value for the rules (None: not known); a variadic input's: one per value."""
    assert found.schema is not None
    if found.schema.inputs[-1].is_variadic and formal == found.schema.inputs[-1].name:
        return formal, tuple(values.get(name) for name in names[at:])
    return formal, values.get(names[at]) if at < len(names) else None


def _agree(a: Shape, b: Shape) -> Shape:
    """What two shapes agree on (the branches of an If, a loop's state before and after)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def _contradicts(declared: tuple[int | Sym | None, ...], inferred: tuple[int | Sym | None, ...]) -> bool:
    """Whether both cannot hold: a different rank, or two different static sizes of a dimension
    (a symbol or an unknown on either side agrees with anything)."""
    if len(declared) != len(inferred):
        return True
    return any(isinstance(d, int) and isinstance(i, int) and d != i for d, i in zip(declared, inferred))


def _merge(declared: Shape, inferred: Shape) -> Shape:
    """A declared shape refined by the inferred one (a declared int is kept over anything)."""
    if declared is None or inferred is None or len(declared) != len(inferred):
        return inferred if declared is None else declared
    return tuple(d if isinstance(d, int) else i if i is not None else d for d, i in zip(declared, inferred))


def infer_shapes(model: Any, specs: Registry | Sequence[str | os.PathLike[str]] | None = None) -> Any:
    """A copy of `model` with the inferred element types and shapes in `value_info` (and on graph
    outputs that declare none), like `onnx.shape_inference.infer_shapes`."""
    from onnx import ModelProto

    from toolkit.onnx_bridge.check.inference import infer_types

    registry = registry_for(specs)
    out = ModelProto()
    out.CopyFrom(model)
    result = infer_model_shapes(out, registry)
    types = infer_types(out, registry)
    _write_value_info(out.graph, result.shapes, types)
    for graph, shapes in result.subgraphs:
        _write_value_info(graph, shapes, types)
    return out


def _write_value_info(graph: Any, shapes: dict[str, Shape], types: dict[str, str]) -> None:
    """The inferred type and shape of each node output of `graph` that declares none, as
    value_info (or on the graph output of that name)."""
    from onnx import ValueInfoProto

    declared = {info.name for info in (*graph.input, *graph.value_info)} | {t.name for t in graph.initializer}
    outputs = {info.name: info for info in graph.output}
    made: dict[tuple[int, Shape], Any] = {}  # a model has few distinct types: each is built once
    added: list[Any] = []
    for node in graph.node:
        for name in node.output:
            kind = types.get(name, "")
            if not name or name in declared or (kind and not kind.startswith("tensor(")):
                continue  # declared, or not a tensor (an optional or a sequence gets no tensor type)
            element = ELEMENT_TYPE_NUMBERS.get(kind[7:-1]) if kind else None
            shape = shapes.get(name)
            if element is None and shape is None:
                continue
            target = outputs.get(name)
            if target is not None:
                if target.type.HasField("tensor_type") and target.type.tensor_type.HasField("shape"):
                    continue
                element = element or target.type.tensor_type.elem_type
            key = (element or 0, shape)
            type_proto = made.get(key)
            if type_proto is None:
                type_proto = made[key] = _type_proto(element or 0, shape)
            if target is None:
                added.append(ValueInfoProto(name=name, type=type_proto))
            else:
                target.type.CopyFrom(type_proto)
    graph.value_info.extend(added)


def _type_proto(element: int, shape: Shape) -> Any:
    from onnx import TensorShapeProto, TypeProto

    type_proto = TypeProto()
    type_proto.tensor_type.elem_type = element
    if shape is not None:
        type_proto.tensor_type.shape.CopyFrom(TensorShapeProto())
        for dim in shape:
            entry = type_proto.tensor_type.shape.dim.add()
            if isinstance(dim, int):
                entry.dim_value = dim
            elif isinstance(dim, Sym):
                entry.dim_param = dim.name
    return type_proto


def infer_shapes_file(
    source: str | os.PathLike[str], out: str | os.PathLike[str], registry: Registry
) -> ShapeResult:
    """`opset infer-shapes`: read a model (without its external data), write it with the inferred
    value_info to `out` (atomically), and return what was inferred with the constraints' findings."""
    from pathlib import Path

    from toolkit.load.writer import write_file
    from toolkit.model.diagnostics import UsageError
    from toolkit.onnx_bridge.check.model_io import load_model

    model = load_model(source)
    inferred = infer_shapes(model, registry)
    result = infer_model_shapes(model, registry)
    try:
        write_file(Path(out), inferred.SerializeToString())
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    return result


# The readers of onnx values the inference functions `register_onnx` gives onnx share with the
# graph walk (onnx_bridge/register.py): one reading of a TypeProto, a constant and an attribute.
shape_of = _shape_of
tensor_constant = _constant
attribute_value = _attribute
