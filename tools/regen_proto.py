"""Regenerate the checked-in protobuf bindings (`toolkit/proto/opset_toolkit_pb2.py(.pyi)`) from
`schemas/opset_toolkit.proto`.

Usage: python tools/regen_proto.py   (needs grpcio-tools, a test dependency)

This is a development tool, not part of the runtime package: it does not import `toolkit`, so
it works even when the bindings are missing or broken.
"""

from __future__ import annotations

from pathlib import Path

from grpc_tools import protoc

PROTO_NAME = "opset_toolkit.proto"
GENERATED = ("opset_toolkit_pb2.py", "opset_toolkit_pb2.pyi")

REPO = Path(__file__).resolve().parent.parent
PROTO_DIR = REPO / "schemas"
PACKAGE_DIR = REPO / "toolkit" / "proto"


def generate(out_dir: Path, source_dir: Path = PROTO_DIR) -> tuple[Path, ...]:
    """Run protoc (from grpcio-tools) on the schema; write `_pb2.py` and `_pb2.pyi` into out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"--proto_path={source_dir}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        PROTO_NAME,
    ]
    code = protoc.main(args)
    if code != 0:
        raise RuntimeError(f"protoc failed with exit code {code}: {' '.join(args)}")
    return tuple(out_dir / name for name in GENERATED)


def main() -> int:
    for path in generate(PACKAGE_DIR):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
