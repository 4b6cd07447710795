"""Reading an ONNX model file, without importing the onnx package when nothing has yet."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import TYPE_CHECKING

from toolkit.model.diagnostics import UsageError
from toolkit.onnx_bridge.missing import not_installed

if TYPE_CHECKING:
    import onnx


def load_model(path: str | os.PathLike[str]) -> onnx.ModelProto:
    """Read a model without its external data; UsageError (exit 2) for anything unreadable."""
    try:
        model_class = _model_proto_class()
        from google.protobuf.message import DecodeError
    except ImportError:
        raise not_installed("onnx", "reading an ONNX model") from None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read model {os.fspath(path)}: {exc.strerror or exc}") from None
    model = model_class()
    try:
        model.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise UsageError(f"{os.fspath(path)}: not an ONNX model ({exc})") from None
    if not data or (model.ir_version == 0 and not model.HasField("graph")):
        raise UsageError(f"{os.fspath(path)}: not an ONNX model (no ir_version and no graph)")
    return model


_MODEL_CLASS: list[type[onnx.ModelProto]] = []


def _model_proto_class() -> type[onnx.ModelProto]:
    """onnx.ModelProto, without importing the onnx package when nothing has yet: `import onnx`
    loads numpy and onnx's helpers, a large part of a small command's run time, where the
    generated protobuf module alone is enough to parse a model. The class is the very same
    (protobuf keeps one class per message descriptor of its default pool), so a later
    `import onnx` agrees with it. ImportError when onnx is not installed."""
    onnx_module = sys.modules.get("onnx")
    if onnx_module is not None:
        return onnx_module.ModelProto  # type: ignore[no-any-return]
    if not _MODEL_CLASS:
        spec = importlib.util.find_spec("onnx")
        if spec is None or spec.origin is None:
            raise ImportError("onnx")
        generated = os.path.join(os.path.dirname(spec.origin), "onnx_ml_pb2.py")
        module_spec = importlib.util.spec_from_file_location("_opset_toolkit_onnx_ml_pb2", generated)
        try:
            if module_spec is None or module_spec.loader is None:
                raise ImportError(generated)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
            _MODEL_CLASS.append(module.ModelProto)
        except Exception:  # another onnx layout: the package import always works
            import onnx

            return onnx.ModelProto
    return _MODEL_CLASS[0]
