"""The configuration rule about `plugins = [...]` (emitted by `toolkit.compat.plugins`, which
decides which plugin modules the gate imports: only those the invoker opted in to)."""

from __future__ import annotations

from toolkit.compat.rules.base import emitted_rule

PLUGINS_IGNORED = "PLUGINS-IGNORED"

emitted_rule(
    PLUGINS_IGNORED,
    name="config-plugins-ignored",
    severity="warning",
    category="config",
    summary="The configuration names plugin modules, and the invoker did not opt in to importing them.",
    doc=(
        "**Why:** a plugin is Python code, imported by name. The configuration (`opset.toml`, or "
        "`[tool.opset-toolkit]` in `pyproject.toml`) is part of the tree under review, so in a pull "
        "request it is written by the pull request's author: if the gate imported what it names, "
        "opening a pull request would run the author's code (a module beside the config, or any "
        "installed module) in the CI job. So the gate imports only plugins whose import the person "
        "or workflow running it asked for, and ignores the configuration's `plugins` otherwise.\n\n"
        '**Before:**\n\n```toml\n[tool.opset-toolkit]\nplugins = ["acme_rules"]\n```\n\n'
        "`opset diff --against main` warns and runs the built-in rules only.\n\n"
        "**After:** `opset diff --against main --allow-plugins` (or "
        "`OPSET_TOOLKIT_ALLOW_PLUGINS=1`) imports `acme_rules`; or the workflow names the module "
        "itself: `opset diff --against main --plugins acme_rules` (or "
        "`OPSET_TOOLKIT_PLUGINS=acme_rules`).\n\n"
        "**How to fix:** opt in where the gate runs on trusted configurations (your own branch, a "
        "workflow that does not check out fork pull requests' code with `--allow-plugins`); a "
        "workflow that gates pull requests names its plugins with `--plugins` instead, so the tree "
        "under review cannot change them; or delete `plugins` from the configuration."
    ),
)
