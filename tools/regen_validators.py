"""Regenerate the checked-in JSON-Schema validators (`toolkit/load/schema_compiled_*.py`) from
`schemas/*.schema.json` with the installed fastjsonschema.

Usage: python tools/regen_validators.py

`toolkit.load.schema_fast` uses a checked-in validator only when it was generated from the schema
as it is now, and compiles one at run time otherwise; tests/test_schema_fast.py checks the files
are current.
"""

from __future__ import annotations

from pathlib import Path

from toolkit.load.schema_fast import CHECKED_IN, generated_source

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "toolkit" / "load"


def main() -> None:
    for (kind, lenient), module in sorted(CHECKED_IN.items()):
        path = PACKAGE_DIR / f"{module}.py"
        path.write_text(generated_source(kind, lenient), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
