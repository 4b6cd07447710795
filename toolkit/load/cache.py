"""The on-disk cache shared by the loader, the registry and the git-ref reader.

Everything here is an optimisation: a missing, unreadable or read-only cache only costs time.
Location: `$OPSET_TOOLKIT_CACHE`, else `$XDG_CACHE_HOME/opset-toolkit`, else `~/.cache/opset-toolkit`.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def cache_dir() -> Path:
    base = os.environ.get("OPSET_TOOLKIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "opset-toolkit"
    )
    return Path(base)


def read_pickle(path: Path, expected: type[T]) -> T | None:
    """The cached object, or None when absent, unreadable or not of the expected type."""
    try:
        with open(path, "rb") as handle:
            value = pickle.load(handle)
    except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError, ImportError):
        return None
    return value if isinstance(value, expected) else None


def write_bytes(path: Path, data: bytes) -> None:
    """Write atomically (temp file + rename) so a concurrent reader never sees half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home is no reason to fail


def write_pickle(path: Path, value: object) -> None:
    write_bytes(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
