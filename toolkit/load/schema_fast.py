"""Fast path for JSON-Schema validation: answers "is this document valid?" quickly, beside the
plain, explaining validator in `toolkit.load.schema`.

Nearly every spec file is valid, and a validator compiled by fastjsonschema answers that far
faster than jsonschema; jsonschema then explains the rare invalid file in full. The validators
are compiled in this process on first use and kept in memory only: nothing is written to or
executed from the cache folder.
`tests/test_schema_fast.py` checks both paths give the same diagnostics.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from toolkit.load.schema_files import json_schema

# Matched with fullmatch: `$` would also accept a name ending in a line break.
IDENTIFIER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def _compiled(kind: str, lenient_names: bool) -> Callable[[Any], Any]:
    """The fastjsonschema validator of `schemas/<kind>.schema.json`. `lenient_names` drops the
    C-identifier pattern (see `only_silenced_names`)."""
    import fastjsonschema

    schema = json.loads(json.dumps(json_schema(kind)))
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"  # same keywords, a draft it compiles
    if lenient_names:
        schema.get("$defs", {}).get("identifier", {}).pop("pattern", None)
    try:
        # Only valid/invalid is asked for (jsonschema explains), so the exceptions need no detail;
        # without it the generated code is a fraction of the size and compiles that much faster.
        validate: Callable[[Any], Any] = fastjsonschema.compile(
            schema, use_default=False, detailed_exceptions=False
        )
    except TypeError:  # a fastjsonschema without the option
        validate = fastjsonschema.compile(schema, use_default=False)
    return validate


def prepare(kind: str) -> None:
    """Compile the validator of `kind` now (before forking, so workers inherit it)."""
    _compiled(kind, False)


def is_valid(kind: str, data: Any, *, lenient_names: bool = False) -> bool:
    import fastjsonschema

    try:
        _compiled(kind, lenient_names)(data)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def only_silenced_names(data: Any) -> bool:
    """True when an operator file's only schema problem is non-identifier names inside versions
    that `suppress: [NAME-NOT-IDENTIFIER]` (historical ONNX schemas such as Split-1's
    `outputs...`), so the full validator need not run just to produce findings that are
    dropped anyway."""
    if not is_valid("operator", data, lenient_names=True):
        return False
    if not IDENTIFIER_NAME.fullmatch(data["operator"]):
        return False
    for entry in data["versions"]:
        names = [p["name"] for key in ("inputs", "outputs") for p in entry.get(key, ())]
        names += list(entry.get("attributes") or ()) + list(entry.get("type_constraints") or ())
        if any(not IDENTIFIER_NAME.fullmatch(n) for n in names) and "NAME-NOT-IDENTIFIER" not in entry.get(
            "suppress", ()
        ):
            return False
    return True
