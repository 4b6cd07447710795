"""The rules the load layer reports: reading files, YAML, shape (JSON Schema), names, `.pb` documents,
and the spec rules it checks while building the model (type strings and sets, attribute defaults,
`based_on`, unknown domains).

The loader modules emit these ids by name; this module only describes them. `toolkit.checks.spec`
imports it, so the catalog is complete whenever specs are checked.
"""

from __future__ import annotations

from toolkit.load import yaml_hints
from toolkit.load.example_files import BUDGET_ENV, DEFAULT_MAX_EXAMPLE_BYTES
from toolkit.model.rules import register

FILES = "Reading files"
SHAPE = "Shape"
PB = "Generated documents"
# Spec-family rules checked while the model is built; the same sections as `toolkit.checks`.
DOMAINS = "Domains and opset versions"
TYPES = "Types"
PARAMS = "Parameters and attributes"
VERSIONS = "Versions"
_BUDGET_MIB = DEFAULT_MAX_EXAMPLE_BYTES >> 20

# --------------------------------------------------------------------------- reading files

register(
    "FILE-READ",
    "load",
    "error",
    "The file cannot be read (permissions, a dangling or looping symlink), is not a regular file, or is a symlink that leads out of the spec tree.",
    category=FILES,
    hint="check the file's permissions and that nothing deletes it while the command runs",
    doc="""\
**Why:** the operating system refused to read the file (the message gives its reason), or the
path names a FIFO, a device, a socket or a symlink to one. Those are never read: a FIFO would
block the command and `/dev/zero` would never end.

A spec file (operator, `domain.yaml`, `releases.yaml`) whose real path, every symbolic link of
it resolved, lies outside the spec tree the command was given is not read either, nor is a
project file (`opset.toml`, `pyproject.toml`) that links out of its folder: a tree from a pull
request could link to `/proc/self/environ` or a token file, and reading it would copy the secret
into the generated outputs or its keys into the messages. The message says nothing about the
target. Links that stay inside the tree are read as the files they lead to, and a spec root that
is itself a link, given on the command line, is followed.

**Before:** `opsets/com.acme/Foo.yaml -> /dev/zero`, or `opsets/com.acme/Leak.yaml -> ../../../.ssh/config`

**After:** a regular file `opsets/com.acme/Foo.yaml` (a copy of the file the link pointed to, when
it belongs in the tree), or no file at all.""",
)
register(
    "EXAMPLE-BUDGET",
    "load",
    "error",
    f"The example files of the spec tree, counted once per reference, are larger than the budget ({_BUDGET_MIB} MiB unless the invoker sets another).",
    category=FILES,
    hint=f"use smaller example tensors, or raise the budget with --max-example-bytes SIZE or {BUDGET_ENV}",
    doc=f"""\
**Why:** every example tensor becomes Python objects when the specs load (about ten bytes of
memory per byte of a float32 file), and one copy per reference in what is made from the specs
(the `.pb` documents, the backend test data, the load cache). A tree from a pull request could
name one large file of zeros, a few kilobytes in git, hundreds of times. So the example files of
a tree are read within a budget: each reference is charged its file's size, in load order, and
the reference that crosses the budget is reported; no example file after it is read. A file is
still read only once, however often it is named.

The budget is {_BUDGET_MIB} MiB. The invoker may raise or lower it (`--max-example-bytes 256M` on the
commands that read specs, or `{BUDGET_ENV}`); the project file may only lower
it (`max_example_bytes = 16777216` in `opset.toml`), because the tree itself is not trusted.

**Before:** 24 examples with `inputs: [{{file: examples/zeros.npy}}]`, a 16 MiB file.

**After:** a small tensor that shows the behaviour, `inputs: [{{file: examples/small.npy}}]`, or
`opset validate --max-example-bytes 512M` when the large examples are meant.""",
)
register(
    "FILE-DEPTH",
    "load",
    "error",
    "A folder under a spec path is nested too deep; nothing below it is read.",
    category=FILES,
    hint="spec trees are a few folders deep (one per domain); move the files up or remove the folders",
    doc="""\
**Why:** a spec tree holds one folder per domain, perhaps grouped a level or two deeper. A
folder nested dozens of levels deep is a mistake or a hostile input, and walking it without a
limit exhausts the stack; the finding names the first folder that is not read.

**Before:** `opsets/a/a/a/.../a/Foo.yaml` (more than 32 folders below the spec path)

**After:** `opsets/com.acme/Foo.yaml`""",
)
register(
    "FILE-TOO-LARGE",
    "load",
    "error",
    "The file is larger than the 4 MiB limit for one spec file (1 MiB for opset.toml or pyproject.toml).",
    category=FILES,
    hint="split the operator's versions or shorten its docs",
    doc="""\
**Why:** one spec file describes one operator or domain; a file this large is almost certainly
not a spec, and the limit keeps a bad input from exhausting memory. A project file holds a few
settings: past 1 MiB it is not read at all (the command stops with exit code 2).""",
)
register(
    "FILE-GIT-PATH",
    "load",
    "error",
    "A spec-named entry of a git tree read by `opset diff --against REF` has a path no checkout could hold.",
    category=FILES,
    hint="a commit made with git plumbing can hold such names; compare with another ref, or remove the entry",
    doc="""\
**Why:** `opset diff --against REF` reads the old specs from git objects. `git mktree` and
`git commit-tree` make trees that `git add` never would: an entry named `..`, `.` or `.git`, a
name with a backslash, a `:` or a control character, a name that is not UTF-8 (the one test of a
plain relative path, `load.files.path_problem`). `git fetch` accepts such
commits, so a pull request's base can hold them. Such an entry is not read (a path with `..`
would name a file outside the spec tree), and the old tree is reported as broken (exit 2), not
compared with part of its files missing.

**Before:** a tree `opsets/` holding a folder named `..` that holds `evil.yaml`
(shown as `opsets/../evil.yaml`)

**After:** compare with a ref whose tree a checkout can hold (every commit `git add` made), or
rewrite the history that made the entry.""",
)
register(
    "FILE-ENCODING",
    "load",
    "error",
    "The file is not valid UTF-8; the position of the first bad byte is given.",
    category=FILES,
    hint="save the file as UTF-8",
    doc="""\
**Why:** specs are UTF-8 text (a leading byte-order mark is accepted); other encodings would
turn names and docs into different text on different machines.""",
)
register(
    "FILE-PLACEMENT",
    "load",
    "error",
    "An operator file is not named after its operator, or a file sits in a folder not named after its domain.",
    category=FILES,
    hint="move or rename the file, or fix its `operator:` / `domain:` value",
    doc="""\
**Why:** `opsets/<domain>/<Operator>.yaml` lets people and tools find an operator's file from
its name, and keeps two files from declaring one operator.

**Before:** `opsets/com.acme.vision/conv.yaml` declaring `operator: FusedConv`

**After:** `opsets/com.acme.vision/FusedConv.yaml`""",
)
register(
    "YAML-SYNTAX",
    "load",
    "error",
    "The file is not well-formed YAML.",
    category=FILES,
    hint=yaml_hints.GENERAL,
    doc="""\
**Why:** the YAML parser stopped at the given position; nothing in the file can be used. The hint
names the usual mistakes when it sees one: a value starting with `@` or a backtick unquoted, a
tab used for indentation, the text of a `doc: |` block written no deeper than `doc:`.

**Before:** `T: {allowed: @float_types}`

**After:** `T: {allowed: "@float_types"}`""",
)
register(
    "YAML-DUPLICATE-KEY",
    "load",
    "error",
    "A mapping has the same key twice (YAML loaders would silently keep one).",
    category=FILES,
    hint="remove one of the two entries",
    doc="""\
**Why:** most YAML loaders keep the last of two equal keys without a word, so one of the two
values is lost; which one was meant only the author knows.

**Before:**

```yaml
attributes:
  axis: {type: int, default: 0}
  axis: {type: int, default: 1}
```

**After:** one `axis` entry.""",
)
register(
    "YAML-TAG",
    "load",
    "error",
    "A YAML tag (`!!python/...`, `!custom`, merge keys) is used; specs are plain data.",
    category=FILES,
    hint="specs are plain data: remove the tag and write the value out",
    doc="""\
**Why:** tags can make a YAML loader build arbitrary objects (`!!python/object`), and merge keys
(`<<`) hide where a value comes from; a spec is strings, numbers, booleans, null, lists and maps.

**Before:** `default: !!python/tuple [1, 2]`

**After:** `default: [1, 2]`""",
)
register(
    "YAML-DEPTH",
    "load",
    "error",
    "Lists and mappings are nested deeper than a spec ever needs (64 levels).",
    category=FILES,
    hint="a spec nests a few levels; check for runaway brackets or indentation",
    doc="""\
**Why:** a spec nests a few levels (versions, an entry, its attributes, a default). Thousands of
nested brackets or indentation levels are a mistake or a hostile input, and reading them
without a limit exhausts the stack; the finding points at the first collection too deep.

**Before:** `default: [[[[[[ ... ]]]]]]` (more than 64 levels)

**After:** `default: [1, 2]`""",
)
register(
    "YAML-ALIAS-LIMIT",
    "load",
    "error",
    'Aliases expand to more nodes than allowed (a "billion laughs" document).',
    category=FILES,
    hint="do not nest aliases of aliases; write the values out",
    doc="""\
**Why:** aliases of aliases expand exponentially; a few lines can ask for billions of nodes.
The loader stops at a fixed budget instead of running out of memory.""",
)

# --------------------------------------------------------------------------- shape

register(
    "SCHEMA-UNKNOWN-KEY",
    "load",
    "error",
    "A key the JSON Schema does not define; the hint suggests the closest known key.",
    category=SHAPE,
    hint="fix the spelling (the hint names the closest known key) or remove the key",
    doc="""\
**Why:** an unknown key is usually a misspelt one, whose value would otherwise be ignored.

**Before:** `since_verison: 2`

**After:** `since_version: 2`""",
)
register(
    "SCHEMA-REQUIRED",
    "load",
    "error",
    "A required key is missing.",
    category=SHAPE,
    hint="add the key",
    doc="""\
**Why:** some keys have no sensible default (an operator's `domain`, a version's
`since_version`, a parameter's `type`).

**Before:** `- {name: X}` under `inputs:`

**After:** `- {name: X, type: T}`""",
)
register(
    "SCHEMA-TYPE",
    "load",
    "error",
    "A value has the wrong type (e.g. a string where an integer belongs), or a file is not a mapping.",
    category=SHAPE,
    hint="write the value as the schema in schemas/ expects it",
    doc="""\
**Why:** the model is built from values of the expected types only; YAML reads `1.0` as a
number and `"1"` as a string, so quoting matters.

**Before:** `since_version: "2"`

**After:** `since_version: 2`""",
)
register(
    "SCHEMA-ENUM",
    "load",
    "error",
    "A value is not one of the allowed words (option, status, attribute type...).",
    category=SHAPE,
    hint="use one of the words the message lists",
    doc="""\
**Why:** these words select behaviour (a parameter's `option`, a version's `status`, an
attribute's `type`); anything else has no meaning.

**Before:** `option: varidic`

**After:** `option: variadic`""",
)
register(
    "SCHEMA-VALUE",
    "load",
    "error",
    "A value breaks another schema constraint (minimum, non-empty list, pattern).",
    category=SHAPE,
    hint="see the schema in schemas/ for the allowed values",
    doc="""\
**Why:** the JSON Schemas in `schemas/` also bound values: versions start at 1, lists such as
`allowed` are not empty.

**Before:** `since_version: 0`

**After:** `since_version: 1`""",
)
register(
    "NAME-NOT-IDENTIFIER",
    "load",
    "error",
    "An operator, parameter, attribute, type parameter or type set name is not a C identifier.",
    category=SHAPE,
    hint="use letters, digits and '_' only, not starting with a digit",
    doc="""\
**Why:** the names become identifiers in generated code (Python classes, protobuf) and keyword
arguments in the runtime. Historical schemas that cannot change may `suppress` the rule per version.

**Before:** `attributes: {group-count: {type: int}}`

**After:** `attributes: {group_count: {type: int}}`""",
)
register(
    "NAME-DUPLICATE",
    "load",
    "error",
    "Two inputs, outputs, operators or domains share a name.",
    category=SHAPE,
    hint="rename one of the two, or keep one definition",
    doc="""\
**Why:** inputs and outputs are addressed by name in docs and generated signatures, operators
and domains by name in models; two of one name make those references ambiguous. (The
input/output check runs with the spec checks, after loading.)

**Before:** `inputs: [{name: X, type: T}, {name: X, type: T}]`

**After:** `inputs: [{name: X, type: T}, {name: Y, type: T}]`""",
)

# --------------------------------------------------------------------------- generated documents

register(
    "PB-LOAD",
    "load",
    "error",
    "A generated `.pb` schema document cannot be read back.",
    category=PB,
    hint="point at the proto/ folder written by `opset generate`, or regenerate it",
    doc="""\
**Why:** commands can read specs from the `schemas.pb` documents `opset generate` writes; the
path holds none, a document is damaged or from another tool, or two documents define one domain.""",
)

# --------------------------------------------------------------------------- spec rules checked while loading

register(
    "DOMAIN-UNKNOWN",
    "spec",
    "error",
    "An operator names a domain that has no domain.yaml among the loaded specs.",
    category=DOMAINS,
    hint="add opsets/<domain>/domain.yaml or pass its folder too",
    doc="""\
**Why:** an operator's versions are opset versions of its domain; without the domain's file
there are no opset versions to check them against.

**Before:** `opset validate opsets/com.acme.vision/FusedConv.yaml`

**After:** `opset validate opsets/com.acme.vision` (the folder holds `domain.yaml`).""",
)
register(
    "TYPE-SET-DEPTH",
    "spec",
    "error",
    "Type sets include each other through more than 32 levels of `@` references.",
    category=TYPES,
    hint="list the types directly, or include fewer sets of sets",
    doc="""\
**Why:** a type set may include others (`numbers: ["@floats", "@ints"]`), and expanding them
follows every reference. A chain dozens of sets long is a mistake or a hostile input, and
following it without a limit exhausts the stack; the finding points at the first reference
too deep (once per domain file).

**Before:** `s0: ["@s1"]`, `s1: ["@s2"]`, ... `s40: [tensor(float)]`

**After:** `s0: [tensor(float)]`""",
)
register(
    "TYPE-STRING-INVALID",
    "spec",
    "error",
    "A type string does not follow the ONNX grammar or names an unknown element type.",
    category=TYPES,
    hint="write e.g. tensor(float), seq(tensor(int64)), map(int64, float), optional(tensor(bool))",
    doc="""\
**Why:** type strings are compared and expanded (`@float_types`), and they end up in generated
schemas; only the ONNX grammar and element types are understood.

**Before:** `tensor(float32)`

**After:** `tensor(float)`""",
)
register(
    "TYPE-SET-UNKNOWN",
    "spec",
    "error",
    "`@name` refers to a type set the domain does not declare.",
    category=TYPES,
    hint="declare it under `type_sets:` in the domain file, or fix the name",
    doc="""\
**Why:** `@name` expands to the types of the domain's type set `name`; an unknown set would
expand to nothing.

**Before:** `allowed: "@float_type"` when domain.yaml declares `float_types`.

**After:** `allowed: "@float_types"`""",
)
register(
    "TYPE-SET-CYCLE",
    "spec",
    "error",
    "Type sets include each other in a cycle.",
    category=TYPES,
    hint="break the cycle",
    doc="""\
**Why:** a type set may include another (`@other`); a set that includes itself, directly or
through others, has no finite expansion.

**Before:** `type_sets: {a: ["@b"], b: ["@a"]}`

**After:** `type_sets: {a: [tensor(float)], b: ["@a", tensor(double)]}`""",
)
register(
    "ATTR-DEFAULT-TYPE",
    "spec",
    "error",
    "An attribute default does not match the attribute's type.",
    category=PARAMS,
    hint="write a value of the attribute's type (a whole number for int, a number for float, a list for ints)",
    doc="""\
**Why:** the default is what a node without the attribute means; it must be a value of the
attribute's type to reach the generated schemas and classes. A `tensor` default is a tensor
literal (`dtype`, `shape`, `data`: as many elements as the shape holds, each a value of the
dtype); a `sparse_tensor` default is `values`, `indices` (int64, in range, ascending) and `dims`;
a `graph` default is a graph in ONNX's textual syntax. The error points at the part at fault.

**Before:** `alpha: {type: float, default: "0.5"}`, or
`value: {type: tensor, default: {dtype: int8, shape: [2], data: [1, 300]}}`

**After:** `alpha: {type: float, default: 0.5}`, or
`value: {type: tensor, default: {dtype: int8, shape: [2], data: [1, 100]}}`""",
)
register(
    "ATTR-REQUIRED-WITH-DEFAULT",
    "spec",
    "error",
    "An attribute is required and has a default.",
    category=PARAMS,
    hint="a required attribute is always given; drop `default` or `required: true`",
    doc="""\
**Why:** a required attribute is given by every node, so its default would never be used;
the two together usually mean one of them is a mistake.

**Before:** `axis: {type: int, required: true, default: 0}`

**After:** `axis: {type: int, default: 0}`""",
)
register(
    "ATTR-DEFAULT-UNSUPPORTED",
    "spec",
    "error",
    "A default is given for a type-proto attribute or a list of tensors, graphs or type protos.",
    category=PARAMS,
    hint="describe the implied value in the doc instead",
    doc="""\
**Why:** the DSL writes defaults inline: YAML scalars or lists, a tensor or sparse-tensor
literal, a graph in ONNX's textual syntax. Type protos and lists of tensors, graphs or type
protos have no such form.

**Before:** `branches: {type: graphs, default: []}`

**After:** `branches: {type: graphs, doc: Run in order; without it ...}`""",
)
register(
    "BASED-ON-INVALID",
    "spec",
    "error",
    "`based_on` names no earlier version, or removes an attribute/constraint the base lacks.",
    category=VERSIONS,
    hint="inherit from an earlier since_version listed above this one",
    doc="""\
**Why:** `based_on: N` copies version N (listed above) and applies this entry's changes; a
missing or later base, or `name: null` for something the base does not have, cannot be applied.

**Before:** `based_on: 3` in the entry with `since_version: 2`

**After:** `based_on: 1` (a version listed above)""",
)

# The naming and YAML-version rules live in their own module (this one is near its size limit).
from toolkit.load import output_folder, project, rules_naming  # noqa: E402, F401  (PROJECT-PATH-UNSAFE, PROJECT-SETTING)
