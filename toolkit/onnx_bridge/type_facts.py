"""Where the output type of an onnx operator comes from when its inputs cannot say: the
`type_from` the importer writes into the imported catalog.

A small table of facts about onnx operators (op names, attribute and input names, default
types), kept per operator for all its versions: a source naming an attribute or input that a
version lacks is left out of that version. tests/test_type_inference.py checks every entry
against onnx's own type inference (`onnx.shape_inference`), version by version.

Attributes with a default in the schema (RandomNormal's `dtype`, the window functions'
`output_datatype`) need no default entry: an absent attribute reads as its default.
"""

from __future__ import annotations

from typing import Any

_FLOAT = {"type": "tensor(float)"}
_LIKE = ({"attribute": "dtype"}, {"input": "input"})  # dtype, else the input's type
_CLASS_LABELS = ({"attribute": "classlabels_strings", "type": "tensor(string)"}, {"type": "tensor(int64)"})

# (domain, op) -> {output name: sources, tried in order}
OUTPUT_TYPE_SOURCES: dict[tuple[str, str], dict[str, tuple[dict[str, str], ...]]] = {
    ("", "Cast"): {"output": ({"attribute": "to"},)},
    ("", "BitCast"): {"output": ({"attribute": "to"},)},
    ("", "CastLike"): {"output": ({"input": "target_type"},)},
    ("", "EyeLike"): {"output": _LIKE},
    ("", "RandomNormalLike"): {"output": _LIKE},
    ("", "RandomUniformLike"): {"output": _LIKE},
    ("", "Bernoulli"): {"output": _LIKE},
    ("", "RandomNormal"): {"output": ({"attribute": "dtype"},)},
    ("", "RandomUniform"): {"output": ({"attribute": "dtype"},)},
    ("", "Multinomial"): {"output": ({"attribute": "dtype"},)},
    ("", "BlackmanWindow"): {"output": ({"attribute": "output_datatype"},)},
    ("", "HammingWindow"): {"output": ({"attribute": "output_datatype"},)},
    ("", "HannWindow"): {"output": ({"attribute": "output_datatype"},)},
    ("", "MelWeightMatrix"): {"output": ({"attribute": "output_datatype"},)},
    # onnx's inference gives Y the type of X, although the schema types Y with scale's V
    ("", "RMSNormalization"): {"Y": ({"input": "X"},)},
    ("", "LayerNormalization"): {
        "Mean": ({"attribute": "stash_type"},),
        "InvStdDev": ({"attribute": "stash_type"},),
    },
    ("", "ConstantOfShape"): {"output": ({"attribute": "value"}, _FLOAT)},
    ("", "Constant"): {
        "output": (
            {"attribute": "value"},
            {"attribute": "sparse_value"},
            {"attribute": "value_float", "type": "tensor(float)"},
            {"attribute": "value_floats", "type": "tensor(float)"},
            {"attribute": "value_int", "type": "tensor(int64)"},
            {"attribute": "value_ints", "type": "tensor(int64)"},
            {"attribute": "value_string", "type": "tensor(string)"},
            {"attribute": "value_strings", "type": "tensor(string)"},
        )
    },
    # output_dtype 0 (UNDEFINED, its default) reads as "not set": the zero point or scale decides
    ("", "QuantizeLinear"): {
        "y": ({"input": "y_zero_point"}, {"attribute": "output_dtype"}, {"type": "tensor(uint8)"})
    },
    ("", "DequantizeLinear"): {"y": ({"attribute": "output_dtype"}, {"input": "x_scale"})},
    ("ai.onnx.ml", "LinearClassifier"): {"Y": _CLASS_LABELS},
    ("ai.onnx.ml", "SVMClassifier"): {"Y": _CLASS_LABELS},
    ("ai.onnx.ml", "TreeEnsembleClassifier"): {"Y": _CLASS_LABELS},
    ("ai.onnx.ml", "ZipMap"): {
        "Z": (
            {"attribute": "classlabels_strings", "type": "seq(map(string, tensor(float)))"},
            {"attribute": "classlabels_int64s", "type": "seq(map(int64, tensor(float)))"},
        )
    },
    ("ai.onnx.ml", "LabelEncoder"): {
        "Y": (
            {"attribute": "values_strings", "type": "tensor(string)"},
            {"attribute": "values_int64s", "type": "tensor(int64)"},
            {"attribute": "values_floats", "type": "tensor(float)"},
            {"attribute": "values_tensor"},
        )
    },
}


def output_type_sources(
    domain: str, op: str, output: str, attributes: Any, inputs: Any
) -> list[dict[str, str]]:
    """The `type_from` entries of one output of one version: the table's sources whose attribute
    or input the version has (`attributes`: the onnx schema's attributes by name, `inputs`: its
    input names)."""
    sources = OUTPUT_TYPE_SOURCES.get((domain, op), {}).get(output, ())
    return [
        dict(source)
        for source in sources
        if ("attribute" not in source or _gives_type(attributes.get(source["attribute"]), "type" in source))
        and ("input" not in source or source["input"] in inputs)
    ]


# onnx AttributeType names whose value can name a type (an int data type, a tensor's element type)
_TYPE_VALUED = ("INT", "TENSOR", "SPARSE_TENSOR", "TYPE_PROTO")


def _gives_type(attribute: Any, implied: bool) -> bool:
    """Whether the version's attribute (an onnx schema attribute, None when absent) can serve:
    with an implied `type` any attribute can; otherwise its value must name a type (Cast-1's
    `to` is a string, not a data type number, so Cast-1 gets no source)."""
    if attribute is None:
        return False
    return implied or str(attribute.type).rsplit(".", 1)[-1] in _TYPE_VALUED


def add_type_sources(
    outputs: list[dict[str, Any]], domain: str, op: str, attributes: Any, inputs: Any
) -> None:
    """Set `type_from` on the imported output entries of one version that the table covers."""
    for entry in outputs:
        if "(" in entry["type"]:
            continue  # a concrete type (DequantizeLinear-10's tensor(float)) needs no source
        sources = output_type_sources(domain, op, entry["name"], attributes, inputs)
        if sources:
            entry["type_from"] = sources
