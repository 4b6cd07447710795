"""The JSON Schemas of the spec files and other YAML inputs (`toolkit/schemas/<kind>.schema.json`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@cache
def json_schema(kind: str) -> dict[str, Any]:
    with open(SCHEMA_DIR / f"{kind}.schema.json", encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema
