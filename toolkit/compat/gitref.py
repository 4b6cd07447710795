"""Load the old tree of a diff from a git ref, straight from git objects (no checkout).

`git ls-tree -r` lists the spec files under the requested paths at the ref, `git cat-file
--batch` streams their blobs into a temporary directory, and the loader reads them with a
display mapping, so locations in findings show repository paths (relative to the working
directory, like the new tree's) rather than temp paths. The loaded result is cached by the
git tree ids of the spec folders, so a warm diff against an unchanged ref skips git and YAML.
Works from any subfolder of the work tree. `REF...` (git's notation) diffs against the merge
base of REF and HEAD, which is what a pull-request gate wants.

A BRANCH given without the dots (`main`, `origin/main`) that is not an ancestor of HEAD (the
branch moved on after HEAD forked from it; a CI that tests the branch tip sees this) is
compared at the merge base too, with a note: comparing with the branch tip would report the
work done on the branch since the fork as removed from HEAD (VERSION-REMOVED, OPSET-REMOVED).
Tags and commits are always taken exactly: a release tag on a maintenance branch is the tree
to compare with, not its merge base.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.load import cache as disk_cache
from toolkit.load import result_cache
from toolkit.load.discovery import MAX_FOLDER_DEPTH, SPEC_SUFFIXES, too_deep_diagnostic
from toolkit.load.result import LoadResult
from toolkit.model.diagnostics import UsageError, sort_key
from toolkit.registry.core import toolkit_stamp

CACHE_FORMAT = 2


@dataclass(frozen=True)
class GitTree:
    result: LoadResult
    commit: str  # full sha
    label: str  # the ref as the user wrote it (plus the merge base when one was taken)
    note: str = ""  # said on stderr: why the tree is not the ref's own (see the module docstring)


def _git(args: Sequence[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed; pass a directory to --against instead") from None


def looks_like_git_ref(ref: str, cwd: Path | None = None) -> bool:
    """A path that exists is a directory tree; anything else is taken as a git ref."""
    return not (Path(cwd or Path.cwd()) / ref).exists()


@dataclass(frozen=True)
class GitTreeRef:
    """A ref resolved to the commit whose spec tree is compared, before anything is loaded."""

    commit: str  # full sha
    label: str
    note: str
    key: str  # the load result's cache entry ("" when caching is off)
    prefixes: tuple[str, ...]  # the spec paths, relative to the repository's top
    top: Path
    here: Path


def resolve_git_tree(
    ref: str, spec_paths: Sequence[str], cwd: Path | None = None, cache: bool = True
) -> GitTreeRef:
    """Which commit `ref` means for the diff (see the module docstring) and where its load result
    is cached; git is asked for refs and tree ids only."""
    here = Path(cwd or Path.cwd()).resolve()
    if looks_like_path(ref):
        raise _no_such_directory(ref)
    top = _toplevel(here)
    commit = _resolve(ref, top, here)
    label, note = ref, ""
    if not ref.endswith("...") and _is_branch(ref, top) and not _is_ancestor(commit, top):
        commit = _merge_base(ref, commit, top)
        label = f"{ref} (merge base {commit[:12]})"
        note = (
            f"note: --against {ref}: the branch has moved on since HEAD forked from it, so the diff "
            f"compares with their merge base {commit[:12]} (what `{ref}...` means); the branch's "
            "newer work is not reported as removed. Pass a tag or a commit to compare with an exact tree."
        )
    prefixes = [_repo_relative(Path(p), here, top) for p in spec_paths]
    use_cache = cache and disk_cache.enabled()
    key = f"git-{_cache_key(commit, prefixes, top, here)}" if use_cache else ""
    return GitTreeRef(commit, label, note, key, tuple(prefixes), top, here)


def load_git_tree(
    ref: str, spec_paths: Sequence[str], cwd: Path | None = None, cache: bool = True
) -> GitTree:
    """Load the spec files under `spec_paths` (relative to `cwd`) as they are at `ref`."""
    return load_resolved_tree(resolve_git_tree(ref, spec_paths, cwd, cache))


def load_resolved_tree(tree: GitTreeRef) -> GitTree:
    if tree.key:
        cached = result_cache.fetch(tree.key)
        if cached is not None:
            return GitTree(cached, tree.commit, tree.label, tree.note)
    result = _extract_and_load(tree.commit, list(tree.prefixes), tree.top, tree.here)
    if tree.key:
        result_cache.store(tree.key, result)
    return GitTree(result, tree.commit, tree.label, tree.note)


def _toplevel(here: Path) -> Path:
    proc = _git(["rev-parse", "--show-toplevel"], here)
    if proc.returncode != 0:
        raise UsageError(
            f"--against: '{here}' is not inside a git work tree, so a git ref cannot be read\n"
            "  hint: pass a directory holding the old specs instead (--against path/to/old/opsets)"
        )
    return Path(proc.stdout.decode().strip()).resolve()


def _resolve(ref: str, top: Path, here: Path) -> str:
    """A commit sha for `ref`; `REF...` (git's notation) means the merge base of REF and HEAD."""
    if ref.endswith("...") and len(ref) > 3:
        return _merge_base(ref, _resolve(ref[:-3], top, here), top)
    proc = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], top)
    if proc.returncode == 0:
        return proc.stdout.decode().strip()
    if _names_a_directory(ref, here):
        raise _no_such_directory(ref)
    shallow = _git(["rev-parse", "--is-shallow-repository"], top).stdout.decode().strip() == "true"
    depth = _generations(ref)
    if depth is not None:
        raise _missing_ancestor(ref, depth, shallow)
    # The refspec names the destination: a single-branch clone (`git clone --depth 1`,
    # `--branch X`, actions/checkout) fetches `git fetch origin main` into FETCH_HEAD only,
    # and `origin/main` would still not exist.
    remote, _, branch = ref.partition("/")
    if branch and (remote == "origin" or remote in _git(["remote"], top).stdout.decode().split()):
        refspec = f"{remote} {branch}:refs/remotes/{remote}/{branch}"
    else:
        remote, refspec = "origin", f"origin {ref}:{ref}"
    fetch = f"git fetch {refspec}"
    if shallow:
        raise UsageError(
            f"--against {ref}: the ref is not in this clone, which is shallow (history was cut off)\n"
            f"  hint: fetch it with its history: `git fetch --unshallow {refspec}`; "
            "in GitHub Actions use actions/checkout with `fetch-depth: 0`"
        )
    raise UsageError(
        f"--against {ref}: no such git ref or commit\n"
        f"  hint: check the spelling (`git branch -a`, `git tag`), or fetch it with `{fetch}`; "
        "a directory path is also accepted"
    )


def _merge_base(ref: str, commit: str, top: Path) -> str:
    proc = _git(["merge-base", commit, "HEAD"], top)
    if proc.returncode != 0:
        name = ref[:-3] if ref.endswith("...") else ref
        raise UsageError(
            f"--against {ref}: {name} and HEAD have no common ancestor in this clone\n"
            "  hint: fetch more history (`git fetch --unshallow`; actions/checkout `fetch-depth: 0`)"
        )
    return proc.stdout.decode().strip()


def _is_branch(ref: str, top: Path) -> bool:
    """A local or remote-tracking branch (not a tag, a commit or `HEAD~2`)."""
    if ref.startswith("-"):  # never an option (rev-parse --symbolic-full-name takes no --end-of-options)
        return False
    proc = _git(["rev-parse", "--symbolic-full-name", ref], top)
    full = proc.stdout.decode().strip() if proc.returncode == 0 else ""
    return full.startswith(("refs/heads/", "refs/remotes/"))


def _is_ancestor(commit: str, top: Path) -> bool:
    return _git(["merge-base", "--is-ancestor", commit, "HEAD"], top).returncode == 0


_RELATIVE = re.compile(r"^(?P<base>[^~^]+)(?P<steps>(?:[~^][0-9]*)+)$")


def _generations(ref: str) -> int | None:
    """How many commits back a relative ref (`HEAD~3`, `main^^`, `v1^2`) reaches; None otherwise."""
    match = _RELATIVE.match(ref)
    if match is None:
        return None
    total = 0
    for step in re.findall(r"[~^][0-9]*", match.group("steps")):
        count = int(step[1:]) if len(step) > 1 else 1
        total += count if step[0] == "~" else 1  # `^N` is the N-th parent: one generation back
    return total


def _missing_ancestor(ref: str, depth: int, shallow: bool) -> UsageError:
    if shallow:
        return UsageError(
            f"--against {ref}: {ref} is {depth} commit(s) back, beyond the history of this shallow clone\n"
            f"  hint: fetch that much more history with `git fetch --deepen={depth}`, or all of it with "
            "`git fetch --unshallow`; in GitHub Actions use actions/checkout with `fetch-depth: 0`"
        )
    return UsageError(
        f"--against {ref}: no such commit (the history has fewer than {depth} commit(s) before it, or the "
        "name before `~`/`^` is unknown)\n"
        "  hint: `git log --oneline` shows the history; a directory path is also accepted"
    )


def looks_like_path(ref: str) -> bool:
    """Values only a file system path can be: absolute, `./`, `../`, `~/`, a drive letter."""
    return ref in (".", "..") or ref.startswith(("/", "./", "../", "~/", ".\\", "..\\")) or bool(
        re.match(r"^[A-Za-z]:[\\/]", ref)
    )


def _names_a_directory(ref: str, here: Path) -> bool:
    """A path-like value, or `a/b` whose first part is a folder here: meant as a directory."""
    first = re.split(r"[\\/]", ref, maxsplit=1)[0]
    return looks_like_path(ref) or (first != ref and (here / first).is_dir())


def _no_such_directory(ref: str) -> UsageError:
    return UsageError(
        f"--against {ref}: no such directory\n"
        "  hint: pass a directory holding the old specs, or a git ref (branch, tag, commit, HEAD~1)"
    )


def _repo_relative(path: Path, here: Path, top: Path) -> str:
    absolute = (here / path).resolve() if not path.is_absolute() else path.resolve()
    try:
        rel = absolute.relative_to(top)
    except ValueError:
        raise UsageError(
            f"--specs {path}: outside the git work tree {top}, cannot be read from a ref"
        ) from None
    return rel.as_posix() if str(rel) != "." else ""


def _cache_key(commit: str, prefixes: list[str], top: Path, here: Path) -> str:
    digest = hashlib.sha256(f"{CACHE_FORMAT}:{toolkit_stamp()}:{here}:{top}".encode())
    for prefix in prefixes:
        # the tree id changes exactly when something below the prefix changes
        proc = _git(["rev-parse", "--verify", "--quiet", f"{commit}:{prefix}"], top)
        digest.update(f"{prefix}\0{proc.stdout.decode().strip() or commit}\n".encode())
    return digest.hexdigest()


def _extract_and_load(commit: str, prefixes: list[str], top: Path, here: Path) -> LoadResult:
    entries: dict[str, str] = {}  # repo path -> blob sha
    too_deep: set[str] = set()  # the first folder not entered, as discovery reports it
    for prefix in prefixes:
        args = ["ls-tree", "-r", "-z", "--full-tree", commit]
        if prefix:
            args += ["--", prefix]
        proc = _git(args, top)
        if proc.returncode != 0:
            raise UsageError(f"git ls-tree failed: {proc.stderr.decode().strip()}")
        for record in proc.stdout.decode().split("\0"):
            if not record:
                continue
            meta, _, path = record.partition("\t")
            _mode, kind, sha = meta.split()
            if kind == "blob" and path.endswith(SPEC_SUFFIXES):
                folder = _too_deep_folder(path, prefix)
                if folder is None:
                    entries[path] = sha
                else:
                    too_deep.add(folder)
    with tempfile.TemporaryDirectory(prefix="opset-ref-") as tmp:
        root = Path(tmp)
        _write_blobs(entries, root, top)
        roots = [root / p if p else root for p in prefixes]
        existing = [r for r in roots if r.exists()]

        def display(path: Path) -> str:
            repo_path = top / path.relative_to(root)
            return os.path.relpath(repo_path, here)

        if not existing:
            from toolkit.model.spec import SpecSet

            result = LoadResult(SpecSet(), [], 0)
        else:
            from toolkit.checks.run import load_specs  # the loader: only when the tree is read

            result = load_specs(existing, display=display)
        if too_deep:
            found = [too_deep_diagnostic(display(root / folder)) for folder in sorted(too_deep)]
            result.diagnostics = sorted([*result.diagnostics, *found], key=sort_key)
        return result


def _too_deep_folder(path: str, prefix: str) -> str | None:
    """The first folder of `path` deeper than discovery enters below `prefix`, or None; such
    files are not even written out (a tree thousands of folders deep cannot be)."""
    below = path[len(prefix) :].lstrip("/").split("/") if prefix else path.split("/")
    if len(below) - 1 <= MAX_FOLDER_DEPTH:
        return None
    parts = below[: MAX_FOLDER_DEPTH + 1]
    return "/".join([prefix, *parts] if prefix else parts)


def _write_blobs(entries: dict[str, str], root: Path, top: Path) -> None:
    if not entries:
        return
    paths = sorted(entries)
    request = "".join(f"{entries[p]}\n" for p in paths).encode()
    proc = _git(["cat-file", "--batch"], top, stdin=request)
    if proc.returncode != 0:
        raise UsageError(f"git cat-file failed: {proc.stderr.decode().strip()}")
    data, offset = proc.stdout, 0
    for path in paths:
        end = data.index(b"\n", offset)
        header = data[offset:end].split()
        if len(header) != 3 or header[1] != b"blob":
            raise UsageError(f"git cat-file: unexpected reply for {path}: {data[offset:end].decode()}")
        size = int(header[2])
        content = data[end + 1 : end + 1 + size]
        offset = end + 1 + size + 1  # the blob is followed by a newline
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


# --------------------------------------------------------------------------- spec roots, hook base


def spec_roots(cwd: Path | None = None) -> list[str]:
    """The spec folders of the work tree: the parent of every folder holding a `domain.yaml` (or a
    misnamed `domain.yml`; tracked, or new and not ignored), relative to `cwd`; a folder inside
    another is left out (loading the outer one reads it). What `opset pre-commit` checks without `--specs`."""
    here = Path(cwd or Path.cwd()).resolve()
    top = _toplevel(here)
    proc = _git(
        # domain.yml too: the loader reports it as misnamed, rather than the hook skipping the tree.
        ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ":(top,glob)**/domain.yaml",
         ":(top,glob)**/domain.yml"],
        here,
    )
    if proc.returncode != 0:
        raise UsageError(f"git ls-files failed: {proc.stderr.decode().strip()}")
    roots: set[Path] = set()
    for name in proc.stdout.decode().split("\0"):
        domain_file = (here / name).resolve() if name else None
        if domain_file is None or not domain_file.is_file():
            continue  # deleted in the work tree
        folder = domain_file.parent
        roots.add(folder.parent if folder != top else folder)
    kept = [r for r in sorted(roots) if not any(o != r and o in r.parents for o in roots)]
    return [os.path.relpath(r, here) for r in kept]


def hook_base(from_ref: str, to_ref: str, cwd: Path | None = None) -> str:
    """The old tree of a pre-commit run over a range (PRE_COMMIT_FROM_REF / _TO_REF): the merge
    base of the two, as pre-commit's own `git diff FROM...TO` takes it; FROM itself when git
    knows no merge base."""
    here = Path(cwd or Path.cwd()).resolve()
    top = _toplevel(here)
    proc = _git(["merge-base", "--end-of-options", from_ref, to_ref], top)
    return proc.stdout.decode().strip() if proc.returncode == 0 else from_ref


def has_head(cwd: Path | None = None) -> bool:
    """Whether the repository has a commit yet (a fresh `git init` has none)."""
    here = Path(cwd or Path.cwd()).resolve()
    return _git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], here).returncode == 0
