"""The `python` adapters of the ai.onnx overlay (`toolkit/data/onnx_adapters/ai.onnx.yaml`):
the steps no declarative step kind expresses. Each checks what its validity depends on and
refuses (AdapterError) instead of guessing; a rewrite returns the small subgraph it needs in
`AdapterResult.before` / `after` (nodes of the target opset)."""

from __future__ import annotations

from toolkit.adapters.node import (
    AdapterContext,
    AdapterError,
    AdapterResult,
    MissingAdapter,
    NewConstant,
    Node,
)
from toolkit.adapters.onnx_io import element_type_number
from toolkit.model.spec import AttrType


def split_18_num_outputs(node: Node, ctx: AdapterContext) -> Node:
    """Split 13 -> 18: without a `split` input, Split 18 needs `num_outputs` (Split 13 split
    equally into as many parts as outputs, which is what `num_outputs` says when it divides)."""
    out = node.copy()
    if len(out.inputs) < 2 or not out.inputs[1]:
        out.attributes["num_outputs"] = len(out.outputs)
    return out


def inference_only(node: Node, ctx: AdapterContext) -> Node:
    """BatchNormalization 9 -> 14: the same node in inference (only output Y); the training
    outputs changed meaning (running vs. saved statistics), so a node using them is refused."""
    used = [name for name in node.outputs[1:] if name]
    if used:
        raise AdapterError(
            f"outputs {', '.join(used)} are training statistics, which {ctx.target.id} defines differently"
        )
    return node.copy()


def dropout_mask_cast(node: Node, ctx: AdapterContext) -> AdapterResult:
    """Dropout 7 <-> 10: opset 7's mask has the data's type, opset 10's is bool (1 / true where
    an element is kept). A node whose mask is read writes it under a fresh name, and a Cast
    gives its readers the mask in the type they read (bool going up to 10, the data's type down)."""
    if len(node.outputs) < 2 or not node.outputs[1]:
        return AdapterResult(node.copy())
    to = "bool"
    if ctx.direction == "upgrade":
        data = ctx.value_type(node.inputs[0]) if node.inputs else None
        if data is None or not data.startswith("tensor("):
            raise AdapterError(
                f"the mask of {ctx.source.id} has the type of '{node.inputs[0]}', which the model does not declare",
                hint="declare the data input's type (value_info), then convert",
            )
        to = data[len("tensor(") : -1]
    out = node.copy()
    used: set[str] = set(node.inputs) | set(node.outputs)
    raw = fresh_name(ctx, node, "mask", used)
    mask, out.outputs[1] = out.outputs[1], raw
    cast = Node("Cast", [raw], [mask], {"to": element_type_number(to) or 0}, name=f"{raw}_cast")
    return AdapterResult(out, after=[cast], notes=[f"Dropout mask '{mask}': cast to {to}"])


def same_type_as_input(node: Node, ctx: AdapterContext) -> Node:
    """BatchNormalization 15 -> 14: scale, bias, mean and var must have the input's type."""
    first = ctx.value_type(node.inputs[0]) if node.inputs else None
    for name in node.inputs[1:]:
        found = ctx.value_type(name)
        if first is None or found is None:
            raise AdapterError(
                f"the types of '{node.inputs[0]}' and '{name}' are not both known; {ctx.target.id} needs them equal"
            )
        if found != first:
            raise AdapterError(
                f"'{name}' is {found} and '{node.inputs[0]}' {first}; {ctx.target.id} needs one type"
            )
    return node.copy()


def fresh_name(ctx: AdapterContext, node: Node, suffix: str, used: set[str]) -> str:
    """A value name not used by the node or the graph (`<node>_<suffix>`, numbered if needed)."""
    base = f"{node.name or (node.outputs[0] if node.outputs else node.op_type)}_{suffix}"
    name, counter = base, 1
    while name in used or name in ctx.taken:
        name = f"{base}_{counter}"
        counter += 1
    used.add(name)
    return name


def coerced_softmax_upgrade(node: Node, ctx: AdapterContext) -> AdapterResult:
    """Softmax / LogSoftmax / Hardmax 11 -> 13: opset 11 flattens the input to 2-D at `axis`
    (default 1) and normalises each row; opset 13 normalises along `axis` alone. Axis -1 means
    the same in both; any other axis becomes Flatten(axis) -> op(axis=-1) -> Reshape(Shape(x))."""
    out = node.copy()
    axis = out.attributes.get("axis", 1)
    if axis == -1:
        out.attributes["axis"] = -1
        return AdapterResult(out)
    used: set[str] = set(node.inputs) | set(node.outputs)
    shape, flat, row = (fresh_name(ctx, node, s, used) for s in ("shape", "flat", "rows"))
    source = out.inputs[0]
    before = [
        Node("Shape", [source], [shape], name=shape),
        Node("Flatten", [source], [flat], {"axis": axis}, name=flat),
    ]
    result_name = out.outputs[0]
    out.inputs = [flat]
    out.outputs = [row]
    out.attributes["axis"] = -1
    after = [Node("Reshape", [row, shape], [result_name], name=f"{row}_reshape")]
    return AdapterResult(
        out,
        before=before,
        after=after,
        notes=[f"{node.op_type} axis {axis}: rewritten as Flatten -> {node.op_type} -> Reshape"],
    )


def coerced_softmax_downgrade(node: Node, ctx: AdapterContext) -> AdapterResult:
    """Softmax / LogSoftmax 13 -> 11 (through 12): along one axis. Axis -1 is the same in
    opset 11 (written explicitly, its default there is 1); any other axis is computed from its
    definition with opset 12 reductions (max-shifted exponentials), which need no rank."""
    out = node.copy()
    axis = out.attributes.get("axis", -1)
    if axis == -1:
        out.attributes["axis"] = -1
        return AdapterResult(out)
    if node.op_type == "Hardmax":
        raise AdapterError(
            f"axis {axis} means one axis in {ctx.source.id} but the flattened trailing axes in "
            f"{ctx.target.id}; only axis -1 means the same"
        )
    used: set[str] = set(node.inputs) | set(node.outputs)
    x, y = node.inputs[0], node.outputs[0]
    peak, shifted, exp, total = (fresh_name(ctx, node, s, used) for s in ("max", "shifted", "exp", "sum"))
    nodes = [
        Node("ReduceMax", [x], [peak], {"axes": [axis], "keepdims": 1}, name=peak),
        Node("Sub", [x, peak], [shifted], name=shifted),
        Node("Exp", [shifted], [exp], name=exp),
        Node("ReduceSum", [exp], [total], {"axes": [axis], "keepdims": 1}, name=total),
    ]
    if node.op_type == "Softmax":
        last = Node("Div", [exp, total], [y], name=node.name or f"{y}_div")
    else:
        log = fresh_name(ctx, node, "logsum", used)
        nodes.append(Node("Log", [total], [log], name=log))
        last = Node("Sub", [shifted, log], [y], name=node.name or f"{y}_sub")
    return AdapterResult(
        last,
        before=nodes,
        notes=[f"{node.op_type} axis {axis}: rewritten with ReduceMax/Exp/ReduceSum along the axis"],
    )


def _nonnegative_constant(node: Node, ctx: AdapterContext, position: int, what: str) -> Node:
    """Refuse unless input `position` is omitted or a constant without negative values: the
    older version gives negative values no meaning."""
    if position >= len(node.inputs) or not node.inputs[position]:
        return node.copy()
    name = node.inputs[position]
    value = ctx.constant(name)
    if value is None:
        raise AdapterError(
            f"input {position} ('{name}') is not a constant, so it cannot be checked that its {what} are "
            f"non-negative, which {ctx.target.id} needs"
        )
    if any(v < 0 for v in _flat(value)):
        raise AdapterError(
            f"input {position} ('{name}') has negative {what}, which {ctx.target.id} does not accept"
        )
    return node.copy()


def _flat(value: object) -> list[float]:
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in _flat(part)]
    return [value] if isinstance(value, (int, float)) else []


def nonnegative_indices(node: Node, ctx: AdapterContext) -> Node:
    """Gather / Scatter 11 -> older: negative indices (counted from the back) are new in 11."""
    checked = _nonnegative_constant(node, ctx, 1, "indices")
    axis = checked.attributes.get("axis", 0)
    if isinstance(axis, int) and axis < 0:
        raise AdapterError(f"attribute 'axis' is {axis}; {ctx.target.id} accepts only values >= 0")
    return checked


def nonnegative_onehot_indices(node: Node, ctx: AdapterContext) -> Node:
    """OneHot 11 -> 9: negative indices are new in 11 (and so is a negative `axis`)."""
    checked = _nonnegative_constant(node, ctx, 0, "indices")
    axis = checked.attributes.get("axis", -1)
    if isinstance(axis, int) and axis < -1:
        raise AdapterError(f"attribute 'axis' is {axis}; {ctx.target.id} accepts only -1 or values >= 0")
    return checked


def nonnegative_slice_axes(node: Node, ctx: AdapterContext) -> Node:
    """Slice 11 -> 10: negative axes are new in 11."""
    return _nonnegative_constant(node, ctx, 3, "axes")


def scalar_scale(node: Node, ctx: AdapterContext) -> Node:
    """QuantizeLinear / DequantizeLinear 13 -> 10: opset 10 quantizes per tensor only, so the
    scale (input 1) must be a constant with one value; `axis` then means nothing."""
    name = node.inputs[1] if len(node.inputs) > 1 else ""
    value = ctx.constant(name)
    if value is None:
        raise AdapterError(
            f"the scale '{name}' is not a constant, so it cannot be checked that it is one value "
            f"(per-tensor), the only kind {ctx.target.id} has"
        )
    if len(_flat(value)) != 1:
        raise AdapterError(
            f"the scale '{name}' has {len(_flat(value))} values (per-axis); {ctx.target.id} "
            "quantizes per tensor only"
        )
    out = node.copy()
    out.attributes.pop("axis", None)
    return out


def scale_like_input(node: Node, ctx: AdapterContext) -> Node:
    """QuantizeLinear 13 -> 19 (x and y_scale share T1 from 19) and 23 -> 21 (y_scale gets its
    own type parameter at 23): the scale must have the input's type."""
    x, scale = node.inputs[0], node.inputs[1] if len(node.inputs) > 1 else ""
    found_x, found_scale = ctx.value_type(x), ctx.value_type(scale)
    if found_x is None or found_scale is None:
        raise AdapterError(
            f"the types of '{x}' and '{scale}' are not both known; {ctx.target.id} needs them equal"
        )
    if found_x != found_scale:
        raise AdapterError(f"'{scale}' is {found_scale} and '{x}' {found_x}; {ctx.target.id} needs one type")
    return node.copy()


def _empty_input(node: Node, ctx: AdapterContext, position: int, suffix: str) -> NewConstant | None:
    if position < len(node.inputs) and node.inputs[position]:
        return None
    used = set(node.inputs) | set(node.outputs)
    name = fresh_name(ctx, node, suffix, used)
    while len(node.inputs) <= position:
        node.inputs.append("")
    node.inputs[position] = name
    return NewConstant(name, [], AttrType.FLOATS, "float")


def resize_13_downgrade(node: Node, ctx: AdapterContext) -> AdapterResult:
    """Resize 13 -> 11: `roi` and `scales` became optional at 13; Resize 11 needs both, and
    reads an empty tensor as "not given", so an omitted one becomes an empty float constant."""
    out = node.copy()
    made = [
        c for c in (_empty_input(out, ctx, 1, "roi"), _empty_input(out, ctx, 2, "scales")) if c is not None
    ]
    return AdapterResult(out, constants=made)


def gemm_c_given(node: Node, ctx: AdapterContext) -> AdapterResult:
    """Gemm 11 -> 9: C became optional at 11 (absent means 0); Gemm 9 needs it, and a scalar 0
    of the input's type broadcasts to the same result."""
    out = node.copy()
    if len(out.inputs) > 2 and out.inputs[2]:
        return AdapterResult(out)
    used = set(out.inputs) | set(out.outputs)
    name = fresh_name(ctx, node, "C", used)
    while len(out.inputs) < 3:
        out.inputs.append("")
    out.inputs[2] = name
    return AdapterResult(out, constants=[NewConstant(name, 0.0, AttrType.FLOAT, None, like_input=0)])


def split_18_downgrade(node: Node, ctx: AdapterContext) -> Node:
    """Split 18 -> 13: `num_outputs` splits unevenly when the axis does not divide; Split 13
    (no `split` input) splits equally. Dropped only when the input's dimension is known and
    divides by the number of outputs."""
    out = node.copy()
    parts = out.attributes.pop("num_outputs", None)
    if parts is None:
        return out
    shape = ctx.value_shape(node.inputs[0])
    axis = out.attributes.get("axis", 0)
    size = None
    if shape is not None and isinstance(axis, int) and -len(shape) <= axis < len(shape):
        size = shape[axis]
    if size is None:
        raise AdapterError(
            f"num_outputs is {parts} and the size of '{node.inputs[0]}' along axis {axis} is not "
            f"known, so it cannot be checked that {ctx.target.id} splits it the same (equally)"
        )
    if parts != len(node.outputs) or size % parts:
        raise AdapterError(
            f"num_outputs {parts} splits a dimension of {size} unevenly; {ctx.target.id} splits equally only"
        )
    return out


def renamed_to(op_type: str) -> object:
    """An adapter replacing a deprecated operator by its successor of the same meaning."""

    def adapter(node: Node, ctx: AdapterContext) -> Node:
        out = node.copy()
        out.op_type = op_type
        return out

    return adapter


# Scatter 11 and Upsample 10 are deprecated: runtimes reject them. ScatterElements 11 is Scatter
# with negative indices allowed; Resize 10 is Upsample 9 (inputs X and scales, `mode`).
scatter_to_scatter_elements = renamed_to("ScatterElements")
upsample_to_resize = renamed_to("Resize")


def resize_11_upgrade(node: Node, ctx: AdapterContext) -> AdapterResult:
    """Resize 10 -> 11: Resize 10 maps output to input coordinates as `x / scale` ('asymmetric')
    and takes the floor for 'nearest'; Resize 11 says so with attributes and reads scales third,
    after an (empty) roi."""
    out = node.copy()
    scales = out.inputs[1] if len(out.inputs) > 1 else ""
    used = set(out.inputs) | set(out.outputs)
    roi = fresh_name(ctx, node, "roi", used)
    out.inputs = [out.inputs[0], roi, scales]
    out.attributes["coordinate_transformation_mode"] = "asymmetric"
    if out.attributes.get("mode", "nearest") == "nearest":
        out.attributes["nearest_mode"] = "floor"
    return AdapterResult(out, constants=[NewConstant(roi, [], AttrType.FLOATS, "float")])


def resize_11_downgrade(node: Node, ctx: AdapterContext) -> AdapterResult:
    """Resize 11 -> 10: only the 'asymmetric' mapping (with 'floor' for nearest), nearest or
    linear, from scales (no sizes) and an empty roi, is what Resize 10 computes."""
    attrs = node.attributes
    mode = attrs.get("mode", "nearest")
    wanted = {
        "coordinate_transformation_mode": "asymmetric",
        "cubic_coeff_a": -0.75,
        "exclude_outside": 0,
        "extrapolation_value": 0.0,
    }
    if mode == "nearest":
        wanted["nearest_mode"] = "floor"
    if mode not in ("nearest", "linear"):
        raise AdapterError(f"mode '{mode}' does not exist in {ctx.target.id}")
    for name, value in wanted.items():
        declared = ctx.source.attribute(name)
        given = attrs.get(name, None if declared is None else declared.default)
        if given != value and not (
            isinstance(value, float) and isinstance(given, (int, float)) and float(given) == value
        ):
            raise AdapterError(
                f"attribute '{name}' is {given!r}; {ctx.target.id} computes only what {value!r} means"
            )
    if len(node.inputs) > 3 and node.inputs[3]:
        raise AdapterError(f"input 3 ('{node.inputs[3]}', sizes) is given; {ctx.target.id} takes scales only")
    roi = node.inputs[1] if len(node.inputs) > 1 else ""
    value = ctx.constant(roi) if roi else []
    if value is None or _flat(value):
        raise AdapterError(f"roi '{roi}' is not a constant empty tensor; {ctx.target.id} has no roi")
    out = node.copy()
    out.inputs = [node.inputs[0], node.inputs[2] if len(node.inputs) > 2 else ""]
    for name in (
        "coordinate_transformation_mode",
        "cubic_coeff_a",
        "exclude_outside",
        "extrapolation_value",
        "nearest_mode",
    ):
        out.attributes.pop(name, None)
    return AdapterResult(out, dropped_inputs=[roi] if roi else [])


def no_adapter(node: Node, ctx: AdapterContext) -> Node:
    """A version that changed what a node computes behind a signature every old node still fits
    (GroupNormalization 21: scale and bias per channel instead of per group): the overlay states
    that no step moves a node, which the signature alone would not tell the converter."""
    raise MissingAdapter(
        f"{ctx.source.id} and {ctx.target.id} compute different things from the same node; no step moves it"
    )


# GridSample 20 renamed two of its modes (they name the interpolation along every spatial axis
# now that the input may have more than two); `nearest` kept its name.
_GRID_SAMPLE_MODES = {"bilinear": "linear", "bicubic": "cubic"}


def grid_sample_20_upgrade(node: Node, ctx: AdapterContext) -> Node:
    """GridSample 16 -> 20: modes 'bilinear' and 'bicubic' are spelled 'linear' and 'cubic'
    (an absent mode is each version's default, the same interpolation)."""
    out = node.copy()
    mode = out.attributes.get("mode")
    if isinstance(mode, str) and mode in _GRID_SAMPLE_MODES:
        out.attributes["mode"] = _GRID_SAMPLE_MODES[mode]
    return out


def grid_sample_20_downgrade(node: Node, ctx: AdapterContext) -> Node:
    """GridSample 20 -> 16: the old mode names, and only a 4-D input (GridSample 16 samples
    2-D images; 20 also takes volumes)."""
    shape = ctx.value_shape(node.inputs[0]) if node.inputs else None
    if shape is None or len(shape) != 4:
        what = "of unknown rank" if shape is None else f"of rank {len(shape)}"
        raise AdapterError(f"input '{node.inputs[0]}' is {what}; {ctx.target.id} samples 4-D inputs only")
    out = node.copy()
    mode = out.attributes.get("mode")
    back = {new: old for old, new in _GRID_SAMPLE_MODES.items()}
    if isinstance(mode, str) and mode in back:
        out.attributes["mode"] = back[mode]
    return out


_FLOATS = frozenset({"tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"})


def mod_28_downgrade(node: Node, ctx: AdapterContext) -> Node:
    """Mod 28 -> 13: Mod 13 defines `fmod` 0 (floor, the divisor's sign) for integers only and
    `fmod` 1 (truncation, C's fmod) for floating point only; Mod 28 defines both for every type
    and computes the same where 13 defines it. Any other combination cannot go back."""
    element = ctx.value_type(node.inputs[0]) if node.inputs else None
    if element is None:
        raise AdapterError(
            f"the type of '{node.inputs[0]}' is not known; {ctx.target.id} restricts it by `fmod`"
        )
    fmod = node.attributes.get("fmod", 0)
    floating = element in _FLOATS
    if floating != (fmod == 1):
        kind = "floating-point" if floating else "integer"
        raise AdapterError(
            f"fmod={fmod} on {element}: {ctx.target.id} defines fmod={0 if floating else 1} only for {kind} inputs"
        )
    return node.copy()
