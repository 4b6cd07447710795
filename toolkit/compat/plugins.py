"""Which user rule modules (plugins) the gate imports, and importing them.

A plugin is Python code that registers more gate rules with `toolkit.compat.rules.compat_rule`
when it is imported. Importing is running, so a plugin is imported only when whoever runs the
toolkit asked for it, never because the tree under review says so: the configuration file
(`opset.toml`, `[tool.opset-toolkit]` in `pyproject.toml`) belongs to that tree, and in a pull
request its author wrote it. The invoker opts in with

- `--plugins MOD` (repeatable) or `OPSET_TOOLKIT_PLUGINS=MOD[,MOD...]`: these modules;
- `--allow-plugins` or `OPSET_TOOLKIT_ALLOW_PLUGINS=1`: also the modules the configuration's
  `plugins = [...]` names.

A configuration naming plugins without the second opt-in gets a PLUGINS-IGNORED warning at its
`plugins` key, and the gate runs without them. A plugin that cannot be imported is a usage error
that says where it was named.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolkit.compat.config import GateConfig, load_config
from toolkit.compat.rules import all_rules
from toolkit.compat.rules.plugins import PLUGINS_IGNORED
from toolkit.model.diagnostics import Diagnostic, Severity, UsageError
from toolkit.model.opt_in import ALLOW_PLUGINS_ENV, PLUGINS_ENV, env_flag

_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", re.ASCII)


@dataclass(frozen=True)
class PluginChoice:
    """What the invoker asked for: modules by name (each with where it was named, for errors)
    and whether the configuration's own `plugins` list is honoured."""

    named: tuple[tuple[str, str], ...] = ()  # (module, "--plugins" or the environment variable)
    allow_config: bool = False


def plugin_choice(flags: Sequence[str] | None = None, allow: bool = False) -> PluginChoice:
    """The invoker's choice: the command-line flags plus the environment variables."""
    named = [(module, "--plugins") for module in flags or ()]
    named += [
        (module, PLUGINS_ENV) for module in re.split(r"[\s,]+", os.environ.get(PLUGINS_ENV, "")) if module
    ]
    return PluginChoice(tuple(named), allow or env_flag(ALLOW_PLUGINS_ENV))


def load_plugins(modules: Iterable[str], origin: str = "plugins") -> None:
    """Import the plugin modules (each registers its rules when imported). A module that is not
    a dotted name, is missing or fails while importing is a UsageError naming `origin`."""
    for module in modules:
        _import(module, origin)


def _import(module: str, origin: str) -> None:
    if not _MODULE_NAME.fullmatch(module):
        raise UsageError(
            f"{origin}: '{module}' is not a module name\n  hint: name a module as `import` does: package.module"
        )
    if module in sys.modules:
        return
    try:
        importlib.import_module(module)
    except (Exception, SystemExit) as exc:  # plugin code: its failure is a usage problem, not ours
        what = "not found" if isinstance(exc, ModuleNotFoundError) else f"{type(exc).__name__}: {exc}"
        raise UsageError(
            f"{origin}: cannot import plugin module '{module}': {what}\n"
            "  hint: install the module, or put its folder on PYTHONPATH (the current directory is "
            "not searched)"
        ) from None


def load_gate_config(
    path: Path | None, profile: str | None, choice: PluginChoice | None = None
) -> GateConfig:
    """The gate configuration at `path` (None: built-in profiles only) with the plugins `choice`
    opts in to imported first, so the rule ids the configuration names are checked against the
    whole catalog. The configuration's own plugins, not opted in to, give a PLUGINS-IGNORED
    warning in `GateConfig.warnings`; their rule ids cannot be checked then."""
    choice = choice or PluginChoice()
    plain = load_config(path, profile)
    for module, origin in choice.named:
        _import(module, origin)
    modules = [module for module, _ in choice.named]
    rest = [module for module in plain.named_plugins if module not in modules]
    warnings: tuple[Diagnostic, ...] = ()
    if rest and choice.allow_config:
        load_plugins(rest, str(plain.plugins_location))
        modules += rest
    elif rest:
        warnings = (_ignored(plain, rest),)
    known = frozenset() if warnings else frozenset(r.id for r in all_rules())
    config = load_config(path, profile, known_rules=known) if path is not None else plain
    return replace(config, plugins=tuple(dict.fromkeys(modules)), warnings=warnings)


def _ignored(config: GateConfig, modules: Sequence[str]) -> Diagnostic:
    names = ", ".join(modules)
    return Diagnostic(
        PLUGINS_IGNORED,
        f"plugins not imported ({names}): the configuration is part of the tree under review, and "
        "importing a module runs its code; the gate runs without them",
        config.plugins_location,
        f"opt in where the configuration is trusted: --allow-plugins (or {ALLOW_PLUGINS_ENV}=1), "
        f"or name the modules yourself: --plugins MODULE (or {PLUGINS_ENV}=MODULE)",
        Severity.WARNING,
    )
