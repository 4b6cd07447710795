"""Regenerate toolkit/proto/opset_toolkit_pb2.py(.pyi) from schemas/opset_toolkit.proto.

Usage: python tools/regen_proto.py   (needs grpcio-tools)

`toolkit/proto/regen.py` is loaded by path, so this works even when the bindings are missing
or broken (importing the `toolkit.proto` package would import them).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_REGEN = Path(__file__).resolve().parent.parent / "toolkit" / "proto" / "regen.py"


def _main() -> int:
    spec = importlib.util.spec_from_file_location("_opset_toolkit_regen", _REGEN)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {_REGEN}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result: int = module.main()
    return result


if __name__ == "__main__":
    raise SystemExit(_main())
