"""Hostile spec paths and nesting (#11): files that are not regular files, symlink loops,
folder trees thousands of levels deep, the same tree under two spellings, deeply nested type
strings. Each is a located diagnostic with its rule id; nothing hangs, crashes or reads forever."""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkit.checks.run import load_specs
from toolkit.cli import main
from toolkit.load.discovery import MAX_FOLDER_DEPTH, discover
from toolkit.load.files import NotRegularFile, read_regular_file
from toolkit.model.types import MAX_TYPE_DEPTH, TypeStringError, canonical_type

ABC = Path(__file__).resolve().parent.parent / "opsets" / "org.example.abc"
LINE = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (error|warning|info)\[[A-Z0-9-]+\]: .+$"
)


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    shutil.copytree(ABC, tmp_path / "specs" / "org.example.abc")
    return tmp_path / "specs" / "org.example.abc"


def _found(paths: list[str]) -> dict[str, tuple[int, int, str]]:
    result = load_specs(paths, jobs=1)
    return {d.location.file: (d.location.line, d.location.column, d.rule) for d in result.diagnostics}


def _validate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    code = main(["validate", *argv])
    out, err = capsys.readouterr()
    lines = [line for line in (out + err).splitlines() if line and not line.startswith(" ")]
    diagnostics = [line for line in lines if "[" in line and "]: " in line]
    for line in diagnostics:
        assert LINE.match(line), line
    assert "Traceback" not in out + err and "internal error" not in out + err
    return code, diagnostics


# --------------------------------------------------------------------------- not regular files


_timers: list[threading.Timer] = []


@pytest.fixture(autouse=True)
def _no_timer_left() -> Iterator[None]:
    """Each test's FIFO timer is stopped when it ends: a thread left running makes the process
    pool refuse to fork (`parallel.can_fork`) in whatever test runs next."""
    yield
    while _timers:
        timer = _timers.pop()
        timer.cancel()
        timer.join()


def _fifo_with_timeout(path: Path) -> None:
    os.mkfifo(path)

    def unblock() -> None:  # if the loader ever opened it blocking, let the test fail, not hang
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass

    timer = threading.Timer(5.0, unblock)
    timer.daemon = True
    timer.start()
    _timers.append(timer)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev")
def test_special_files_are_refused_with_a_located_file_read(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    (tree / "Zero.yaml").symlink_to("/dev/zero")
    (tree / "Random.yaml").symlink_to("/dev/urandom")
    _fifo_with_timeout(tree / "Fifo.yaml")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tree / "Sock.yaml"))
    (tree / "Loop.yaml").symlink_to("Loop.yaml")
    (tree / "Dangling.yaml").symlink_to("nowhere.yaml")
    (tree / "Folder.yaml").mkdir()  # a folder named like a spec is walked, not read
    try:
        found = _found(["specs"])
        code, lines = _validate(capsys, "specs")
    finally:
        sock.close()
    prefix = "specs/org.example.abc/"
    for name in ("Zero.yaml", "Random.yaml", "Fifo.yaml", "Sock.yaml", "Loop.yaml", "Dangling.yaml"):
        assert found[prefix + name] == (1, 1, "FILE-READ"), name
    assert code == 1 and len(lines) == 6
    # links to /dev leave the spec tree: refused as such, nothing about the device is said
    assert sum("a symbolic link leads out of the spec tree" in line for line in lines) == 2
    assert any("a FIFO (named pipe)" in line for line in lines)
    assert any("a socket" in line for line in lines)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev")
def test_special_files_named_on_the_command_line_are_located(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    _fifo_with_timeout(tree / "Fifo.yaml")
    (tree / "Zero.yaml").symlink_to("/dev/zero")
    (tree / "Loop.yaml").symlink_to("Loop.yaml")
    for name in ("Fifo.yaml", "Zero.yaml", "Loop.yaml"):
        code, lines = _validate(capsys, f"specs/org.example.abc/{name}")
        assert (
            code == 1
            and len(lines) == 1
            and lines[0].startswith(f"specs/org.example.abc/{name}:1:1: error[FILE-READ]:")
        )
    assert main(["validate", "specs/nothing.yaml"]) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_the_registry_cache_key_never_reads_a_fifo(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.registry.core import load_registry

    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    _fifo_with_timeout(tree / "Fifo.yaml")
    (tree / "Zero.yaml").symlink_to("/dev/zero")
    registry = load_registry(["specs"], strict=False)
    assert sorted(d.rule for d in registry.diagnostics if d.rule == "FILE-READ") == ["FILE-READ"] * 2


def test_read_regular_file_stops_after_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * 1000)
    assert len(read_regular_file(big, 10)) == 11
    with pytest.raises(NotRegularFile) as info:
        read_regular_file(tmp_path, 10)
    assert info.value.strerror == "a directory, not a regular file"
    assert stat.S_ISDIR(os.stat(tmp_path).st_mode)


# --------------------------------------------------------------------------- deep folders


def _deep_folders(top: Path, levels: int) -> None:
    """`levels` nested folders `a/a/...` with a spec at the bottom, made through directory
    descriptors: the full path would be longer than the OS allows."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        handle = os.open("Deep.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(handle, b"operator: Deep\n")
        os.close(handle)
    finally:
        os.close(fd)


def _remove_deep_folders(top: Path) -> None:
    """Remove `a/a/...` under `top` without recursion (shutil.rmtree, and pytest's clean-up of
    old temp folders, recurse once per level)."""
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(top)
        depth = 0
        while os.path.isdir("a"):
            os.chdir("a")
            depth += 1
        for name in os.listdir("."):
            os.unlink(name)
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("a")
    finally:
        os.fchdir(here)
        os.close(here)


@pytest.mark.parametrize("levels", [MAX_FOLDER_DEPTH + 1, 1_100])  # past the recursion limit
def test_deep_folder_trees_are_located(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, levels: int
) -> None:
    # On tmpfs when there is one: removing a deep chain of folders is slow on disk file systems.
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(dir=shm) as scratch:
        monkeypatch.chdir(scratch)
        monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
        tree = Path(scratch) / "specs" / "org.example.abc"
        shutil.copytree(ABC, tree)
        _deep_folders(tree, levels)
        try:
            code, lines = _validate(capsys, "specs")
        finally:
            _remove_deep_folders(tree)
    first = "specs/" + "/".join(["org.example.abc", *["a"] * MAX_FOLDER_DEPTH])
    assert code == 1 and lines == [
        f"{first}:1:1: error[FILE-DEPTH]: folder is nested more than {MAX_FOLDER_DEPTH} levels "
        "below the spec path; nothing in it is read"
    ]


def test_folders_up_to_the_limit_are_read(tree: Path) -> None:
    deep = tree.parent / "/".join(["g"] * (MAX_FOLDER_DEPTH - 1))
    deep.mkdir(parents=True)
    (deep / "X.yaml").write_text("")
    assert (deep / "X.yaml") in discover([tree.parent])


def test_discovery_keeps_os_walk_choices(tree: Path) -> None:
    (tree / ".hidden").mkdir()
    (tree / ".hidden" / "H.yaml").write_text("")
    (tree.parent / "linked").symlink_to(tree, target_is_directory=True)  # folder links: not followed
    (tree / "notes.txt").write_text("")
    files = discover([tree.parent])
    assert files == sorted(files) and all(p.suffix == ".yaml" for p in files)
    assert not any(".hidden" in p.parts or "linked" in p.parts for p in files)


# --------------------------------------------------------------------------- one tree, two spellings


def test_the_same_tree_twice_is_read_once(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "again").symlink_to(tree.parent, target_is_directory=True)
    once = discover(["specs"])
    for spellings in (["specs", str(tree.parent)], ["specs", "again"], ["specs", "specs/../specs", "specs/"]):
        assert [p.name for p in discover(spellings)] == [p.name for p in once], spellings
        assert not any(d.rule == "NAME-DUPLICATE" for d in load_specs(spellings, jobs=1).diagnostics)


def test_a_symlinked_file_is_one_file(tree: Path) -> None:
    (tree.parent / "B.yaml").symlink_to(tree / "B.yaml")
    # domain.yaml comes along: a single operator file is read with the domain file beside it
    assert [p.name for p in discover([tree / "B.yaml", tree.parent / "B.yaml"])] == ["B.yaml", "domain.yaml"]


# --------------------------------------------------------------------------- type strings


@pytest.mark.parametrize("kind", ["seq", "optional", "map(int64, "])
def test_deep_type_strings_are_refused(kind: str) -> None:
    opener = kind if kind.endswith(" ") else f"{kind}("
    for levels in (MAX_TYPE_DEPTH + 1, 1_000, 100_000):
        with pytest.raises(TypeStringError, match=f"nested more than {MAX_TYPE_DEPTH} levels"):
            canonical_type(opener * levels + "tensor(float)" + ")" * levels)
    fine = opener * (MAX_TYPE_DEPTH - 1) + "tensor(float)" + ")" * (MAX_TYPE_DEPTH - 1)
    assert canonical_type(fine).endswith("tensor(float)" + ")" * (MAX_TYPE_DEPTH - 1))


def test_type_string_messages_quote_a_bounded_excerpt() -> None:
    with pytest.raises(TypeStringError) as info:
        canonical_type("seq(" * 5_000 + "tensor(float)" + ")" * 5_000)
    assert len(str(info.value)) < 300 and "..." in str(info.value)
