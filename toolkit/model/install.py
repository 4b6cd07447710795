"""How a message tells the reader to install the toolkit or one of its extras: one spelling.

The toolkit is not on PyPI yet, so the line names the two ways that work today (README): an
editable install from a checkout, or pip from git pinned to a commit.
"""

from __future__ import annotations

from toolkit.model.rules import REPOSITORY_URL

__all__ = ["install_line"]


def install_line(extra: str | None = None) -> str:
    """`pip install ...` for the toolkit, with `extra` (such as "onnx" or "lsp") when given."""
    spec = f"[{extra}]" if extra else ""
    return f"pip install -e '.{spec}' in a checkout, or pip install 'opset-toolkit{spec} @ git+{REPOSITORY_URL}@<commit>'"
