"""Gate configuration: `[tool.opset-toolkit]` in pyproject.toml, or an `opset.toml`.

```toml
[tool.opset-toolkit]
profile = "onnx-strict"              # or "bc-only", or one of your profiles below
disable = ["DOC-CHANGED"]            # rule ids switched off
severity = { ATTR-DEFAULT-CHANGED = "warning" }
options = { require_adapters = true }
plugins = ["mypackage.my_rules"]     # modules registering more rules with @compat_rule, imported
                                     # only with the invoker's --allow-plugins (toolkit.compat.plugins)

[tool.opset-toolkit.profiles.release]
extends = "bc-only"
disable = ["INPUT-RENAMED"]

[[tool.opset-toolkit.allowlist]]
rule = "ATTR-ADDED"
operator = "com.acme.vision.Resize:2"   # domain.Op:since, or domain.Op for every version
fingerprint = "3f0c9a1e2b4d5c6f"         # optional: pin to exactly one finding
reason = "shipped by mistake in 1.4; runtimes already accept it"
expires = 2026-06-30
```

In `opset.toml` the same keys may also sit at top level. Built-in profiles (`BUILTIN_PROFILES`):
`onnx-strict` (every finding, `require_adapters = true`), `bc-only` (only the findings that
break backward compatibility) and `vendor-additive` (a vendor's released opset may grow by the
additions PyTorch's RFC calls FC-compatible). Each differs only in the classes of findings it
tolerates (`tolerate`), and one rule, `kept_severity`, gives every finding its severity from
its BC/FC flags: a finding of a tolerated class is dropped, any other keeps its rule's severity.
A profile of the file may set `tolerate = ["fc", "additive", "neither"]` (the classes of
`toolkit.model.change_compat.finding_class`); `ignore-fc-only = true` is `["fc", "additive"]`. An allowlist entry past its `expires` date silences nothing and is itself an
ALLOWLIST-EXPIRED error; an entry matching nothing is ALLOWLIST-UNUSED. The date "today" is
taken from `OPSET_TODAY` (YYYY-MM-DD) when set, so CI runs can be reproduced.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.load.discovery import display_path
from toolkit.load.project import (
    PROJECT_KEYS,
    TOOL_KEY,
    find_project_file,
    parse_toml,
    read_project_text,
    toml_key_location,
)
from toolkit.model.change_compat import ADDITIVE, BREAKS_FC, BREAKS_NEITHER, FINDING_CLASSES, finding_class
from toolkit.model.diagnostics import Diagnostic, Severity, UsageError
from toolkit.model.rules import Rule
from toolkit.model.spec import Location
from toolkit.model.suggest import QUOTED, close_names, did_you_mean

DEFAULT_PROFILE = "onnx-strict"
# The project settings in the same file (spec_root, out, [python], [docs]) are read by toolkit.load.project.
_TOP_KEYS = {
    "profile",
    "disable",
    "enable",
    "severity",
    "options",
    "plugins",
    "profiles",
    "allowlist",
    *PROJECT_KEYS,
}
_PROFILE_KEYS = {"extends", "disable", "enable", "severity", "options", "ignore-fc-only", "tolerate", "doc"}
FC_ONLY = frozenset({BREAKS_FC, ADDITIVE})  # what `ignore-fc-only = true` tolerates
_ENTRY_KEYS = {"rule", "operator", "fingerprint", "reason", "expires"}


@dataclass(frozen=True)
class Profile:
    name: str
    doc: str = ""
    # The classes of findings (`toolkit.model.change_compat.finding_class`) the profile drops.
    tolerates: frozenset[str] = frozenset()
    disabled: frozenset[str] = frozenset()
    severities: Mapping[str, Severity] = field(default_factory=dict)
    options: Mapping[str, object] = field(default_factory=dict)


BUILTIN_PROFILES: dict[str, Profile] = {
    "onnx-strict": Profile(
        "onnx-strict",
        "ONNX's versioning rules in full: a released version never changes, so every finding "
        "keeps its rule's severity (tolerates nothing).",
        options={"require_adapters": True},
    ),
    "bc-only": Profile(
        "bc-only",
        "Backward compatibility only: the findings that break BC (old models on the new "
        "registry) keep their severity; those that break only FC or neither are dropped.",
        tolerates=frozenset({BREAKS_FC, ADDITIVE, BREAKS_NEITHER}),
    ),
    "vendor-additive": Profile(
        "vendor-additive",
        "A vendor's additive policy (onnxruntime's `com.microsoft` opset 1): a released opset may "
        "gain operators, trailing optional inputs and outputs and optional attributes (the "
        "additions PyTorch's RFC calls FC-compatible); every other change keeps its severity, "
        "removals, renames and type changes included (tolerates the additive class).",
        tolerates=frozenset({ADDITIVE}),
    ),
}


def kept_severity(profile: Profile, rule: Rule, bc: bool, fc: bool, severity: Severity) -> Severity | None:
    """The one rule of every profile: a finding of `rule` with its own BC/FC flags keeps
    `severity` (the rule's, or the configuration's for it) unless the profile tolerates its class,
    then it is dropped (None). Findings about the configuration itself are always kept."""
    if rule.category == "config":
        return severity
    return None if finding_class(rule.id, bc, fc) in profile.tolerates else severity


@dataclass(frozen=True)
class AllowEntry:
    rule: str
    operator: str
    reason: str
    expires: dt.date
    fingerprint: str | None = None
    location: Location = field(default_factory=lambda: Location("<config>"))

    def matches(self, rule: str, operator: str, fingerprint: str) -> bool:
        if rule != self.rule:
            return False
        if self.fingerprint is not None and fingerprint != self.fingerprint:
            return False
        return operator == self.operator or operator.rpartition(":")[0] == self.operator

    def expired(self, today: dt.date) -> bool:
        return self.expires < today


@dataclass(frozen=True)
class GateConfig:
    profile: Profile = BUILTIN_PROFILES[DEFAULT_PROFILE]
    allowlist: tuple[AllowEntry, ...] = ()
    # The plugin modules the gate imports: only those the invoker opted in to
    # (`toolkit.compat.plugins.load_gate_config` fills it; the file alone never does).
    plugins: tuple[str, ...] = ()
    source: str | None = None  # the config file's display path
    named_plugins: tuple[str, ...] = ()  # what the file's `plugins` names (untrusted: not imported as such)
    plugins_location: Location = field(default_factory=lambda: Location("<config>"))
    warnings: tuple[Diagnostic, ...] = ()  # about the configuration itself (PLUGINS-IGNORED)

    def enabled(self, rule_id: str) -> bool:
        return rule_id not in self.profile.disabled

    def severity(self, rule_id: str, default: Severity) -> Severity:
        return self.profile.severities.get(rule_id, default)

    def option(self, name: str) -> object:
        return self.profile.options.get(name)


def today() -> dt.date:
    raw = os.environ.get("OPSET_TODAY")
    if raw:
        try:
            return dt.date.fromisoformat(raw)
        except ValueError:
            raise UsageError(f"OPSET_TODAY={raw!r} is not a date (write YYYY-MM-DD)") from None
    return dt.date.today()


# --------------------------------------------------------------------------- finding the file


# The gate's configuration is the project file: found as the project settings find it (one finder).
find_config = find_project_file


# --------------------------------------------------------------------------- parsing


def load_config(
    path: Path | None, profile: str | None = None, known_rules: frozenset[str] = frozenset()
) -> GateConfig:
    """Read a config file (None: defaults) and select a profile (None: the file's or the default)."""
    if path is None:
        return GateConfig(profile=_builtin(profile or DEFAULT_PROFILE, "--profile"))
    text = read_project_text(path)  # read once: parsed, and searched for where keys are set
    data = parse_toml(path, text)
    table = data.get("tool", {}).get(TOOL_KEY)
    if table is None:
        # opset.toml: the keys may sit at top level
        table = {} if path.name == "pyproject.toml" else {k: v for k, v in data.items() if k != "tool"}
    parser = _Parser(path, known_rules, text)
    return parser.config(table, profile)


def _builtin(name: str, where: str) -> Profile:
    try:
        return BUILTIN_PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(BUILTIN_PROFILES))
        raise UsageError(f"{where}: unknown profile '{name}' (built-in: {known})") from None


class _Parser:
    def __init__(self, path: Path, known_rules: frozenset[str], text: str) -> None:
        self.path = path
        self.display = display_path(path)
        self.known_rules = known_rules
        self.text = text

    def fail(self, message: str, hint: str = "") -> UsageError:
        return UsageError(f"{self.display}: {message}" + (f"\n  hint: {hint}" if hint else ""))

    def config(self, table: dict[str, Any], selected: str | None) -> GateConfig:
        self.check_keys(table, _TOP_KEYS, f"[tool.{TOOL_KEY}]")
        profiles_table = table.get("profiles", {})
        if not isinstance(profiles_table, dict):
            raise self.fail("`profiles` must be a table of profile tables")
        name = selected or table.get("profile") or DEFAULT_PROFILE
        if not isinstance(name, str):
            raise self.fail("`profile` must be a string")
        profile = self.profile(name, profiles_table, ())
        # top-level settings apply on top of whichever profile is selected
        profile = self.overlay(profile, table, f"[tool.{TOOL_KEY}]")
        plugins = table.get("plugins", [])
        if not isinstance(plugins, list) or not all(isinstance(p, str) for p in plugins):
            raise self.fail("`plugins` must be a list of module names")
        return GateConfig(
            profile,
            self.allowlist(table.get("allowlist", [])),
            source=self.display,
            named_plugins=tuple(plugins),
            plugins_location=self.key_location("plugins"),
        )

    def profile(self, name: str, profiles: dict[str, Any], stack: tuple[str, ...]) -> Profile:
        if name in stack:
            raise self.fail(f"profile '{name}' extends itself ({' -> '.join((*stack, name))})")
        body = profiles.get(name)
        if body is None:
            if name in BUILTIN_PROFILES:
                return BUILTIN_PROFILES[name]
            known = sorted(set(BUILTIN_PROFILES) | set(profiles))
            raise self.fail(
                f"unknown profile '{name}'",
                did_you_mean(close_names(name, known, 1), QUOTED) or "known profiles: " + ", ".join(known),
            )
        if not isinstance(body, dict):
            raise self.fail(f"profile '{name}' must be a table")
        self.check_keys(body, _PROFILE_KEYS, f"profile '{name}'")
        base_name = body.get("extends")
        if base_name is None:  # a redefined built-in starts from itself, others from the default
            base = BUILTIN_PROFILES.get(name) or self.profile(DEFAULT_PROFILE, profiles, (*stack, name))
        else:
            if not isinstance(base_name, str):
                raise self.fail(f"profile '{name}': `extends` must be a profile name")
            base = self.profile(base_name, profiles, (*stack, name))
        profile = self.overlay(base, body, f"profile '{name}'")
        return Profile(
            name,
            str(body.get("doc", "")),
            self.tolerates(name, body, profile.tolerates),
            profile.disabled,
            profile.severities,
            profile.options,
        )

    def overlay(self, base: Profile, body: dict[str, Any], where: str) -> Profile:
        disabled = set(base.disabled)
        disabled |= set(self.rule_list(body.get("disable", []), f"{where} disable"))
        disabled -= set(self.rule_list(body.get("enable", []), f"{where} enable"))
        severities = dict(base.severities)
        raw = body.get("severity", {})
        if not isinstance(raw, dict):
            raise self.fail(f'{where}: `severity` must be a table of RULE = "error|warning|info"')
        for rule_id, value in raw.items():
            self.rule_id(rule_id, f"{where} severity")
            if value == "off":
                disabled.add(rule_id)
                continue
            try:
                severities[rule_id] = Severity(value)
            except ValueError:
                raise self.fail(
                    f"{where}: severity of {rule_id} must be error, warning, info or off, not {value!r}"
                ) from None
        options = dict(base.options)
        raw_options = body.get("options", {})
        if not isinstance(raw_options, dict):
            raise self.fail(f"{where}: `options` must be a table")
        options.update(raw_options)
        return Profile(base.name, base.doc, base.tolerates, frozenset(disabled), severities, options)

    def tolerates(self, name: str, body: dict[str, Any], base: frozenset[str]) -> frozenset[str]:
        """The classes profile `name` drops: its `tolerate` list, else its base's; plus the
        FC-only classes with `ignore-fc-only = true`."""
        out = base
        raw = body.get("tolerate")
        if raw is not None:
            if not isinstance(raw, list) or not all(isinstance(c, str) and c in FINDING_CLASSES for c in raw):
                raise self.fail(
                    f"profile '{name}': `tolerate` must be a list of finding classes",
                    "classes: " + ", ".join(FINDING_CLASSES),
                )
            out = frozenset(raw)
        ignore = body.get("ignore-fc-only", False)
        if not isinstance(ignore, bool):
            raise self.fail(f"profile '{name}': `ignore-fc-only` must be true or false")
        return out | FC_ONLY if ignore else out

    def rule_list(self, value: Any, where: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{where}: expected a list of rule ids")
        return [self.rule_id(v, where) for v in value]

    def rule_id(self, rule_id: str, where: str) -> str:
        if self.known_rules and rule_id not in self.known_rules:
            raise self.fail(
                f"{where}: unknown rule id '{rule_id}'",
                did_you_mean(close_names(rule_id, self.known_rules, 1), QUOTED)
                or "`opset rules` lists the rule ids",
            )
        return rule_id

    def check_keys(self, table: dict[str, Any], allowed: set[str], where: str) -> None:
        for key in sorted(table):
            if key not in allowed:
                raise self.fail(
                    f"{where}: unknown key '{key}'",
                    did_you_mean(close_names(key, allowed, 1), QUOTED)
                    or "allowed: " + ", ".join(sorted(allowed)),
                )

    def allowlist(self, entries: Any) -> tuple[AllowEntry, ...]:
        if not isinstance(entries, list):
            raise self.fail("`allowlist` must be an array of tables ([[tool.opset-toolkit.allowlist]])")
        lines = self.entry_lines()
        out = []
        for index, entry in enumerate(entries):
            where = f"allowlist entry {index + 1}"
            loc = Location(self.display, lines[index] if index < len(lines) else 0, 1 if lines else 0)
            if not isinstance(entry, dict):
                raise self.fail(f"{where}: must be a table")
            self.check_keys(entry, _ENTRY_KEYS, where)
            for key in ("rule", "operator", "reason", "expires"):
                if key not in entry:
                    raise self.fail(
                        f"{loc}: {where}: missing `{key}`",
                        "every entry names rule, operator, a reason and an expiry date (expires = 2026-06-30)",
                    )
            expires = entry["expires"]
            if isinstance(expires, str):
                try:
                    expires = dt.date.fromisoformat(expires)
                except ValueError:
                    expires = None
            if not isinstance(expires, dt.date) or isinstance(expires, dt.datetime):
                raise self.fail(f"{where}: `expires` must be a date (expires = 2026-06-30)")
            reason = entry["reason"]
            if not isinstance(reason, str) or not reason.strip():
                raise self.fail(f"{where}: `reason` must say why the finding is accepted")
            fingerprint = entry.get("fingerprint")
            if fingerprint is not None and not isinstance(fingerprint, str):
                raise self.fail(f"{where}: `fingerprint` must be a string")
            out.append(
                AllowEntry(
                    self.rule_id(str(entry["rule"]), where),
                    str(entry["operator"]),
                    reason,
                    expires,
                    fingerprint,
                    loc,
                )
            )
        return tuple(out)

    def key_location(self, key: str) -> Location:
        """Where `key` of the configuration's table is set (`toml_key_location`)."""
        return toml_key_location(self.path, self.text, key, self.display)

    def entry_lines(self) -> list[int]:
        """1-based lines of the `[[...allowlist]]` headers, so entries can be located."""
        pattern = re.compile(r"^\s*\[\[\s*(tool\.opset-toolkit\.)?allowlist\s*\]\]")
        return [n for n, line in enumerate(self.text.splitlines(), 1) if pattern.match(line)]
