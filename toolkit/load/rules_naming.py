"""The load rules about which files are specs and how their YAML is read: FILE-NAME,
FILE-OUTSIDE-ROOT, YAML-AMBIGUOUS. Registered here (imported by `toolkit.load.rules`) to keep
that module a readable size; the loader modules emit them by name."""

from __future__ import annotations

from toolkit.model.rules import register

FILES = "Reading files"

register(
    "FILE-NAME",
    "load",
    "error",
    "A file under the spec root has a name that is not a spec file name (`.yml`, `Domain.yaml`); it is not read.",
    category=FILES,
    hint="rename the file: operator files are `<Operator>.yaml`, domain files `domain.yaml`",
    doc="""\
**Why:** the file name says what a spec file is: `domain.yaml` (lower case) is the domain,
`releases.yaml` the release table, any other `*.yaml` an operator. A domain file spelled
`domain.yml` or `Domain.yaml` would otherwise be read as an operator file and fail with
confusing messages about `operator:`. Spec files end in `.yaml` only, so that editor
associations, `files:` patterns of hooks and globs all name the same files.

**Before:** `opsets/com.acme.audio/Domain.yaml`, `opsets/com.acme.audio/Mix.yml`

**After:** `opsets/com.acme.audio/domain.yaml`, `opsets/com.acme.audio/Mix.yaml`""",
)
register(
    "FILE-OUTSIDE-ROOT",
    "load",
    "warning",
    "A file outside the spec root looks like a spec (it starts with `operator:` or `domain:`); nothing reads it.",
    category=FILES,
    hint="move it into the spec root (spec_root in opset.toml, default opsets/) under its domain's folder",
    doc="""\
**Why:** commands read the specs under the spec root (`spec_root` in `opset.toml`, else
`opsets/`). An operator file written next to it, for example at the top of the repository, is
never validated, generated or gated, and nothing would say so. In a repository with an
`opset.toml`, `opset validate` without paths looks for such files among the repository's files
(`git ls-files`, below the folder of `opset.toml`, the output folder left out) and names them.

**Before:** `com.acme.audio/Mix.yaml` (beside `opsets/`)

**After:** `opsets/com.acme.audio/Mix.yaml`""",
)
register(
    "YAML-AMBIGUOUS",
    "load",
    "error",
    "A plain value or key means one thing in YAML 1.2 (this tool, editors) and another in YAML 1.1 (PyYAML).",
    category=FILES,
    hint="quote the value for text, or write it in a spelling both versions read alike",
    doc="""\
**Why:** spec files are read by YAML 1.2's core schema, as yaml-language-server and
check-jsonschema read them: `off`, `yes`, `on`, `no` are strings and `017` is the number 17.
YAML 1.1 readers such as PyYAML's `yaml.safe_load` read the same spellings as booleans and
octal numbers. Such a value would silently mean different things to different readers of the
same file, so it is refused; the message names both readings. Keys too: an attribute named
`on` is the text 'on' here but the key `True` to PyYAML, so a plain key with such a spelling is
refused the same way (quote it).

**Before:** `mode: {type: string, default: off}`, `bits: {type: int, default: 010}`,
`attributes: {on: {type: int}}`

**After:** `mode: {type: string, default: "off"}`, `bits: {type: int, default: 8}`,
`attributes: {"on": {type: int}}`""",
)
