"""`generate --check`'s diff of a stale binary file, in readable form.

The protobuf files the generators write are decoded by their message type (known from the file's
name) and printed with protobuf's `text_format` on both sides, then diffed like a text file (the
caller, `pipeline.diff_text`, caps and escapes the lines); anything else binary (a `model.onnx`,
a file that does not decode) is one summary line. Raw bytes never reach the terminal:
`text_format` escapes every control byte of a string field and every non-ASCII byte of a bytes
field."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from google.protobuf.message import DecodeError, Message


def _message_types() -> list[tuple[re.Pattern[str], Callable[[], Message]]]:
    from toolkit.proto import opset_toolkit_pb2 as pb

    return [
        (re.compile(r"opset_\d+\.pb"), pb.OperatorSetProto),  # generate/proto_docs.py
        (re.compile(r"schemas\.pb"), pb.OperatorSchemaSetProto),
        (re.compile(r"(input|output)_\d+\.pb"), pb.TensorProto),  # generate/backend_tests.py
    ]


def is_binary_kind(path: str) -> bool:
    """Files that are binary by kind, whatever their bytes look like."""
    return path.endswith((".pb", ".onnx"))


def _as_text(path: str, data: bytes) -> list[str] | None:
    """The decoded message as text lines, None if it does not decode."""
    from google.protobuf import text_format

    name = path.rsplit("/", 1)[-1]
    for pattern, message_type in _message_types():
        if pattern.fullmatch(name):
            message = message_type()
            try:
                message.ParseFromString(data)
            except (DecodeError, RecursionError, ValueError):
                return None
            return text_format.MessageToString(message, as_utf8=True).splitlines(keepends=True)
    return None


def binary_diff(label: str, old: bytes, new: bytes) -> list[str]:
    """The unified diff lines (without their line ends) of the decoded messages of a changed
    file, else one summary line (a file that is new or to be removed is named by the caller:
    there is no change to show)."""
    old_text, new_text = _as_text(label, old), _as_text(label, new)
    if old_text is None or new_text is None:
        return [f"Binary file {label} differs ({len(old)} -> {len(new)} bytes; not a message it can decode)"]
    lines = [
        line.removesuffix("\n")
        for line in difflib.unified_diff(old_text, new_text, f"a/{label} (decoded)", f"b/{label} (decoded)")
    ]
    if not lines:  # the same message, serialized differently
        return [f"Binary file {label} differs (the same message when decoded, serialized differently)"]
    return lines
