"""A corpus of real producers' ONNX models, built at test time.

Nothing here is committed model data: every model is made on the spot by the producer that
users run (skl2onnx over scikit-learn estimators, onnxruntime's quantizer, onnxruntime's
transformers optimizer, onnxruntime's offline graph optimizer, onnxconverter-common's float16
converter), so the tests judge the toolkit on what those producers really write.

API (used by the check-model tests and by `opset convert`'s tests):

    build_corpus(out_dir) -> list[ProducedModel]

`ProducedModel` holds the model's `name` (unique, also its file stem), `path`, `producer`
(e.g. "skl2onnx", "ort.quantize_static.qdq", "ort.transformers", "ort.offline", "float16"),
`feeds` (input name -> value to run it with: numpy arrays, dicts for map inputs),
`runs_in_ort` (onnxruntime loads it and runs it on `feeds`), `checker_ok`
(`onnx.checker.check_model(full_check=True)` accepts it), `domains` (the domains its nodes use)
and `note` (why it does not run or check, when it does not).

Models are tiny (a few dozen samples, a handful of features) and deterministic: fixed seeds, built
in a fresh interpreter with a fixed hash seed, so the same producer versions write the same bytes.
`build_corpus` writes `manifest.json` beside the models and reuses the folder when the manifest
was written by the same producer versions, so a developer's second run costs nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

MANIFEST = "manifest.json"
PRODUCER_PACKAGES = ("onnx", "onnxruntime", "skl2onnx", "scikit-learn", "onnxconverter-common", "numpy")


@dataclass(frozen=True)
class ProducedModel:
    name: str
    path: Path
    producer: str
    feeds: dict[str, Any]
    runs_in_ort: bool = False
    checker_ok: bool = False
    domains: tuple[str, ...] = ()
    note: str = ""

    @property
    def vendor(self) -> bool:
        """Does the model use a domain onnx does not define (com.microsoft, ...)?"""
        return any(d not in ("", "ai.onnx", "ai.onnx.ml") for d in self.domains)


# A builder writes its models into the folder and yields (name, producer, feeds) per model.
Builder = Callable[[Path], Iterator[tuple[str, str, dict[str, Any]]]]


def producer_versions() -> dict[str, str]:
    out = {}
    for package in PRODUCER_PACKAGES:
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "absent"
    return out


def build_corpus(out_dir: str | Path, *, groups: tuple[str, ...] = ()) -> list[ProducedModel]:
    """Build (or reuse) the corpus in `out_dir`; `groups` picks builder groups (default all).

    The build runs in a fresh interpreter: skl2onnx numbers some names (KNN's Scan bodies) with a
    process-wide counter, so the same build in a process that converted models before would
    write other bytes; and with a fixed hash seed, since some producers iterate over sets of
    strings (string class labels, vocabularies). Same producer versions, same bytes."""
    from producer_corpus_groups import BUILDERS

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    wanted = groups or tuple(BUILDERS)
    versions = producer_versions()
    cached = _read_manifest(out, versions, wanted)
    if cached is None:
        code = "import sys; sys.path.insert(0, sys.argv[1]); import producer_corpus as c; c.build_here(sys.argv[2], sys.argv[3:])"
        here = Path(__file__).resolve().parent
        env = {**os.environ, "PYTHONHASHSEED": "0"}  # producers iterate over sets of strings
        proc = subprocess.run(
            [sys.executable, "-c", code, str(here), str(out), *wanted],
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"building the producer corpus failed:\n{proc.stderr[-4000:]}")
        cached = _read_manifest(out, versions, wanted)
        assert cached is not None, "the corpus build wrote no usable manifest"
    return cached


def build_here(out_dir: str | Path, groups: list[str]) -> None:
    """Run the builders in this process and write the manifest (build_corpus runs this in a
    fresh interpreter)."""
    from producer_corpus_groups import BUILDERS

    out = Path(out_dir)
    produced: list[ProducedModel] = []
    for group in groups:
        for name, producer, feeds in BUILDERS[group](out):
            produced.append(_judge(out / f"{name}.onnx", name, producer, feeds))
    names = [p.name for p in produced]
    assert len(names) == len(set(names)), "model names must be unique"
    _write_manifest(out, producer_versions(), tuple(groups), produced)


def _judge(path: Path, name: str, producer: str, feeds: dict[str, Any]) -> ProducedModel:
    """Run the model in onnxruntime and through onnx.checker(full_check=True)."""
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(path))
    domains = sorted({n.domain for n in _all_nodes(model.graph)} | {f.domain for f in model.functions})
    notes = []
    try:
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        session.run(None, feeds)
        runs = True
    except Exception as exc:  # onnxruntime raises its own exception types
        runs = False
        notes.append(f"onnxruntime: {_first_line(exc, path)}")
    try:
        onnx.checker.check_model(model, full_check=True)
        checked = True
    except Exception as exc:  # onnx's ValidationError / InferenceError
        checked = False
        notes.append(f"onnx.checker: {_first_line(exc, path)}")
    return ProducedModel(name, path, producer, feeds, runs, checked, tuple(domains), "; ".join(notes))


def _first_line(exc: Exception, path: Path) -> str:
    """The message's first line, without the corpus folder (same note wherever it is built)."""
    return str(exc).replace(str(path.parent) + "/", "").splitlines()[0][:300]


def _all_nodes(graph: Any) -> Iterator[Any]:
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.HasField("g"):
                yield from _all_nodes(attr.g)
            for sub in attr.graphs:
                yield from _all_nodes(sub)


# The manifest: plain JSON, feeds included (arrays as dtype/shape/flat list, maps as lists).


def _encode_feed(value: Any) -> dict[str, Any]:
    if isinstance(value, np.ndarray):
        return {"array": value.dtype.str, "shape": list(value.shape), "data": value.ravel().tolist()}
    if isinstance(value, dict):
        return {"map": [[k, v] for k, v in value.items()]}
    return {"maps": [[[k, v] for k, v in item.items()] for item in value]}


def _decode_feed(data: dict[str, Any]) -> Any:
    if "array" in data:
        return np.array(data["data"], dtype=np.dtype(data["array"])).reshape(data["shape"])
    if "map" in data:
        return {k: v for k, v in data["map"]}
    return [{k: v for k, v in item} for item in data["maps"]]


def _write_manifest(
    out: Path, versions: dict[str, str], groups: tuple[str, ...], models: list[ProducedModel]
) -> None:
    entries = [
        {
            "name": m.name,
            "producer": m.producer,
            "feeds": {k: _encode_feed(v) for k, v in m.feeds.items()},
            "runs_in_ort": m.runs_in_ort,
            "checker_ok": m.checker_ok,
            "domains": list(m.domains),
            "note": m.note,
        }
        for m in models
    ]
    data = {"versions": versions, "groups": list(groups), "models": entries}
    (out / MANIFEST).write_text(json.dumps(data, indent=1, sort_keys=True), "utf-8")


def _read_manifest(
    out: Path, versions: dict[str, str], groups: tuple[str, ...]
) -> list[ProducedModel] | None:
    try:
        data = json.loads((out / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("versions") != versions or data.get("groups") != list(groups):
        return None
    models = []
    for e in data["models"]:
        path = out / f"{e['name']}.onnx"
        if not path.exists():
            return None
        feeds = {k: _decode_feed(v) for k, v in e["feeds"].items()}
        models.append(
            ProducedModel(
                e["name"],
                path,
                e["producer"],
                feeds,
                e["runs_in_ort"],
                e["checker_ok"],
                tuple(e["domains"]),
                e["note"],
            )
        )
    return models


def save(model: Any, out: Path, name: str) -> None:
    """Write a ModelProto as `out/name.onnx`."""
    (out / f"{name}.onnx").write_bytes(model.SerializeToString())


@dataclass
class Data:
    """Small deterministic data sets shared by the builders."""

    seed: int = 0
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def floats(self, rows: int, cols: int) -> np.ndarray:
        return self.rng.standard_normal((rows, cols)).astype(np.float32)
