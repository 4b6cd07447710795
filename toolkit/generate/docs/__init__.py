"""The `docs` generator: Markdown operator documentation, changelogs and inventories.

Output (all under `docs/`, relative to `opset generate --out`):

* `docs/<domain>/Operators.md`  - ONNX-style: index table (every version linked), then each
  operator's latest version: marks, doc, Version, Attributes, Inputs, Outputs, Type Constraints;
* `docs/<domain>/Changelog.md`  - by opset version: what it introduced, changed, deprecated and
  removed, each new operator version in full with its diff against the previous version;
* `docs/<domain>/ops/<Op>.md`   - one page per operator: every version, newest first, with diffs;
* `docs/<domain>/inventory.md`  - the since_version table of Versioning.md;
* `docs/<domain>/index.md`, `docs/index.md`, `docs/releases.md` (when releases are declared);
* `docs/dsl.md`, `docs/cli.md`  - references generated from the JSON Schemas and the CLI parser;
* `docs/nav.json`               - the navigation the mkdocs plugin (`toolkit.mkdocs_plugin`) mounts.

The package: `markdown` (formatters, tables, doc text, the page tidy-up), `views` (what a page
shows of an operator, version bodies, changelog entries), `pages` (the page texts, plain Python),
`navigation` and `reference` (DSL and CLI references). Doc text goes through
`toolkit.generate.mdsafe`. Pure and deterministic: sorted
iteration, no timestamps, nothing read from or written to a cache.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from toolkit.generate.context import GenerateContext, rendering
from toolkit.generate.docs.markdown import page_bytes
from toolkit.generate.docs.navigation import navigation
from toolkit.generate.docs.pages import (
    changelog_page,
    domain_page,
    header,
    index_page,
    inventory_page,
    operator_page,
    operators_page,
    opset_inventories,
    releases_page,
)
from toolkit.generate.docs.reference import cli_page, dsl_page
from toolkit.generate.docs.views import operator_views
from toolkit.model.output_names import operator_page_file
from toolkit.model.spec import spec_files
from toolkit.registry.core import Registry
from toolkit.registry.inventory import since_table

if TYPE_CHECKING:
    from toolkit.generate.memo import RenderMemo

__all__ = ["KIND", "domain_files", "generate", "render_docs", "render_files"]

KIND = "docs"
TOP_PAGES = ("releases", "dsl", "cli")


def render_docs(
    registry: Registry,
    source: str = "opsets",
    cli_parser: Callable[[], argparse.ArgumentParser] | None = None,
    top_pages: tuple[str, ...] = TOP_PAGES,
    memo: RenderMemo | None = None,
) -> dict[str, str]:
    """Every docs page as text, keyed by path relative to the docs kind folder (`cli.md` when the
    caller passes the command's parser factory): `render_files` decoded."""
    files = render_files(registry, source, cli_parser, top_pages, memo)
    return {path.removeprefix(f"{KIND}/"): data.decode("utf-8") for path, data in files.items()}


def render_files(
    registry: Registry,
    source: str = "opsets",
    cli_parser: Callable[[], argparse.ArgumentParser] | None = None,
    top_pages: tuple[str, ...] = TOP_PAGES,
    memo: RenderMemo | None = None,
) -> dict[str, bytes]:
    """Every docs page as the generator's files: paths under `docs/`, UTF-8 bytes. `top_pages`
    are the pages besides the domains' (`[docs] pages` of opset.toml): a vendor's site does not
    need the toolkit's own DSL and CLI references. A domain's pages depend on its own specs only:
    with a `memo`, those of a domain whose spec files did not change are reused
    (`toolkit.generate.memo`)."""
    links = tuple(p for p in top_pages if p != "cli" or cli_parser is not None)
    pages: dict[str, list[str]] = {"index.md": index_page(registry, source, links)}
    if "dsl" in links:
        pages["dsl.md"] = [dsl_page(header(source))]
    if cli_parser is not None and "cli" in links:
        pages["cli.md"] = [cli_page(header(source), cli_parser())]
    if registry.releases and "releases" in links:
        pages["releases.md"] = releases_page(registry, source)
    files = {f"{KIND}/{path}": page_bytes(parts) for path, parts in pages.items()}
    for name in registry.domains():

        def build(_name: str = name) -> dict[str, bytes]:
            return domain_files(registry, _name, source)

        if memo is None:
            files.update(build())
        else:
            files.update(
                memo.render(KIND, name, spec_files(registry.domain(name), registry.operators(name)), build)
            )
    operators = {name: sorted(op.name for op in registry.operators(name)) for name in registry.domains()}
    nav = navigation(registry, operators, "cli.md" in pages, "dsl.md" in pages, "releases" in links)
    files[f"{KIND}/nav.json"] = (json.dumps(nav, indent=1) + "\n").encode("utf-8")
    return dict(sorted(files.items()))


def domain_files(registry: Registry, name: str, source: str) -> dict[str, bytes]:
    """The pages of one domain (its folder's index, Operators.md, Changelog.md, inventory and
    operator pages) as files: paths under `docs/`, UTF-8 bytes."""
    pages = _domain_parts(registry, name, source)
    return {f"{KIND}/{path}": page_bytes(parts) for path, parts in pages.items()}


def _domain_parts(registry: Registry, name: str, source: str) -> dict[str, list[str]]:
    """Each page of the domain as the parts it is written in (not tidied yet)."""
    domain = registry.domain(name)
    folder = domain.display_name
    pages: dict[str, list[str]] = {}
    with rendering(f"the docs pages of domain {folder}", domain.location):
        views = operator_views(registry, name)
        table = since_table(registry, name)
        inventories = opset_inventories(table)
        pages[f"{folder}/index.md"] = domain_page(domain, views, table, source, inventories)
        pages[f"{folder}/Operators.md"] = operators_page(domain, views, source)
        pages[f"{folder}/Changelog.md"] = changelog_page(domain, views, source)
        pages[f"{folder}/inventory.md"] = inventory_page(domain, table, source, inventories)
        for view in views:
            with rendering(f"the docs page of {folder}.{view.spec.name}", view.spec.location):
                pages[f"{folder}/ops/{operator_page_file(view.spec.name)}"] = operator_page(view, source)
    return pages


def generate(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    """The registered `docs` generator: files under `docs/`."""
    return render_files(
        registry, context.source, context.cli_parser, top_pages=_top_pages(context), memo=context.memo
    )


def _top_pages(context: GenerateContext) -> tuple[str, ...]:
    """The `docs.pages` option (opset.toml's `[docs] pages`), default every page."""
    chosen = context.option("docs.pages", ",".join(TOP_PAGES)).split(",")
    return tuple(p for p in TOP_PAGES if p in chosen)
