"""Loading the gate configuration together with the user rule modules it names.

`plugins = ["mypackage.my_rules"]` in the configuration lists modules that register more
gate rules with `toolkit.compat.rules.compat_rule`; they are user code, imported by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path

from toolkit.compat.config import GateConfig, load_config
from toolkit.compat.rules import all_rules


def load_plugins(modules: Iterable[str]) -> None:
    """Import the user rule modules (each registers its rules when imported)."""
    for module in modules:
        importlib.import_module(module)


def load_gate_config(path: Path | None, profile: str | None) -> GateConfig:
    """The gate configuration at `path` (None: built-in profiles only). Its plugin modules are
    imported first, so the rule ids it names are checked against the whole catalog."""
    load_plugins(load_config(path, profile).plugins)
    return load_config(path, profile, known_rules=frozenset(r.id for r in all_rules()))
