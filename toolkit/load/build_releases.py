"""Release tables (`releases.yaml`) into model objects: the rows, and their opsets by canonical
domain. The schema of this file kind lives with the release table feature (`registry.releases`)."""

from __future__ import annotations

from collections.abc import Mapping

from toolkit.load.build_values import whole_numbers
from toolkit.load.yamlsrc import Source
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import Release, canonical_domain, display_domain


def build_releases(sources: list[Source], diags: list[Diagnostic]) -> tuple[Release, ...]:
    out: list[Release] = []
    for source in sources:
        diags.extend(whole_numbers(source, "releases"))
        for index, row in enumerate(source.data.get("releases", [])):
            out.append(
                Release(
                    name=str(row["release"]),
                    ir_version=row["ir_version"],
                    opsets=_release_opsets(source, index, row.get("opsets") or {}, diags),
                    location=source.loc("releases", index),
                    doc=str(source.data.get("doc") or ""),
                )
            )
    return tuple(out)


def _release_opsets(
    source: Source, index: int, opsets: Mapping[str, int], diags: list[Diagnostic]
) -> tuple[tuple[str, int], ...]:
    """A release row's opsets by canonical domain; RELEASE-DOMAIN-TWICE when two keys name one
    domain (`""` and `ai.onnx`), the later key dropped."""
    seen: dict[str, str] = {}
    for key in opsets:
        name = canonical_domain(key)
        if name in seen:
            diags.append(
                Diagnostic(
                    "RELEASE-DOMAIN-TWICE",
                    f"release row names domain '{display_domain(name)}' twice ('{seen[name]}' and '{key}')",
                    source.loc("releases", index, "opsets", key, key=True),
                    'keep one entry per domain: "" and ai.onnx are both the default domain',
                )
            )
            continue
        seen[name] = key
    return tuple(sorted((canonical_domain(key), opsets[key]) for key in seen.values()))
