"""The mkdocs plugin `opset`: the operator reference of the specs as pages of a mkdocs site.

Registered through the `mkdocs.plugins` entry point, so a site needs only::

    plugins:
      - search
      - opset                  # or, with settings:
      - opset:
          specs: opsets        # default: spec_root of opset.toml beside mkdocs.yml, else opsets
          pages: [releases]    # besides the domains' pages, of releases, dsl, cli
                               # (default: [docs] pages of opset.toml, else all)
          mount: reference     # the site folder of the pages (default: reference)
          nav_title: Reference # their section in the nav (default: Reference)

The pages are rendered from the specs while the site builds (the `docs` generator of
`opset generate`, byte for byte the same pages), so nothing has to be generated first and the
site never lags the specs. A spec with errors stops the build with the located diagnostics.
Guide pages named in `nav` that do not exist (yet) are dropped with a log message; Markdown
pages in docs/ that the nav does not name join its Guide/Reference sections or its end.

The rendered HTML of these pages is cleaned with an allowlist (`html_safe.clean_html`) before it
is written: their text comes from spec docs, which may come from a stranger's pull request.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.config import config_options as opt
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

if TYPE_CHECKING:
    from toolkit.load.project import Project

log = logging.getLogger("mkdocs.plugins.opset")


class OpsetPluginConfig(Config):  # type: ignore[no-untyped-call]  # mkdocs' Config.__init_subclass__
    specs = opt.Optional(opt.Type(str))
    pages = opt.Optional(opt.ListOfItems(opt.Choice(("releases", "dsl", "cli"))))
    mount = opt.Type(str, default="reference")
    nav_title = opt.Type(str, default="Reference")


class OpsetPlugin(BasePlugin[OpsetPluginConfig]):  # type: ignore[no-untyped-call]
    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.spec_root: Path | None = None
        self.rendered: set[str] = set()  # the site paths of the pages rendered from the specs

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        site_folder = Path(config.config_file_path or ".").resolve().parent
        project = _project(site_folder, from_tree=not self.config.specs)
        root = site_folder / (self.config.specs or project.spec_path_from(site_folder))
        _check_options(self.config, root, site_folder)
        pages = self.config.pages if self.config.pages is not None else list(project.doc_pages)
        self.spec_root = root
        self.pages = render_pages(root, site_folder, tuple(pages))
        if config.nav is not None:
            docs_dir = Path(config.docs_dir)
            config.nav = _prune(list(config.nav), docs_dir) or []
            nav = json_nav(self.pages["nav.json"])
            config.nav.append({self.config.nav_title: _mount(nav, self.config.mount)})
            _add_unlisted(config.nav, docs_dir, self.config.mount, self.config.nav_title)
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        self.rendered = set()
        for path, text in sorted(self.pages.items()):
            if path.endswith(".md"):
                uri = f"{self.config.mount}/{path}"
                files.append(File.generated(config, uri, content=text))
                self.rendered.add(uri)
        return files

    def on_page_content(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The HTML of a page rendered from the specs, cleaned (whatever Python-Markdown and its
        extensions made of the docs, no element, attribute or URL that runs script is left)."""
        if page.file.src_uri not in self.rendered:
            return html
        from toolkit.mkdocs_plugin.html_safe import clean_html

        return clean_html(html)

    def on_serve(self, server: Any, config: MkDocsConfig, builder: Any) -> Any:
        if self.spec_root is not None and self.spec_root.is_dir():
            server.watch(str(self.spec_root))
        return server


def _project(site_folder: Path, *, from_tree: bool) -> Project:
    """The project settings around the site; `from_tree`: the spec folder is the tree's
    `spec_root` (or the default folder), checked as the CLI and the language server check it
    (`checked_spec_root`: not out of the project, not through a symlink). A refusal, or a
    project file that cannot be read, stops the build with the located message."""
    from toolkit.load.output_folder import checked_spec_root
    from toolkit.load.project import load_project
    from toolkit.model.diagnostics import UsageError

    try:
        project = load_project(site_folder)
        if from_tree:
            checked_spec_root(project.folder, project.spec_root, project.key_location("spec_root"))
    except UsageError as exc:
        message = exc.diagnostic.format() if exc.diagnostic is not None else str(exc)
        raise PluginError(f"opset: {message}") from None
    return project


def _check_options(options: OpsetPluginConfig, root: Path, site_folder: Path) -> None:
    """The options come from the tree's mkdocs.yml (and the spec folder maybe from its
    opset.toml): the spec folder must be inside the site's repository (not a folder elsewhere on
    the machine rendered into the site) and `mount` a plain relative folder (the pages written
    under it must stay inside the site)."""
    top = _repository(site_folder)
    resolved = root.resolve()
    if resolved != top and top not in resolved.parents:
        raise PluginError(f"opset: the spec folder {root} is outside the repository {top} (fix `specs:`)")
    from toolkit.load.files import path_problem
    from toolkit.model.diagnostics import escape

    problem = path_problem(options.mount)
    if problem is not None:
        raise PluginError(
            f"opset: `mount: {escape(options.mount)}` must be a relative folder such as `reference`: {problem}"
        )


def _repository(site_folder: Path) -> Path:
    """The work tree holding the site (the nearest folder with `.git`), else the site's folder."""
    for folder in (site_folder, *site_folder.parents):
        if (folder / ".git").exists():
            return folder
    return site_folder


def render_pages(root: Path, site_folder: Path, pages: tuple[str, ...]) -> dict[str, str]:
    """The docs pages of the specs under `root` ({path: text}, nav.json included)."""
    from toolkit.cli import build_parser
    from toolkit.generate.context import header_label
    from toolkit.generate.docs import render_docs
    from toolkit.model.diagnostics import SpecError
    from toolkit.registry.core import load_registry

    if not root.is_dir():
        raise PluginError(
            f"opset: spec folder {root} does not exist (set `specs:` or spec_root in opset.toml)"
        )
    try:
        registry = load_registry([root])
    except SpecError as exc:
        lines = "\n".join(d.format() for d in exc.diagnostics)
        raise PluginError(f"opset: the specs have errors (run `opset validate`):\n{lines}") from None
    try:
        label = root.relative_to(site_folder).as_posix()
    except ValueError:
        label = root.name
    parser = build_parser if "cli" in pages else None
    return render_docs(registry, header_label(label), parser, top_pages=pages)


def json_nav(text: str) -> list[Any]:
    import json

    nav: list[Any] = json.loads(text)
    return nav


def _mount(entry: Any, mount: str) -> Any:
    """Prefix the paths of a generated nav entry with the mount point."""
    if isinstance(entry, str):
        return f"{mount}/{entry}"
    if isinstance(entry, list):
        return [_mount(item, mount) for item in entry]
    if isinstance(entry, dict):
        return {title: _mount(value, mount) for title, value in entry.items()}
    return entry


def _prune(entry: Any, docs_dir: Path) -> Any:
    """Drop nav entries naming hand-written pages that do not exist; None when nothing is left."""
    if isinstance(entry, str):
        if "://" in entry or (docs_dir / entry).is_file():
            return entry
        log.info("opset: nav page '%s' does not exist (yet); left out of the nav", entry)
        return None
    if isinstance(entry, list):
        kept = [item for item in (_prune(i, docs_dir) for i in entry) if item is not None]
        return kept or None
    if isinstance(entry, dict):
        pruned = {title: _prune(value, docs_dir) for title, value in entry.items()}
        kept_dict = {title: value for title, value in pruned.items() if value is not None}
        return kept_dict or None
    return entry


def _listed(entry: Any) -> set[str]:
    if isinstance(entry, str):
        return {entry}
    if isinstance(entry, list):
        return {path for item in entry for path in _listed(item)}
    if isinstance(entry, dict):
        return {path for value in entry.values() for path in _listed(value)}
    return set()


def _add_unlisted(nav: list[Any], docs_dir: Path, mount: str, nav_title: str) -> None:
    """Pages dropped into docs/ without a nav entry still get a place: docs/guide/* joins the
    Guide section, docs/<mount>/* the reference section, the rest the end."""
    listed = _listed(nav)
    sections = {
        title: value
        for entry in nav
        if isinstance(entry, dict)
        for title, value in entry.items()
        if isinstance(value, list)
    }
    for path in sorted(docs_dir.rglob("*.md")):
        relative = path.relative_to(docs_dir).as_posix()
        if relative in listed:
            continue
        top = relative.split("/", 1)[0]
        section = {"guide": "Guide", mount: nav_title}.get(top)
        target = sections.get(section) if section else None
        (target if target is not None else nav).append(relative)
