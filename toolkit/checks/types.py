"""Spec checks of type parameters (TYPE-PARAM-UNDECLARED, TYPE-PARAM-UNUSED).

Type strings and type sets (TYPE-STRING-INVALID, TYPE-SET-*) are checked by the loader while it
expands them, and registered with its rules (`toolkit.load.rules`).
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.checks.base import each_version, located
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, SpecSet
from toolkit.model.types import looks_like_type_string

TYPES = "Types"


@rule(
    "TYPE-PARAM-UNDECLARED",
    "spec",
    "error",
    "A parameter's type is neither a type string nor a declared type parameter.",
    category=TYPES,
    hint="declare the type parameter under type_constraints or use a type string such as tensor(float)",
    doc="""\
**Why:** an input or output is typed either by a type string (`tensor(float)`) or by a type
parameter that `type_constraints` declares with its allowed types; anything else has no types.

**Before:** `inputs: [{name: X, type: T}]` with no `T` under `type_constraints`.

**After:**

```yaml
inputs: [{name: X, type: T}]
type_constraints:
  T: {allowed: [tensor(float), tensor(double)]}
```""",
    per_operator=True,
)
def type_params(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """TYPE-PARAM-UNDECLARED per parameter, TYPE-PARAM-UNUSED per constraint."""
    for schema in each_version(specs):
        declared = {c.param: c for c in schema.type_constraints}
        used: set[str] = set()
        for param in (*schema.inputs, *schema.outputs):
            if looks_like_type_string(param.type_str):
                continue
            used.add(param.type_str)
            if param.type_str not in declared:
                yield located(
                    "TYPE-PARAM-UNDECLARED",
                    f"'{param.name}' has type '{param.type_str}', which is neither a type string "
                    "nor a declared type parameter",
                    param,
                    f"declare `{param.type_str}` under type_constraints or use a type string such as tensor(float)",
                )
        for name, constraint in declared.items():
            if name not in used:
                yield located(
                    "TYPE-PARAM-UNUSED",
                    f"type parameter '{name}' is not used by any input or output",
                    constraint,
                    "remove the constraint or use it as a parameter type",
                )


register(
    "TYPE-PARAM-UNUSED",
    "spec",
    "error",
    "A type parameter is declared but no input or output uses it.",
    category=TYPES,
    hint="remove the constraint or use it as a parameter type",
    doc="""\
**Why:** a type parameter constrains the inputs and outputs typed by it; one that types nothing
is a leftover (often a renamed parameter) and shows up in the generated docs and classes.

**Before:** `type_constraints: {T: ..., U: ...}` where no parameter has `type: U`.

**After:** remove `U`, or give the parameter meant to use it `type: U`.""",
)
