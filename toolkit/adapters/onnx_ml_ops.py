"""The `python` adapters of the ai.onnx.ml overlay (`toolkit/data/onnx_adapters/ai.onnx.ml.yaml`).

TreeEnsembleRegressor is deprecated at ai.onnx.ml 5 (runtimes reject it); its successor
TreeEnsemble stores the same trees differently: interior nodes and leaves in separate arrays
(a child is a node or a leaf, `nodes_trueleafs` / `nodes_falseleafs`), split values and modes as
tensors, one root per tree, enumerations as integers. The rewrite covers what maps one to one
and refuses the rest (several targets, base values, double-precision tensors, non-float input).
onnx is imported only when it runs (the attribute tensors are TensorProtos)."""

from __future__ import annotations

from typing import Any

from toolkit.adapters.node import AdapterContext, AdapterError, AdapterResult, NewConstant, Node
from toolkit.adapters.onnx_ops import fresh_name as _fresh
from toolkit.model.spec import AttrType

_MODES = {"BRANCH_LEQ": 0, "BRANCH_LT": 1, "BRANCH_GTE": 2, "BRANCH_GT": 3, "BRANCH_EQ": 4, "BRANCH_NEQ": 5}
_AGGREGATES = {"AVERAGE": 0, "SUM": 1, "MIN": 2, "MAX": 3}
_TRANSFORMS = {"NONE": 0, "SOFTMAX": 1, "LOGISTIC": 2, "SOFTMAX_ZERO": 3, "PROBIT": 4}


def tree_regressor_to_tree_ensemble(node: Node, ctx: AdapterContext) -> AdapterResult:
    """TreeEnsembleRegressor 3 -> TreeEnsemble 5 (one target, float input); a base value becomes
    an Add after the node (only without a post transform, which applies after it)."""
    import numpy as np
    from onnx import numpy_helper

    attrs = node.attributes
    _refuse_unmapped(attrs, ctx, node)
    modes = [str(m) for m in attrs.get("nodes_modes", [])]
    key = list(zip(attrs.get("nodes_treeids", []), attrs.get("nodes_nodeids", []), strict=True))
    if len(modes) != len(key):
        raise AdapterError("nodes_modes and nodes_nodeids differ in length")
    weights: dict[tuple[int, int], float] = {}
    for tree, leaf, weight in zip(
        attrs.get("target_treeids", []),
        attrs.get("target_nodeids", []),
        attrs.get("target_weights", []),
        strict=True,
    ):
        weights[(tree, leaf)] = weights.get((tree, leaf), 0.0) + float(weight)
    interior = {k: i for i, k in enumerate(k for k, m in zip(key, modes, strict=True) if m != "LEAF")}
    leaves = {k: i for i, k in enumerate(k for k, m in zip(key, modes, strict=True) if m == "LEAF")}
    features: list[int] = []
    splits: list[float] = []
    node_modes: list[int] = []
    missing: list[int] = []
    true_ids: list[int] = []
    true_leaf: list[int] = []
    false_ids: list[int] = []
    false_leaf: list[int] = []
    values = attrs.get("nodes_values", [0.0] * len(key))
    tracks = attrs.get("nodes_missing_value_tracks_true", [0] * len(key))
    children: set[tuple[int, int]] = set()
    for index, (tree, _) in enumerate(key):
        if modes[index] == "LEAF":
            continue
        if modes[index] not in _MODES:
            raise AdapterError(f"node mode '{modes[index]}' has no TreeEnsemble counterpart")
        features.append(int(attrs["nodes_featureids"][index]))
        splits.append(float(values[index]))
        node_modes.append(_MODES[modes[index]])
        missing.append(int(tracks[index]))
        for child_id, ids, leaf_flags in (
            (attrs["nodes_truenodeids"][index], true_ids, true_leaf),
            (attrs["nodes_falsenodeids"][index], false_ids, false_leaf),
        ):
            child = (tree, int(child_id))
            children.add(child)
            if child in leaves:
                ids.append(leaves[child])
                leaf_flags.append(1)
            elif child in interior:
                ids.append(interior[child])
                leaf_flags.append(0)
            else:
                raise AdapterError(f"tree {tree} refers to node {child_id}, which it does not define")
    roots: list[int] = []
    for tree in dict.fromkeys(t for t, _ in key):
        tops = [k for k in key if k[0] == tree and k not in children]
        if len(tops) != 1:
            raise AdapterError(f"tree {tree} has {len(tops)} roots")
        top = tops[0]
        if top in interior:
            roots.append(interior[top])
            continue
        # A tree that is a single leaf: one split whose both sides are that leaf.
        roots.append(len(features))
        features.append(0)
        splits.append(0.0)
        node_modes.append(_MODES["BRANCH_LEQ"])
        missing.append(0)
        true_ids.append(leaves[top])
        false_ids.append(leaves[top])
        true_leaf.append(1)
        false_leaf.append(1)
    leaf_list = sorted(leaves, key=leaves.__getitem__)
    new_attrs: dict[str, Any] = {
        "n_targets": 1,
        "aggregate_function": _AGGREGATES[str(attrs.get("aggregate_function", "SUM"))],
        "post_transform": _TRANSFORMS[str(attrs.get("post_transform", "NONE"))],
        "tree_roots": roots,
        "nodes_featureids": features,
        "nodes_splits": numpy_helper.from_array(np.array(splits, np.float32)),
        "nodes_modes": numpy_helper.from_array(np.array(node_modes, np.uint8)),
        "nodes_truenodeids": true_ids,
        "nodes_trueleafs": true_leaf,
        "nodes_falsenodeids": false_ids,
        "nodes_falseleafs": false_leaf,
        "nodes_missing_value_tracks_true": missing,
        "leaf_targetids": [0] * len(leaf_list),
        "leaf_weights": numpy_helper.from_array(
            np.array([weights.get(k, 0.0) for k in leaf_list], np.float32)
        ),
    }
    out = Node("TreeEnsemble", list(node.inputs), list(node.outputs), new_attrs, node.domain, node.name)
    base = [float(v) for v in attrs.get("base_values", [])]
    if not any(base):
        return AdapterResult(out)
    used = set(node.inputs) | set(node.outputs)
    raw, offset = (_fresh(ctx, node, suffix, used) for suffix in ("trees", "base"))
    result_name = out.outputs[0]
    out.outputs[0] = raw
    add = Node("Add", [raw, offset], [result_name], name=f"{raw}_add")
    return AdapterResult(
        out,
        constants=[NewConstant(offset, base, AttrType.FLOATS, "float")],
        after=[add],
        notes=[f"base value {base} added after TreeEnsemble"],
    )


def _refuse_unmapped(attrs: dict[str, Any], ctx: AdapterContext, node: Node) -> None:
    if int(attrs.get("n_targets", 1)) != 1:
        raise AdapterError(
            f"n_targets is {attrs.get('n_targets')}; only one target maps onto TreeEnsemble's leaves here"
        )
    if (
        any(float(v) != 0.0 for v in attrs.get("base_values", []))
        and str(attrs.get("post_transform", "NONE")) != "NONE"
    ):
        raise AdapterError(
            "base_values are set with a post transform; TreeEnsemble has no base values, and an Add "
            "after the node would come after the transform"
        )
    tensors = [name for name in attrs if name.endswith("_as_tensor")]
    if tensors:
        raise AdapterError(
            f"{', '.join(sorted(tensors))} (double precision) are set; the rewrite keeps float only"
        )
    if str(attrs.get("aggregate_function", "SUM")) not in _AGGREGATES:
        raise AdapterError(f"aggregate_function '{attrs.get('aggregate_function')}' is unknown")
    if str(attrs.get("post_transform", "NONE")) not in _TRANSFORMS:
        raise AdapterError(f"post_transform '{attrs.get('post_transform')}' is unknown")
    found = ctx.value_type(node.inputs[0]) if node.inputs else None
    if found != "tensor(float)":
        raise AdapterError(
            f"input '{node.inputs[0] if node.inputs else ''}' is {found or 'of unknown type'}; TreeEnsemble's output "
            "takes the input's type, TreeEnsembleRegressor's is always float"
        )
