"""Shared fixtures. The onnx catalog is imported once per test session, into a temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OPSETS = REPO / "opsets"


@pytest.fixture(scope="session")
def onnx_catalog_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed onnx package's catalog written as DSL files (never committed)."""
    pytest.importorskip("onnx")
    from toolkit.onnx_bridge.importer import import_catalog

    out = tmp_path_factory.mktemp("onnx-catalog")
    import_catalog(out)
    return out


@pytest.fixture(scope="session")
def onnx_registry(onnx_catalog_dir: Path):  # type: ignore[no-untyped-def]
    from toolkit import load_registry

    return load_registry([onnx_catalog_dir], cache=False)


@pytest.fixture(scope="session")
def shipped_registry():  # type: ignore[no-untyped-def]
    from toolkit import load_registry

    return load_registry([OPSETS], cache=False)
