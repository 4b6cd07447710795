"""The invoker's opt-ins to running code that data names, read from the environment.

Code named by a spec tree or its configuration (a gate plugin, a `python` adapter step) runs
only when whoever runs the toolkit says so: by a command-line flag or one of these environment
variables, which the tree under review cannot set. The tree's own files never switch them on.
"""

from __future__ import annotations

import os

from toolkit.model.diagnostics import UsageError

# Modules to import as gate plugins (comma- or space-separated): `--plugins`.
PLUGINS_ENV = "OPSET_TOOLKIT_PLUGINS"
# Also import the plugins the gate configuration names: `--allow-plugins`.
ALLOW_PLUGINS_ENV = "OPSET_TOOLKIT_ALLOW_PLUGINS"
# Run the `python` adapter steps of the specs (the toolkit's own overlay steps always run).
ALLOW_PYTHON_ADAPTERS_ENV = "OPSET_TOOLKIT_ALLOW_PYTHON_ADAPTERS"

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


def env_flag(name: str) -> bool:
    """A yes/no environment variable (unset or empty: no); any other spelling is a usage error,
    so that a typo never reads as consent or as its absence silently."""
    raw = os.environ.get(name, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise UsageError(f"{name}={raw!r}: write 1 (yes) or 0 (no)")
