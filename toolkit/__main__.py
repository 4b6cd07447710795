"""`python -m toolkit`: the `opset` command.

`python -m` puts the current directory first on `sys.path`. The toolkit runs in trees that may
come from a stranger's pull request, and a `yaml.py` or `onnx.py` there would then be imported
instead of the real module by any import the toolkit makes: that entry is dropped before the
command's imports. (Python 3.11's `python -P -m toolkit` does not add it at all. Neither can keep
a `toolkit/` folder in the current directory from being run instead of this package: use the
`opset` script in untrusted trees.) A folder the invoker puts on PYTHONPATH stays searched.
"""

import os
import sys


def _drop_working_directory() -> None:
    if getattr(sys.flags, "safe_path", False) or not sys.path:
        return
    try:
        here = os.getcwd()
    except OSError:  # the directory was removed: nothing can be imported from it anyway
        return
    if sys.path[0] in ("", here):
        del sys.path[0]


_drop_working_directory()

from toolkit.cli import run  # noqa: E402  (after the path is safe)

run()
