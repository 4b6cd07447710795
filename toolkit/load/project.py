"""The project settings of a spec repository: where the specs and the outputs are, what the
generated Python package is called, which doc pages the site gets.

They sit in the same file as the gate configuration (`toolkit.compat.config`): `opset.toml`
(top-level keys) or `[tool.opset-toolkit]` in `pyproject.toml`, found in the working directory
or a parent up to the top of the git work tree::

    spec_root = "opsets"          # the folder of domain folders (default: opsets)
    out = "generated"             # what `opset generate` writes (default: generated)

    [python]
    package = "newco_ops"         # import name of the generated package
    distribution = "newco-ops"    # its pip name (default: the package name with - for _)
    version = "0.1.0"             # its version (default: 0.1.0)

    [docs]
    pages = ["domains", "releases"]   # of domains, releases, dsl, cli (default: all)

    max_example_bytes = 16777216  # lowers the example files' budget (`toolkit.load.example_files`)

Paths are relative to the folder holding the file. Without a file, everything has its default
(this repository's layout).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.load.files import (
    LeavesTree,
    SpecRoots,
    encoding_diagnostic,
    line_column,
    read_regular_file,
    too_large_diagnostic,
)
from toolkit.model.diagnostics import Diagnostic, UsageError
from toolkit.model.integers import RANGE, IntegerOutOfRange, check_range, read_int
from toolkit.model.output_names import package_problem
from toolkit.model.rules import register
from toolkit.model.spec import Location

CONFIG_FILE = "opset.toml"
TOOL_KEY = "opset-toolkit"
DEFAULT_SPEC_ROOT = "opsets"
DEFAULT_OUT = "generated"
DEFAULT_PACKAGE = "opset_toolkit_generated"
DOC_PAGES = ("domains", "releases", "dsl", "cli")
# The keys this module reads; the gate's own keys are read by toolkit.compat.config.
PROJECT_KEYS = frozenset({"spec_root", "out", "python", "docs", "max_example_bytes"})
_PYTHON_KEYS = {"package", "distribution", "version"}
_DOCS_KEYS = {"pages"}
_DISTRIBUTION = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION = re.compile(r"[0-9]+(\.[0-9]+)*([a-z]+[0-9]+)?")


@dataclass(frozen=True)
class Project:
    """The settings; `folder` is where relative paths start, `source` the file (None: defaults)."""

    folder: Path
    source: Path | None = None
    spec_root: str = DEFAULT_SPEC_ROOT
    out: str = DEFAULT_OUT
    python_package: str = DEFAULT_PACKAGE
    python_distribution: str = ""
    python_version: str = "0.1.0"
    doc_pages: tuple[str, ...] = DOC_PAGES
    max_example_bytes: int | None = None  # may only lower the invoker's budget: the tree is not trusted

    @property
    def distribution(self) -> str:
        return self.python_distribution or self.python_package.replace("_", "-")

    def path(self, relative: str) -> str:
        """A configured path as the working directory spells it (relative when below it)."""
        full = self.folder / relative
        try:
            return os.path.relpath(full)
        except ValueError:  # another drive on Windows
            return str(full)

    def spec_path_from(self, folder: Path) -> str:
        """The spec root relative to `folder` (the mkdocs plugin: relative to mkdocs.yml)."""
        return os.path.relpath(self.folder.resolve() / self.spec_root, folder.resolve())

    @property
    def spec_path(self) -> str:
        return self.path(self.spec_root)

    @property
    def out_path(self) -> str:
        return self.path(self.out)

    def key_location(self, key: str) -> Location | None:
        """Where `key` is set (None: no project file): see `toml_key_location`."""
        if self.source is None:
            return None
        try:
            text = read_project_text(self.source)
        except UsageError:
            text = ""
        return toml_key_location(self.source, text, key, _shown(self.source))

    def setting_error(self, key: str, message: str, hint: str) -> UsageError:
        """A PROJECT-SETTING error about the value of `key`, found after the file was read (the
        spec root is not a folder): located at the key, like a value of the wrong kind."""
        where = self.key_location(key) or Location(CONFIG_FILE, 1, 1)
        return _located(Diagnostic(SETTING, message, where, hint))

    def generator_options(self) -> tuple[tuple[str, str], ...]:
        """What generators read (`GenerateContext.options`), sorted."""
        return tuple(
            sorted(
                {
                    "python.package": self.python_package,
                    "python.distribution": self.distribution,
                    "python.version": self.python_version,
                    "docs.pages": ",".join(self.doc_pages),
                }.items()
            )
        )


def find_project_file(start: Path | None = None) -> Path | None:
    """opset.toml, or a pyproject.toml with [tool.opset-toolkit], in `start` or a parent (up to
    the folder holding `.git`): the project settings and the gate's configuration. A file there
    that is a symbolic link out of its folder is a UsageError (FILE-READ), never read."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return _inside_folder(candidate)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            text = read_project_text(_inside_folder(pyproject))
            if _may_hold_table(text) and TOOL_KEY in parse_toml(pyproject, text).get("tool", {}):
                return pyproject
        if (folder / ".git").exists():
            return None
    return None


def _inside_folder(path: Path) -> Path:
    """`path`, a project file of the tree, when its real path lies inside its (real) folder. A link
    to `/proc/self/environ` or a token file would otherwise have its keys, or its first line,
    printed in the settings' error messages."""
    try:
        SpecRoots([path.parent]).locate(path)
    except LeavesTree:
        hint = (
            "a project file's symbolic link must stay inside its folder: replace it with a copy of the file"
        )
        message = "cannot read file: a symbolic link leads out of the project folder"
        diagnostic = Diagnostic("FILE-READ", message, Location(_shown(path), 1, 1), hint)
        raise UsageError(f"{_shown(path)}: {message}\n  hint: {hint}", diagnostic) from None
    except OSError:
        pass  # read_toml reports it
    return path


def load_project(start: Path | None = None) -> Project:
    """The settings of the project around `start` (default: the working directory)."""
    path = find_project_file(start)
    if path is None:
        return Project(folder=(start or Path.cwd()))
    data = read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get(TOOL_KEY, {})
    else:
        table = {k: v for k, v in data.items() if k != "tool"}
    return _parse(path, table)


# `opset-toolkit` used as a key: before `]` or `.` (a table header, a dotted key) or `=`, maybe
# quoted. A value such as `name = "opset-toolkit"` does not match; a false match only costs a parse.
_TOOL_KEY_USE = re.compile(r"""opset-toolkit["']?[ \t]*[\].=]""")

# A project file holds a few settings; one of a pull request could otherwise be a gigabyte-long
# comment (a few kilobytes in git), read and parsed whole.
MAX_PROJECT_BYTES = 1 << 20


def _may_hold_table(text: str) -> bool:
    """False when a pyproject.toml whose content is `text` cannot hold [tool.opset-toolkit] (the
    key is nowhere in it), so another project's pyproject.toml is not parsed at all."""
    return _TOOL_KEY_USE.search(text) is not None


def read_project_text(path: Path) -> str:
    """The text of the project file at `path` (opset.toml, pyproject.toml: the project settings
    and the gate's configuration), or a UsageError: a located FILE-TOO-LARGE past
    MAX_PROJECT_BYTES (no more than that is ever read), FILE-ENCODING when it is not UTF-8."""
    shown = _shown(path)
    try:
        data = read_regular_file(path, MAX_PROJECT_BYTES)
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read: {exc.strerror}") from None
    if len(data) > MAX_PROJECT_BYTES:
        raise _located(
            too_large_diagnostic(
                shown, MAX_PROJECT_BYTES, "a project file holds settings only: remove what is not one"
            )
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _located(encoding_diagnostic(shown, data, exc)) from None


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file at `path` (`read_project_text`, `parse_toml`), or a UsageError saying why not."""
    return parse_toml(path, read_project_text(path))


def parse_toml(path: Path, text: str) -> dict[str, Any]:
    """`text`, the content of the project file at `path`, as TOML, or a UsageError saying why
    not: invalid TOML is PROJECT-TOML where the parser stopped, an integer outside 64 bits (TOML's
    own range) SCHEMA-VALUE at the literal. Every reader of the project file (the settings, the
    gate's configuration, the language server through them) parses it here."""
    # Imported on use: most commands run where no project file needs parsing.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _located(_invalid_toml(path, text, exc)) from None
    except RecursionError:  # tomllib recurses once per nested array or inline table, with no limit
        where = _offset_location(path, text, _deepest(text))
        message = "invalid TOML: arrays or inline tables nested too deeply"
        raise _located(Diagnostic(TOML, message, where, TOML_HINT)) from None
    except ValueError:
        # tomllib converts integers itself, with no hook to bound them (unlike parse_float), and
        # Python refuses to convert one of more than 4300 digits.
        raise _located(_integer_out_of_range(path, text)) from None
    if _holds_out_of_range(data):
        raise _located(_integer_out_of_range(path, text))
    return data


TOML = "PROJECT-TOML"
TOML_HINT = 'write TOML: text in quotes (`out = "generated"`), one `key = value` a line, tables as `[name]`'
register(
    TOML,
    "load",
    "error",
    "The project file (`opset.toml`, or `pyproject.toml` with `[tool.opset-toolkit]`) is not valid TOML; nothing is read or written.",
    category="Generated documents",
    hint=TOML_HINT,
    doc="""\
**Why:** the project file says where specs are read and outputs written, and configures the
gate; a file the TOML parser refuses has no settings to follow, and guessing them could read or
write the wrong folders. The command exits 2, located where the parser stopped (for arrays or
inline tables nested too deeply: at the deepest one).

**Before:** `out = generated` (text without quotes), or `spec_root = "opsets` (an unclosed string)

**After:** `out = "generated"`, `spec_root = "opsets"`

**Fix:** correct the TOML at the place named; `python -c "import tomllib, sys;
tomllib.load(open(sys.argv[1], 'rb'))" opset.toml` reads it the same way.""",
)

# Where tomllib (and tomli) say they stopped, at the end of their message; Python 3.14 also
# gives `lineno` and `colno` (1-based both), read first.
# Compiled by `re` on first use: only a file that fails to parse needs them.
_TOML_WHERE = r" \(at (?:line ([0-9]+), column ([0-9]+)|end of document)\)$"


def _invalid_toml(path: Path, text: str, exc: ValueError) -> Diagnostic:
    """PROJECT-TOML where the parser stopped (line 1 when it did not say)."""
    message = str(exc)
    found = re.search(_TOML_WHERE, message)
    if found is not None:
        message = message[: found.start()]
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if isinstance(line, int) and isinstance(column, int):
        where = Location(_shown(path), line, column)
    elif found is not None and found.group(1):
        where = Location(_shown(path), int(found.group(1)), int(found.group(2)))
    else:  # at the end of the document
        where = _offset_location(path, text, len(text) if found is not None else 0)
    message = getattr(exc, "msg", None) or message
    return Diagnostic(TOML, f"invalid TOML: {message[:1].lower()}{message[1:]}", where, TOML_HINT)


def _deepest(text: str) -> int:
    """The offset of the first bracket or brace at the deepest nesting of `text`, counted
    without reading strings (only to point at a nesting tomllib could not follow)."""
    depth = deepest = at = 0
    for found in re.finditer(_BRACKET, text):
        depth += 1 if found.group() in "[{" else -1
        if depth > deepest:
            deepest, at = depth, found.start()
    return at


_BRACKET = r"[\[\]{}]"

# An integer as TOML spells one; only to find the one out of range (tomllib read them all).
_INTEGER = re.compile(r"(?<![\w.+-])[+-]?(?:0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*)(?![\w.:])")


def _holds_out_of_range(value: Any) -> bool:
    """Whether an integer outside INT64_MIN..UINT64_MAX (TOML's own range is int64; every field
    the settings feed fits 64 bits) is anywhere in `value`."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return any(_holds_out_of_range(item) for item in value)
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            check_range(value)
        except IntegerOutOfRange:
            return True
    return False


def _integer_out_of_range(path: Path, text: str) -> Diagnostic:
    """SCHEMA-VALUE at the first integer of `text` that `read_int` refuses (else at 1:1)."""
    for found in _INTEGER.finditer(text):
        spelled = found.group()
        sign, digits = ("-" if spelled[0] == "-" else ""), spelled.lstrip("+-")
        base = {"0x": 16, "0o": 8, "0b": 2}.get(digits[:2], 10)
        try:
            read_int(sign + (digits[2:] if base != 10 else digits), base)
        except IntegerOutOfRange as exc:
            return _out_of_range(str(exc), _offset_location(path, text, found.start()))
    return _out_of_range(f"an integer is outside the 64-bit range ({RANGE})", _offset_location(path, text, 0))


def _out_of_range(message: str, where: Location) -> Diagnostic:
    return Diagnostic("SCHEMA-VALUE", message, where, "write a number that fits 64 bits")


def _offset_location(path: Path, text: str, at: int) -> Location:
    """The location of the character at offset `at` of `text`, the content of `path`."""
    return Location(_shown(path), *line_column(text, at))


def _located(diagnostic: Diagnostic) -> UsageError:
    """A UsageError the command prints as `diagnostic` (file:line:col, rule id, hint)."""
    return UsageError(
        f"{diagnostic.location.file}: {diagnostic.message}\n  hint: {diagnostic.hint}", diagnostic
    )


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


SETTING = "PROJECT-SETTING"
register(
    SETTING,
    "load",
    "error",
    "A setting of the project file (`opset.toml`, `[tool.opset-toolkit]`) has a value of the wrong kind, or a table holds an unknown key, or `spec_root` names no folder; nothing is read or written.",
    category="Generated documents",
    hint="write the value the hint names, or remove the key",
    doc="""\
**Why:** the project file decides where specs are read and outputs written, how the Python
package is named and how large an example file may be; a value the toolkit cannot use is not
guessed at. The command exits 2, located at the key (`package` under `[python]`; at its
table when the key is spelled in a way the locator does not follow, line 1 when neither is found).

**Before:** `max_example_bytes = "16M"`, `[python]` with `pakage = "acme_ops"`, or
`spec_root = "opset"` where the folder is `opsets`

**After:** `max_example_bytes = 16777216`, `[python]` with `package = "acme_ops"`, or
`spec_root = "opsets"`""",
)


def _parse(path: Path, table: dict[str, Any]) -> Project:
    where = _shown(path)

    def fail(message: str, hint: str, key: str = "") -> UsageError:
        """A PROJECT-SETTING error located at `key` (dotted for a key of a sub-table)."""
        try:
            text = read_project_text(path)
        except UsageError:
            text = ""
        location = toml_key_location(path, text, key, where) if key else Location(where, 1, 1)
        return _located(Diagnostic(SETTING, message, location, hint))

    def text(value: Any, key: str, pattern: re.Pattern[str] | None = None) -> str:
        if not isinstance(value, str) or not value or (pattern is not None and not pattern.fullmatch(value)):
            raise fail(f"`{key}` = {value!r} is not valid", _HINTS.get(key, "write a non-empty string"), key)
        return value

    settings: dict[str, Any] = {}
    for key in ("spec_root", "out"):
        if key in table:
            settings[key] = text(table[key], key)
    python = _table(table, "python", _PYTHON_KEYS, fail)
    if "package" in python:
        package = text(python["package"], "python.package")
        problem = package_problem(package)
        if problem:
            raise fail(
                f"`python.package` = {package!r} {problem}", _HINTS["python.package"], "python.package"
            )
        settings["python_package"] = package
    if "distribution" in python:
        settings["python_distribution"] = text(python["distribution"], "python.distribution", _DISTRIBUTION)
    if "version" in python:
        settings["python_version"] = text(python["version"], "python.version", _VERSION)
    docs = _table(table, "docs", _DOCS_KEYS, fail)
    if "pages" in docs:
        pages = docs["pages"]
        if not isinstance(pages, list) or any(p not in DOC_PAGES for p in pages):
            raise fail(f"`docs.pages` = {pages!r} is not valid", f"a list of: {', '.join(DOC_PAGES)}", "docs")
        settings["doc_pages"] = tuple(p for p in DOC_PAGES if p in pages)
    if "max_example_bytes" in table:
        limit = table["max_example_bytes"]
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise fail(
                f"`max_example_bytes` = {limit!r} is not valid",
                "a number of bytes, e.g. 16777216",
                "max_example_bytes",
            )
        settings["max_example_bytes"] = limit
    return Project(folder=path.parent, source=path, **settings)


def _table(table: dict[str, Any], name: str, keys: set[str], fail: Any) -> dict[str, Any]:
    value = table.get(name, {})
    if not isinstance(value, dict):
        raise fail(
            f"`{name}` must be a table ([{name}])",
            f"write [{name}] with the keys {', '.join(sorted(keys))}",
            name,
        )
    unknown = sorted(set(value) - keys)
    if unknown:
        raise fail(
            f"unknown key(s) in [{name}]: {', '.join(unknown)}", f"known: {', '.join(sorted(keys))}", name
        )
    return value


# Enough TOML to point at a key (tomllib keeps no positions): table headers and dotted keys,
# bare or quoted, so `[python]` then `package = ...` is found as `python.package`.
_TABLE_HEADER = re.compile(r"\s*\[\[?([^\[\]]+)\]")
_KEY = re.compile(
    r"""\s*((?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*'))*)\s*="""
)
_KEY_PART = re.compile(r"""[A-Za-z0-9_-]+|"([^"\n]*)"|'([^'\n]*)'""")


def _key_path(spelled: str) -> tuple[str, ...]:
    return tuple(part.group(1) or part.group(2) or part.group() for part in _KEY_PART.finditer(spelled))


def toml_key_location(source: Path, text: str, key: str, shown: str) -> Location:
    """Where `key` (dotted for a key of a sub-table: `python.package`) of the toolkit's table is
    first set in `source`, whose content is `text`: under `[tool.opset-toolkit]` (or, in
    opset.toml, at the top level), spelled under its table's header, as a dotted key or both. When
    the key itself is not found, where its enclosing table is opened (`[python]`); line 1 when
    that is not found either."""
    parts = tuple(key.split("."))
    roots = [("tool", TOOL_KEY), ()] if source.name == CONFIG_FILE else [("tool", TOOL_KEY)]
    wanted = {(*root, *parts) for root in roots}
    enclosing = {(*root, *parts[:n]) for root in roots for n in range(1, len(parts))}
    table: tuple[str, ...] = ()
    fallback: Location | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE_HEADER.match(line)
        if header is not None:
            table = _key_path(header.group(1))
            path, column = table, line.index("[") + 1
        else:
            found = _KEY.match(line)
            if found is None:
                continue
            path, column = (*table, *_key_path(found.group(1))), found.start(1) + 1
        if path in wanted:
            return Location(shown, number, column)
        if fallback is None and path in enclosing:
            fallback = Location(shown, number, column)
    return fallback or Location(shown, 1, 1)


_HINTS = {
    "python.package": "a Python identifier of your own (not a keyword, nor a module it would shadow), e.g. newco_audio_ops",
    "python.distribution": "letters, digits, '.', '-', '_', e.g. newco-audio-ops",
    "python.version": "a version such as 0.1.0",
}
