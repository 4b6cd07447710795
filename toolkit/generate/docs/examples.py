"""The Examples section of an operator page: each example of a version as its node's attributes,
inputs and expected outputs, and the name of its backend test case (`opset generate`'s
`backend_tests/`, `opset test-runtime`)."""

from __future__ import annotations

from toolkit.generate.docs.markdown import doc_markdown, value_text
from toolkit.generate.mdsafe import code
from toolkit.model.example_model import value_names
from toolkit.model.examples import FLOAT_TYPES, Example, ExampleTensor, format_tensor
from toolkit.model.output_names import case_folder
from toolkit.model.spec import OpSchema

SHOWN_ELEMENTS = 24  # elements of a tensor shown on the page; the test data holds them all


def examples_markdown(schema: OpSchema, level: int) -> str:
    """`### Examples` (at `level`) with one subsection per example; "" when there are none."""
    if not schema.examples:
        return ""
    hashes = "#" * level
    out = [f"{hashes} Examples\n\n"]
    for example in schema.examples:
        out.append(f"{hashes}# {code(example.name)}\n\n")
        if example.doc.strip():
            out.append(doc_markdown(example.doc, level + 1) + "\n\n")
        out.append(_block(_lines(schema, example)) + "\n\n")
        out.append(f"Backend test case: {code(case_folder(schema, example))}.\n\n")
    return "".join(out).rstrip("\n")


def _lines(schema: OpSchema, example: Example) -> list[str]:
    taken: set[str] = set()
    in_names = value_names(schema.inputs, len(example.inputs), taken)
    out_names = value_names(schema.outputs, len(example.outputs), taken)
    lines = []
    for attr in example.attributes:
        value = attr.value
        shown = (
            format_tensor(value, SHOWN_ELEMENTS) if isinstance(value, ExampleTensor) else value_text(value)
        )
        lines.append(f"attribute {attr.name} = {shown}")
    for name, tensor in zip(in_names, example.inputs, strict=True):
        lines.append(
            f"input     {name} = " + (format_tensor(tensor, SHOWN_ELEMENTS) if tensor else "(omitted)")
        )
    for name, tensor in zip(out_names, example.outputs, strict=True):
        lines.append(f"output    {name} = {format_tensor(tensor, SHOWN_ELEMENTS)}")
    if any(t.dtype in FLOAT_TYPES for t in example.outputs):
        lines.append(f"tolerance rtol {example.rtol!r}, atol {example.atol!r}")
    return lines


def _block(lines: list[str]) -> str:
    text = "\n".join(lines)
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text}\n{fence}"
