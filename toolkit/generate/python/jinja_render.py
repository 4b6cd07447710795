"""The templates of the `python` kind (`templates/`), rendered by Jinja2: the definition of the
generated files. Generating uses their fast path, `render_fast`, which writes the same text
without Jinja2; tests/test_python_render_fast.py renders both and compares.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

import jinja2

from toolkit.generate.python.source import doc_escape_line, str_literal

__all__ = ["TEMPLATES", "environment", "render"]

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=False,  # Python source, not HTML; every value is escaped by `source`
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pystr"] = str_literal
    env.filters["doctext"] = doc_escape_line
    env.filters["indent_lines"] = lambda lines, n: ("\n" + " " * n).join(lines)
    return env


def render(template: str, values: Mapping[str, object]) -> str:
    """The text of `template` (a file name in `templates/`) with `values`."""
    return environment().get_template(template).render(**values)
