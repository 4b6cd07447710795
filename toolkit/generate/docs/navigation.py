"""`docs/nav.json`: the navigation the mkdocs plugin (`toolkit.mkdocs_plugin`) mounts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.model.output_names import operator_page_file
from toolkit.model.spec import display_domain
from toolkit.registry.core import Registry


def navigation(
    registry: Registry,
    operators: Mapping[str, Sequence[str]],
    with_cli: bool = True,
    with_dsl: bool = True,
    with_releases: bool = True,
) -> list[Any]:
    """mkdocs nav entries (paths relative to the generated docs folder); `operators` lists each
    domain's operator names in page order."""
    nav: list[Any] = [{"Overview": "index.md"}]
    if registry.releases and with_releases:
        nav.append({"Releases": "releases.md"})
    if with_dsl:
        nav.append({"DSL reference": "dsl.md"})
    if with_cli:
        nav.append({"CLI reference": "cli.md"})
    for name in registry.domains():
        folder = display_domain(name)
        entries: list[Any] = [
            {"Overview": f"{folder}/index.md"},
            {"Operators.md": f"{folder}/Operators.md"},
            {"Changelog": f"{folder}/Changelog.md"},
            {"Inventory": f"{folder}/inventory.md"},
        ]
        ops = [{op: f"{folder}/ops/{operator_page_file(op)}"} for op in operators[name]]
        if ops:
            entries.append({"Operator pages": ops})
        nav.append({folder: entries})
    return nav
