"""The server's settings from the editor: initializationOptions, didChangeConfiguration, or the
`opset` section pulled with workspace/configuration. Only the gate has settings (`gate.RefGate`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolkit.model.diagnostics import UsageError

SECTION = "opset"  # the settings section (`opset.gate.against`)


@dataclass(frozen=True)
class GateSetting:
    """What the editor asked for: the ref to compare with ("" = off) and an optional profile."""

    against: str = ""
    profile: str | None = None


def gate_setting(options: object) -> GateSetting | None:
    """The gate setting in initializationOptions, a didChangeConfiguration's `settings`, or a
    workspace/configuration answer for the `opset` section: `{"opset": {"gate": {...}}}`,
    `{"gate": {...}}` or `{"opset.gate.against": ...}`. None: the options do not mention it.
    UsageError: a value of the wrong type."""
    if not isinstance(options, Mapping):
        return None
    section = options.get(SECTION, options)
    gate = section.get("gate") if isinstance(section, Mapping) else None
    if not isinstance(gate, Mapping):
        flat = {k[len("opset.gate.") :]: v for k, v in options.items() if str(k).startswith("opset.gate.")}
        if not flat:
            return None
        gate = flat
    against, profile = gate.get("against") or "", gate.get("profile")
    if not isinstance(against, str) or not (profile is None or isinstance(profile, str)):
        raise UsageError(
            "opset.gate.against and opset.gate.profile take a string (a git ref, a profile name)"
        )
    return GateSetting(against.strip(), profile or None)
