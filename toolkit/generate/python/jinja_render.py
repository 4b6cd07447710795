"""The templates of the `python` kind (`templates/`), rendered by Jinja2: the one definition of
the generated files; generating renders them and nothing else.

Each template is compiled in memory once per process, on first use (Jinja2's own compiler, its
templates kept by `_template`). No compiled template is read from disk: the toolkit's caches hold
data only, and code read from a cache is never run, so Jinja2's bytecode caches are not used.
Compiling them when the package is built (`jinja2.ModuleLoader`) was measured against this
(issue #24): the compile costs a cold run about what importing Jinja2 costs, a few percent of it,
and a build step would save that only for non-editable installs while adding a second way to
load the templates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path

import jinja2

from toolkit.generate.python.source import doc_escape_line, str_literal

__all__ = ["TEMPLATES", "environment", "render"]

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _indent_lines(lines: list[str], width: int) -> str:
    return ("\n" + " " * width).join(lines)


def _toml_string(text: str) -> str:
    """`text` as a TOML basic string: JSON's escapes are TOML's (`\\"`, `\\\\`, `\\n`, `\\uXXXX`),
    and DEL, which JSON leaves as it is, TOML allows only escaped."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        # Python source, TOML and Markdown, not HTML: every value is escaped by its filter (`pystr`,
        # `toml`, `md`, ...) or is a name the loader constrained.
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        # The templates are the toolkit's own files: a render never asks whether they changed on
        # disk (a stat per generated file otherwise). Editing one invalidates the caches of
        # generated outputs through the toolkit stamp (`registry.core.toolkit_stamp`).
        auto_reload=False,
        # Jinja's optimizer folds constant expressions at compile time; these templates have
        # next to none, so it costs a cold run about 15% of compiling them and saves no render
        # time (measured on the onnx catalog, #24).
        optimized=False,
    )
    env.filters["pystr"] = str_literal
    env.filters["doctext"] = doc_escape_line
    env.filters["indent_lines"] = _indent_lines
    env.filters["toml"] = _toml_string
    # The README is Markdown: spec text reaches it through the docs pages' formatters only (imported
    # here, on the first render: they load the Markdown parser).
    from toolkit.generate.mdsafe import code, prose, table_row

    env.filters["md"] = prose
    env.filters["mdcode"] = code
    env.filters["mdrow"] = table_row
    return env


@cache
def _template(name: str) -> jinja2.Template:
    return environment().get_template(name)


def render(template: str, values: Mapping[str, object]) -> str:
    """The text of `template` (a file name in `templates/`) with `values`."""
    return _template(template).render(**values)
