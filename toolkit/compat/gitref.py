"""Load the old tree of a diff from a git ref, straight from git objects (no checkout).

`toolkit.load.gittree` lists the spec files under the requested paths at the ref and reads
their blobs into memory (nothing is written: a hostile tree's `..` entries name no file), and
the loader reads them from there with a display mapping, so locations in findings show
repository paths (relative to the working directory, like the new tree's). Every git call goes
through `toolkit.load.git.run_git` (nothing the repository configures is run). The loaded result is cached by the
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
import shlex
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.compat.base_paths import base_paths
from toolkit.load import cache as disk_cache
from toolkit.load import result_cache
from toolkit.load.files import SpecRoots, is_inside
from toolkit.load.git import GitOutputTooLarge, GitResult, run_git
from toolkit.load.gittree import read_tree
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


def _git(args: Sequence[str], cwd: Path) -> GitResult:
    try:
        return run_git(args, cwd)
    except OSError as exc:
        raise _no_git(exc) from None
    except GitOutputTooLarge as exc:
        raise UsageError(
            f"{exc}\n  hint: this is not a normal repository; run the command in another clone"
        ) from None


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
    # The paths read at the ref are the base's own (`base_paths`), never only the new tree's.
    wanted = [_repo_relative(Path(p), here, top) for p in spec_paths]
    base = base_paths(commit, wanted, top, f"--against {ref}")
    note = "\n".join(n for n in (note, base.note) if n)
    prefixes = list(base.prefixes)
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
    try:
        result = _read_and_load(
            tree.commit, list(tree.prefixes), tree.top, tree.here, f"--against {tree.label}"
        )
    except OSError as exc:
        raise _no_git(exc) from None
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
    return Path(os.fsdecode(proc.stdout.rstrip(b"\n"))).resolve()


def _resolve(ref: str, top: Path, here: Path) -> str:
    """A commit sha for `ref`; `REF...` (git's notation) means the merge base of REF and HEAD."""
    if ref.endswith("...") and len(ref) > 3:
        return _merge_base(ref, _resolve(ref[:-3], top, here), top)
    notation = _not_one_commit(ref)
    if notation is not None:
        raise notation
    proc = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], top)
    commit = proc.stdout.decode("utf-8", "replace").strip()
    if proc.returncode == 0 and _OBJECT_ID.match(commit):
        return commit
    if _names_a_directory(ref, here):
        raise _no_such_directory(ref)
    shallow = _git(["rev-parse", "--is-shallow-repository"], top).text() == "true"
    depth = _generations(ref)
    if depth is not None:
        raise _missing_ancestor(ref, depth, shallow)
    # The refspec names the destination: a single-branch clone (`git clone --depth 1`,
    # `--branch X`, actions/checkout) fetches `git fetch origin main` into FETCH_HEAD only,
    # and `origin/main` would still not exist.
    # No branch or tag is spelled so (git refuses a ref name starting with `-`, and a fetch
    # would read it as an option): there is nothing to fetch.
    if _REFNAME_INVALID.search(ref) or ref.startswith("-"):
        raise UsageError(
            f"--against {ref}: no such commit\n"
            "  hint: pass a branch, a tag or a commit id (`git log --oneline` lists them); "
            "a directory path is also accepted"
        )
    # The ref is pasted into a command the user may copy into a shell (it may come from the
    # environment, PRE_COMMIT_FROM_REF): quoted, so `$(...)` or `;` in it stays text.
    remote, _, branch = ref.partition("/")
    remotes = _git(["remote"], top).text().split()
    # Where the ref would be fetched from: its own remote, else origin. Without it, a fetch fails.
    no_remote = "origin" not in remotes and not (branch and remote in remotes)
    names_origin = branch != "" and remote == "origin"
    if (
        not (no_remote and names_origin)
        and _git(["rev-parse", "--verify", "--quiet", "HEAD"], top).returncode
    ):
        raise UsageError(  # a fresh `git init`: nothing was committed, so nothing is released either
            f"--against {ref}: this repository has no commit yet, so there is nothing to compare with "
            "(every spec is new)\n"
            "  hint: commit the specs first (`git add -A && git commit`); later changes are then "
            "compared with a commit"
        )
    if no_remote:
        raise UsageError(
            f"--against {ref}: no such git ref or commit, and this repository has no remote named origin\n"
            "  hint: check the spelling (`git branch -a`, `git tag`, `git remote -v`), or add the "
            "remote (`git remote add origin URL`) and fetch; a directory path is also accepted"
        )
    if branch and remote in remotes:
        refspec = f"{shlex.quote(remote)} {shlex.quote(f'{branch}:refs/remotes/{remote}/{branch}')}"
    else:
        refspec = f"origin {shlex.quote(f'{ref}:{ref}')}"
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


_OBJECT_ID = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
# What git's check-ref-format refuses in any ref name (besides the `^`, `:` forms below).
_REFNAME_INVALID = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^/|/$|\.lock$|\.$")
_PEEL = re.compile(r"\^\{(?!commit\}|\})[^}]*\}$")


def _not_one_commit(ref: str) -> UsageError | None:
    """A usage error for git revision notation that names no single commit (an exclusion, a
    range, a path in a tree, a peel to a tree), saying what to pass instead; None otherwise."""
    problems = (
        (
            ref.startswith("^"),
            "`^REF` excludes REF's history (range notation); it names no commit",
            f"pass the commit itself: --against {shlex.quote(ref.lstrip('^') or 'main')}",
        ),
        (
            ".." in ref,
            "`A..B` and `A...B` are ranges of commits, not one commit",
            f"pass the old side: --against {shlex.quote(ref.split('..')[0] or 'main')}, or "
            f"`{shlex.quote((ref.split('..')[0] or 'main') + '...')}` "
            "for its merge base with HEAD",
        ),
        (
            ref.endswith(("^!", "^@")) or ref.endswith("^-") or bool(re.search(r"\^-[0-9]*$", ref)),
            "`^!`, `^@` and `^-` name sets of commits",
            "pass one commit, such as REF^ (its first parent) or REF~2",
        ),
        (
            ":" in ref,
            "`REF:path` names a file or folder in a commit and `:/text` searches messages, not one commit",
            "pass the commit (--against main); --specs chooses the spec folder",
        ),
        (
            bool(_PEEL.search(ref)),
            "`^{tree}`, `^{blob}` and `^{tag}` name other objects than a commit",
            "pass the commit (drop the `^{...}`)",
        ),
    )
    for applies, what, hint in problems:
        if applies:
            return UsageError(f"--against {ref}: {what}\n  hint: {hint}")
    return None


def _merge_base(ref: str, commit: str, top: Path) -> str:
    proc = _git(["merge-base", commit, "HEAD"], top)
    if proc.returncode != 0:
        name = ref[:-3] if ref.endswith("...") else ref
        raise UsageError(
            f"--against {ref}: {name} and HEAD have no common ancestor in this clone\n"
            "  hint: fetch more history (`git fetch --unshallow`; actions/checkout `fetch-depth: 0`)"
        )
    return proc.text()


def _is_branch(ref: str, top: Path) -> bool:
    """A local or remote-tracking branch (not a tag, a commit or `HEAD~2`)."""
    if ref.startswith("-"):  # never an option (rev-parse --symbolic-full-name takes no --end-of-options)
        return False
    proc = _git(["rev-parse", "--symbolic-full-name", ref], top)
    full = proc.text() if proc.returncode == 0 else ""
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
    return (
        ref in (".", "..")
        or ref.startswith(("/", "./", "../", "~/", ".\\", "..\\"))
        or bool(re.match(r"^[A-Za-z]:[\\/]", ref))
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
        digest.update(f"{prefix}\0{proc.text() or commit}\n".encode())
    return digest.hexdigest()


def _read_and_load(commit: str, prefixes: list[str], top: Path, here: Path, what: str) -> LoadResult:
    """Load the spec files under `prefixes` at `commit` from memory (`toolkit.load.gittree`)."""

    def name(repo_path: str) -> str:
        return os.path.relpath(top / repo_path, here)

    tree = read_tree(commit, prefixes, top, name, what)
    if not tree.blobs:
        from toolkit.model.spec import SpecSet

        return LoadResult(SpecSet(), tree.diagnostics, 0)
    from toolkit.checks.run import load_specs  # the loader: only when the tree is read

    # An empty folder of our own anchors the in-memory files. Nothing is written to it; only spec
    # files are read from the ref, so an example file an old spec names (the example builder
    # reads it from disk beside the spec) is missing there, never the work tree's file.
    with tempfile.TemporaryDirectory(prefix="opset-ref-") as tmp:
        anchor = Path(tmp)
        contents = {anchor / path: data for path, data in tree.blobs.items()}

        def display(path: Path) -> str:
            return name(path.relative_to(anchor).as_posix())

        result = load_specs(sorted(contents), display=display, contents=contents)
    if tree.diagnostics:
        result.diagnostics = sorted([*result.diagnostics, *tree.diagnostics], key=sort_key)
    return result


def _no_git(exc: OSError) -> UsageError:
    return UsageError(
        f"git cannot be run ({exc.strerror or exc})\n"
        "  hint: install git and put it on PATH, or pass a directory holding the old specs to --against"
    )


# --------------------------------------------------------------------------- spec roots, hook base


def spec_roots(cwd: Path | None = None) -> list[str]:
    """The spec folders of the work tree: the parent of every folder holding a `domain.yaml` (or a
    misnamed `domain.yml`; tracked, or new and not ignored), relative to `cwd`; a folder inside
    another is left out (loading the outer one reads it). What `opset pre-commit` checks without `--specs`."""
    here = Path(cwd or Path.cwd()).resolve()
    top = _toplevel(here)
    proc = _git(
        # domain.yml too: the loader reports it as misnamed, rather than the hook skipping the tree.
        [
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
            "--",
            ":(top,glob)**/domain.yaml",
            ":(top,glob)**/domain.yml",
        ],
        here,
    )
    if proc.returncode != 0:
        raise UsageError(
            f"git could not list the work tree's domain.yaml files: {proc.stderr}\n"
            "  hint: run the hook inside a git work tree, or name the spec folders with --specs"
        )
    # The names come from the tree, so the roots are built from them lexically and confined to
    # the repository like every other path of the tree: a committed `domain.yaml` that is a
    # symlink (or lies behind one) leading elsewhere must not make a folder outside the
    # repository a trusted `--specs` root of the commands the hook runs.
    inside = SpecRoots([top])
    roots: set[Path] = set()
    for raw in proc.stdout.split(b"\0"):
        name = os.fsdecode(raw)  # a name that is not UTF-8 is still the file's name
        root = _root_of_domain_file(Path(os.path.normpath(here / name)), top, inside) if name else None
        if root is not None:
            roots.add(root)
    kept = [r for r in sorted(roots) if not any(o != r and o in r.parents for o in roots)]
    return [os.path.relpath(r, here) for r in kept]


def _root_of_domain_file(path: Path, top: Path, inside: SpecRoots) -> Path | None:
    """The spec root of the domain file `path` (the parent of its domain folder; `top` for one
    at the top), when `path` is a regular file, not a symlink, and its real path and the root's
    lie inside the repository `top`; None otherwise, also when it was deleted in the work tree."""
    folder = path.parent
    root = folder.parent if folder != top else folder
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return None
        _, info = inside.locate(path)
        real_root = os.path.realpath(root)
    except OSError:  # missing, a dangling link or a loop; LeavesTree
        return None
    return root if stat.S_ISREG(info.st_mode) and is_inside(real_root, os.fspath(top)) else None


def hook_base(from_ref: str, to_ref: str, cwd: Path | None = None) -> str:
    """The old tree of a pre-commit run over a range (PRE_COMMIT_FROM_REF / _TO_REF): the merge
    base of the two, as pre-commit's own `git diff FROM...TO` takes it; FROM itself when git
    knows no merge base."""
    here = Path(cwd or Path.cwd()).resolve()
    top = _toplevel(here)
    proc = _git(["merge-base", "--end-of-options", from_ref, to_ref], top)
    return proc.text() if proc.returncode == 0 else from_ref


def has_head(cwd: Path | None = None) -> bool:
    """Whether the repository has a commit yet (a fresh `git init` has none)."""
    here = Path(cwd or Path.cwd()).resolve()
    return _git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], here).returncode == 0
