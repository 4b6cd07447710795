"""The `.npy` / TensorProto `.pb` files that examples name: read once, inside the spec tree, within
a byte budget per tree.

A spec tree comes from a stranger's pull request, and example files are the one thing in it that
becomes large in memory (the elements are Python objects: see "Memory" below). So:

- Where: the name is relative to the spec's folder (`build_examples` refuses `..`, absolute
  paths and other suffixes), and the file's real path (every symlink resolved) must lie inside
  the spec root the spec was loaded from: a symlink to a file elsewhere, or to `/dev/zero`, is
  refused. Anything but a regular file (a FIFO, a device, a directory) is refused before it is
  read (`files.read_regular_file`). Hard links are accepted: git cannot record one, so a tree
  from a pull request never has one, and whoever can make one on this machine can read the
  file anyway.
- Once: a file is read and decoded once per load, whatever the number of references: by file
  identity (device and inode) and then by content digest (copies of one file), so every
  reference shares one tensor object and its elements.
- Budget: every reference is charged the size of its file, in load order (files in load order,
  references in their order in the file); the reference that crosses the budget is an
  EXAMPLE-BUDGET error and no example file after it is read. References are charged, not
  distinct files, because what is made from the specs holds one copy of the tensor per
  reference (the generated `.pb` documents and backend test data, the load cache).
  The budget is `DEFAULT_MAX_EXAMPLE_BYTES`, or what the invoker sets with
  `--max-example-bytes` / `OPSET_TOOLKIT_MAX_EXAMPLE_BYTES`; the project's `opset.toml`
  (`max_example_bytes`) may lower it, never raise it: the tree is not trusted.
- Where the work happens: in the first process, after every operator file is built (also when
  the forked worker of `toolkit.load.parallel` built half of them). The builder only records
  each reference (`ExampleRef`) and leaves an empty tensor in its place; this module reads the
  files and puts the tensors in. So the budget holds per tree however the files were split,
  the worker never holds example data, and the diagnostics do not depend on the split.

Memory: a decoded element is a pointer in a tuple (8 bytes) plus, unless shared, its object
(`float`/`int`: 24-32 bytes, 32 with allocator rounding). Elements of the 1- and 2-byte types
are shared objects (`toolkit.model.examples.unpack_elements`). Measured per byte of file (held,
then peak while decoding, the file's bytes not counted): float32 8 / 9, int32 10 / 11, int8 8 / 9,
float16 and int16 5 / 7.5, double and int64 4-5.5 / 5-6.5, short strings in a `.pb` 12 / 14. So a
tree's decoded examples take at most about 10 times the budget plus the largest file's bytes
while it is read: about 700 MiB at the default 64 MiB (`tests/test_sec_examples.py` measures the
whole `opset validate` of 24 references to a 16 MiB file: about 230 MiB).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from toolkit.load.files import (
    MAX_EXAMPLE_FILE_BYTES,
    LeavesTree,
    NotRegularFile,
    SpecRoots,
    read_regular_file,
)
from toolkit.model.diagnostics import Diagnostic, UsageError
from toolkit.model.examples import Example, ExampleAttribute, ExampleTensor
from toolkit.model.npy import NpyError, read_npy
from toolkit.model.onnx_wire import WireError, read_tensor
from toolkit.model.spec import Location, OperatorSpec

BUDGET_ENV = "OPSET_TOOLKIT_MAX_EXAMPLE_BYTES"
DEFAULT_MAX_EXAMPLE_BYTES = 64 * 1024 * 1024
_UNITS = {"": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}

FILE_HINT = "write the tensor with numpy.save (.npy) or as an onnx TensorProto (.pb), beside the spec"
_WHERE_HINT = "put the file beside the spec, inside the spec tree (the path is relative to the spec's folder)"


def parse_size(text: str) -> int:
    """Bytes from `67108864`, `64M`, `64MiB`, `512k`, `1G` (binary units); ValueError otherwise."""
    value = text.strip().lower()
    digits = value.rstrip("kmgib")
    unit = value[len(digits) :]
    if not digits.isdigit() or unit not in _UNITS:
        raise ValueError(f"'{text}' is not a size (write bytes, or a number with k, M or G)")
    return int(digits) * _UNITS[unit]


def example_budget(project_folder: Path | None = None) -> int:
    """The byte budget of a tree's example files: the invoker's (`OPSET_TOOLKIT_MAX_EXAMPLE_BYTES`,
    which `--max-example-bytes` sets) or the default, lowered to the project's
    `max_example_bytes` when that is smaller: the project file found from `project_folder` (the
    tree's own; default: the working directory, where the CLI runs)."""
    raw = os.environ.get(BUDGET_ENV, "")
    try:
        invoker = parse_size(raw) if raw else DEFAULT_MAX_EXAMPLE_BYTES
    except ValueError as exc:
        raise UsageError(f"{BUDGET_ENV}: {exc}") from None
    from toolkit.load.project import load_project

    tree_limit = load_project(project_folder).max_example_bytes
    return invoker if tree_limit is None else min(invoker, tree_limit)


@dataclass(frozen=True)
class ExampleRef:
    """One `file:` of an example tensor, as the builder found it (nothing read yet)."""

    spec_path: Path  # the operator file; `name` is relative to its folder
    name: str
    at: Location  # the tensor's mapping: identifies the empty tensor left in its place
    file_at: Location  # the `file:` value: where problems with the file are reported
    # `dtype:` / `shape:` written beside it (a shape as a list), with where each is written
    declared: tuple[tuple[str, object, Location], ...] = ()


@dataclass
class _Read:
    """A file's decoded tensor, or why it has none (`problem`, with its hint)."""

    tensor: ExampleTensor | None
    problem: str = ""  # with `{name}` where the reference's name goes (files are shared by names)
    hint: str = ""


class ExampleFiles:
    """Reads the files of one tree's references (`read`), once each, within `budget` bytes."""

    def __init__(self, roots: SpecRoots, budget: int) -> None:
        self.roots = roots  # the spec files' roots: the example files must lie inside them too
        self.budget = budget
        self.charged = 0
        self.over = False
        self.by_identity: dict[tuple[int, int, int, int], _Read] = {}
        self.by_digest: dict[bytes, _Read] = {}

    def read(self, refs: Iterable[ExampleRef], diags: list[Diagnostic]) -> dict[Location, ExampleTensor]:
        """The tensor of every reference that could be read (by the location of its mapping);
        problems go to `diags`, and those references keep their empty tensor."""
        out: dict[Location, ExampleTensor] = {}
        for ref in refs:
            tensor = self._tensor(ref, diags)
            if tensor is not None:
                out[ref.at] = tensor
        return out

    def _tensor(self, ref: ExampleRef, diags: list[Diagnostic]) -> ExampleTensor | None:
        if self.over:
            return None  # the budget is spent: reported once, at the reference that crossed it

        def error(rule: str, message: str, hint: str) -> None:
            diags.append(Diagnostic(rule, message, ref.file_at, hint))

        path = ref.spec_path.parent.joinpath(*ref.name.split("/"))
        try:
            real, info = self.roots.locate(path, ref.spec_path)  # every symlink, of folders too
        except LeavesTree:
            error(
                "EXAMPLE-FILE",
                f"example file '{ref.name}' is a symlink (or lies in a symlinked folder) that leads out of the spec tree",
                "copy the file into the spec tree instead of linking to it",
            )
            return None
        except OSError as exc:  # missing, a dangling symlink or a loop
            reason = exc.strerror or "a symlink loop or a missing file"
            error("EXAMPLE-FILE", f"cannot read example file '{ref.name}': {reason}", _WHERE_HINT)
            return None
        if info.st_size > MAX_EXAMPLE_FILE_BYTES:
            error("EXAMPLE-FILE", f"example file '{ref.name}' is larger than 64 MiB", "use a smaller tensor")
            return None
        if self.charged + info.st_size > self.budget:
            self.over = True
            error(
                "EXAMPLE-BUDGET",
                f"example file '{ref.name}' ({info.st_size} bytes) takes the tree's example files past "
                f"their budget of {self.budget} bytes ({self.charged} bytes before it); "
                "example files after it are not read",
                f"use smaller example tensors, or raise the budget with --max-example-bytes SIZE or {BUDGET_ENV}"
                " (opset.toml's max_example_bytes can only lower it)",
            )
            return None
        self.charged += info.st_size
        found = self._decoded(real, info)
        if found.tensor is None:
            error("EXAMPLE-FILE", found.problem.replace("{name}", ref.name), found.hint)
            return None
        tensor = found.tensor
        for key, value, where in ref.declared:
            have: object = list(tensor.shape) if key == "shape" else tensor.dtype
            if value != have:
                diags.append(
                    Diagnostic(
                        "EXAMPLE-FILE",
                        f"`{key}: {value}` disagrees with the file '{ref.name}', which holds {have}",
                        where,
                        f"remove `{key}` (the file says it) or fix it",
                    )
                )
        # the elements are shared with every other reference to the same file
        return ExampleTensor(tensor.dtype, tensor.shape, tensor.data, file=ref.name, location=ref.at)

    def _decoded(self, real: str, info: os.stat_result) -> _Read:
        identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        found = self.by_identity.get(identity)
        if found is not None:
            return found
        try:
            data = read_regular_file(Path(real), MAX_EXAMPLE_FILE_BYTES)
        except NotRegularFile as exc:
            found = _Read(
                None, f"example file '{{name}}' is {exc.strerror}", "name a regular file inside the spec tree"
            )
        except OSError as exc:
            found = _Read(None, f"cannot read example file '{{name}}': {exc.strerror or exc}", _WHERE_HINT)
        else:
            digest = hashlib.sha256(data).digest()
            found = self.by_digest.get(digest) or _decode(real, data)
            self.by_digest.setdefault(digest, found)
        self.by_identity[identity] = found
        return found


def _decode(real: str, data: bytes) -> _Read:
    npy = real.endswith(".npy")
    try:
        return _Read(read_npy(data) if npy else read_tensor(data))
    except (NpyError, WireError) as exc:
        kind = ".npy array" if npy else "TensorProto"
        return _Read(None, f"'{{name}}' is not a usable {kind}: {exc}", FILE_HINT)


def filled(spec: OperatorSpec, tensors: dict[Location, ExampleTensor]) -> OperatorSpec:
    """`spec` with the example tensors read from files in place of the empty ones the builder
    left (the same object when none of its examples names a file that was read)."""
    if not tensors or not any(version.examples for version in spec.versions):
        return spec

    def tensor(value: ExampleTensor) -> ExampleTensor:
        return tensors.get(value.location, value) if value.file else value

    def attribute(attr: ExampleAttribute) -> ExampleAttribute:
        value = attr.value
        return replace(attr, value=tensor(value)) if isinstance(value, ExampleTensor) else attr

    def example(item: Example) -> Example:
        return replace(
            item,
            attributes=tuple(attribute(a) for a in item.attributes),
            inputs=tuple(None if t is None else tensor(t) for t in item.inputs),
            outputs=tuple(tensor(t) for t in item.outputs),
        )

    versions = tuple(
        replace(v, examples=tuple(example(e) for e in v.examples)) if v.examples else v for v in spec.versions
    )
    return replace(spec, versions=versions)
