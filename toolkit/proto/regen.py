"""Regenerate the checked-in protobuf bindings from `schemas/opset_toolkit.proto`.

Only this module needs `grpcio-tools` (the bundled `protoc`), and only when called; importing
`toolkit.proto` never does.
"""

from __future__ import annotations

import importlib
from pathlib import Path

PROTO_NAME = "opset_toolkit.proto"
GENERATED = ("opset_toolkit_pb2.py", "opset_toolkit_pb2.pyi")

_PACKAGE_DIR = Path(__file__).resolve().parent


def proto_dir() -> Path:
    """Directory holding `opset_toolkit.proto` (the repo's `schemas/`, packaged as toolkit/schemas)."""
    for candidate in (_PACKAGE_DIR.parent.parent / "schemas", _PACKAGE_DIR.parent / "schemas"):
        if (candidate / PROTO_NAME).is_file():
            return candidate
    raise FileNotFoundError(f"cannot find {PROTO_NAME} next to the toolkit package")


def package_dir() -> Path:
    """Directory the checked-in bindings live in (`toolkit/proto`)."""
    return _PACKAGE_DIR


def generate(out_dir: Path, source_dir: Path | None = None) -> tuple[Path, ...]:
    """Run protoc (from grpcio-tools) on the schema; write `_pb2.py` and `_pb2.pyi` into out_dir."""
    protoc = importlib.import_module("grpc_tools.protoc")
    src = source_dir if source_dir is not None else proto_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"--proto_path={src}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        PROTO_NAME,
    ]
    code = protoc.main(args)
    if code != 0:
        raise RuntimeError(f"protoc failed with exit code {code}: {' '.join(args)}")
    return tuple(out_dir / name for name in GENERATED)


def main() -> int:
    for path in generate(package_dir()):
        print(f"wrote {path}")
    return 0
