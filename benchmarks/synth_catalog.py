"""Write a synthetic spec tree of N operator versions for the scale benchmarks.

    python benchmarks/synth_catalog.py OUT [--versions 60000] [--domains 108] [--seed 1]

Deterministic for given arguments. Each domain has its own opset versions (1..V) and operators
with several versions each, spread over the opsets; every version has a short doc, inputs,
outputs, attributes (with defaults) and type constraints, like an imported ONNX catalog (about
1 kB of YAML per operator version). Some operators are removed in a later opset. Valid input:
`opset validate OUT` reports no error.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

TYPES = [
    "tensor(float)",
    "tensor(float16)",
    "tensor(double)",
    "tensor(int32)",
    "tensor(int64)",
    "tensor(int8)",
    "tensor(uint8)",
    "tensor(bool)",
    "tensor(bfloat16)",
    "tensor(string)",
]
ATTR_KINDS = [("int", "0"), ("float", "1.0"), ("string", "'mode'"), ("ints", "[1, 1]"), ("floats", "[0.5]")]
WORDS = [
    "apply",
    "compute",
    "input",
    "output",
    "tensor",
    "axis",
    "element",
    "value",
    "shape",
    "broadcast",
    "reduce",
    "scale",
    "index",
    "value",
    "mode",
    "the",
    "of",
    "each",
    "along",
    "given",
    "produce",
    "result",
    "data",
]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _version(rng: random.Random, since: int) -> list[str]:
    lines = [f"- since_version: {since}", f"  doc: {_sentence(rng, 12)} {_sentence(rng, 10)}"]
    n_in = rng.randint(1, 3)
    lines.append("  inputs:")
    for i in range(n_in):
        lines += [f"  - name: X{i}", "    type: T", f"    doc: {_sentence(rng, 5)}"]
    lines += ["  outputs:", "  - name: Y", "    type: T", f"    doc: {_sentence(rng, 5)}"]
    n_attr = rng.randint(0, 4)
    if n_attr:
        lines.append("  attributes:")
        for a in range(n_attr):
            kind, default = rng.choice(ATTR_KINDS)
            lines += [
                f"    attr_{a}:",
                f"      type: {kind}",
                f"      default: {default}",
                f"      doc: {_sentence(rng, 6)}",
            ]
    allowed = sorted(rng.sample(TYPES, rng.randint(1, 5)))
    lines += ["  type_constraints:", "    T:", "      allowed:"]
    lines += [f"      - {t}" for t in allowed]
    lines.append(f"      doc: {_sentence(rng, 6)}")
    return lines


def write_tree(out: Path, versions: int, domains: int, seed: int = 1) -> int:
    rng = random.Random(seed)
    per_domain = max(1, versions // domains)
    written = 0
    for d in range(domains):
        name = f"com.synth.d{d:03d}"
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        opsets = 30
        ops = max(1, per_domain // 4)
        count = per_domain if d < domains - 1 else versions - written
        remaining = count
        op_files: list[tuple[str, list[int], int | None]] = []
        for o in range(ops):
            n = remaining if o == ops - 1 else min(remaining, rng.randint(2, 6))
            if n <= 0:
                break
            n = min(n, opsets)
            remaining -= n
            since = sorted(rng.sample(range(1, opsets + 1), n))
            removed = since[-1] + 1 if since[-1] < opsets and rng.random() < 0.05 else None
            op_files.append((f"Op{o:04d}", since, removed))
        lines = [f"domain: {name}", f"doc: {_sentence(rng, 8)}", "opset_versions:"]
        for v in range(1, opsets + 1):
            lines += [f"- version: {v}", f"  ir_version: {min(3 + v // 3, 11)}"]
        (folder / "domain.yaml").write_text("\n".join(lines) + "\n")
        for op, since, removed in op_files:
            body = [f"operator: {op}", f"domain: {name}"]
            if removed is not None:
                body.append(f"removed_in: {removed}")
            body.append("versions:")
            for s in since:
                body += _version(rng, s)
            (folder / f"{op}.yaml").write_text("\n".join(body) + "\n")
            written += len(since)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--versions", type=int, default=60000)
    parser.add_argument("--domains", type=int, default=108)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    n = write_tree(args.out, args.versions, args.domains, args.seed)
    print(f"wrote {n} operator versions in {args.domains} domains to {args.out}")


if __name__ == "__main__":
    main()
