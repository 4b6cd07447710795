"""The faster forms of the load phase mean what the slower ones meant (#24): the schemas as the
fast path compiles them (`schema_fast._fast_form`: `$defs` written out, type-distinct `oneOf` as
`anyOf`) accept exactly what jsonschema accepts, and the YAML builder's inlined string values
spend the alias budget node for node."""

from __future__ import annotations

from typing import Any

import fastjsonschema
import jsonschema
import pytest

from toolkit.load import schema_fast
from toolkit.load.yamlsrc import MAX_EXPANDED_NODES, YamlProblem, parse_yaml_text

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _fast(schema: dict[str, Any]) -> Any:
    compiled = schema_fast._fast_form({**schema, "$schema": "http://json-schema.org/draft-07/schema#"})
    return fastjsonschema.compile(compiled, use_default=False)


def _agree(schema: dict[str, Any], values: list[Any]) -> list[bool]:
    """Each value's validity by the fast form, asserted equal to jsonschema's reading of `schema`."""
    fast = _fast(schema)
    plain = jsonschema.Draft202012Validator({**schema, "$schema": DRAFT})
    out = []
    for value in values:
        try:
            fast(value)
            accepted = True
        except fastjsonschema.JsonSchemaException:
            accepted = False
        assert accepted == plain.is_valid(value), value
        out.append(accepted)
    return out


def test_oneof_of_overlapping_types_still_means_exactly_one() -> None:
    # 3 is an integer and a number: both alternatives match, so oneOf refuses it (anyOf would not)
    schema = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert "oneOf" in schema_fast._fast_form(schema)
    assert _agree(schema, [3, 2.5, "x"]) == [False, True, False]


def test_oneof_of_distinct_types_becomes_anyof_with_the_same_answers() -> None:
    schema = {
        "$defs": {"pair": {"type": "array", "items": {"type": "string"}, "minItems": 2}},
        "oneOf": [{"type": "string"}, {"$ref": "#/$defs/pair"}, {"type": "null"}],
    }
    assert "anyOf" in schema_fast._fast_form(schema) and "oneOf" not in schema_fast._fast_form(schema)
    assert _agree(schema, ["a", ["a", "b"], ["a"], None, 1, [1, 2]]) == [
        True,
        True,
        False,
        True,
        False,
        False,
    ]


def test_a_ref_is_written_out_and_its_sibling_keywords_still_apply() -> None:
    schema = {
        "$defs": {"word": {"type": "string", "pattern": "^[a-z]+$"}},
        "type": "object",
        "properties": {"name": {"$ref": "#/$defs/word", "maxLength": 3}},
    }
    fast = schema_fast._fast_form(schema)
    assert "$ref" not in str(fast["properties"])
    assert _agree(schema, [{"name": "abc"}, {"name": "abcd"}, {"name": "AB"}, {}]) == [
        True,
        False,
        False,
        True,
    ]


def test_a_def_holding_a_choice_and_a_recursive_def_stay_functions() -> None:
    schema = {
        "$defs": {
            "tree": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
            },
            "leaf": {"oneOf": [{"type": "string"}, {"type": "null"}]},
        },
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/tree"}, "leaf": {"$ref": "#/$defs/leaf"}},
    }
    fast = schema_fast._fast_form(schema)
    assert fast["properties"]["leaf"] == {"$ref": "#/$defs/leaf"}
    deep = {"kids": [{"kids": [{"kids": [{"kids": "no"}]}]}]}
    assert _agree(
        schema, [{"tree": {"kids": [{"kids": []}]}, "leaf": None}, {"tree": deep}, {"leaf": 1}]
    ) == [
        True,
        False,
        False,
    ]


def test_data_keywords_are_not_read_as_schemas() -> None:
    # an enum member that looks like a $ref or a oneOf is a value to compare, not a schema
    member = {"$ref": "#/$defs/x", "oneOf": [{"type": "string"}, {"type": "null"}]}
    schema = {"$defs": {"x": {"type": "string"}}, "enum": [member], "const": member}
    assert schema_fast._fast_form(schema)["enum"] == [member]
    assert _agree(schema, [member, "s", None]) == [True, False, False]


def test_the_operator_schema_compiles_to_few_functions() -> None:
    """What the rewrite is for: no `oneOf` left, and only the defs holding a choice called."""
    compiled = schema_fast._schema("operator")
    assert "oneOf" not in str(compiled)
    code = fastjsonschema.compile_to_code(
        compiled, formats={schema_fast.IDENTIFIER_FORMAT: lambda _name: True}, use_default=False
    )
    functions = [line.split("(")[0] for line in code.splitlines() if line.startswith("def ")]
    assert len(functions) <= 4, functions


def _strings_document(extra: int) -> str:
    """A document of exactly MAX_EXPANDED_NODES + `extra` nodes, mostly aliased strings."""
    per_alias = 1000  # an aliased list of 999 strings: the list and its items
    lines = ["a: &a [" + ",".join(["x"] * (per_alias - 1)) + "]"]
    aliases = (MAX_EXPANDED_NODES - 1004) // per_alias
    lines.append("b: [" + ",".join(["*a"] * aliases) + "]")
    used = 1 + 1 + per_alias + 1 + 1 + aliases * per_alias  # root, key a, list a, key b, list b
    lines.append("c: [" + ",".join(["y"] * (MAX_EXPANDED_NODES - used - 2 + extra)) + "]")
    return "\n".join(lines) + "\n"


def test_the_alias_budget_counts_every_inlined_string() -> None:
    assert len(parse_yaml_text(_strings_document(0), "ok.yaml")["b"]) > 100
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text(_strings_document(1), "bomb.yaml")
    assert info.value.diagnostic.rule == "YAML-ALIAS-LIMIT"
    assert info.value.diagnostic.location.line == 3  # the first node over the budget: in `c`


def test_the_doc_prefilter_answers_from_bounded_memory() -> None:
    """The docs generator asks `may_need_repair` about the docs the load's checks asked about: the
    answer is kept, keyed by the text, and the memory stays bounded whatever a tree holds."""
    from toolkit.checks import markdown_fast

    flagged, plain = "<script>x</script>", "plain words"
    assert markdown_fast.may_need_repair(flagged) is True
    assert markdown_fast.may_need_repair(plain) is False
    assert markdown_fast._answers[flagged] is True and markdown_fast._answers[plain] is False
    for number in range(markdown_fast.MEMO_SIZE + 10):
        markdown_fast.may_need_repair(f"doc {number}")
    assert len(markdown_fast._answers) <= markdown_fast.MEMO_SIZE
    assert markdown_fast.may_need_repair(flagged) is True  # answered again after the memo started over


def test_the_memos_keep_no_long_text_alive() -> None:
    """A long-lived process reading hostile trees keeps bounded text in the two memos."""
    from toolkit.checks import markdown_fast
    from toolkit.load import yamlsrc

    long_doc = "x" * (markdown_fast.MEMO_CHARS // 2 + 1)
    markdown_fast.may_need_repair(long_doc)
    markdown_fast.may_need_repair(long_doc + "y")
    assert markdown_fast._kept_chars <= markdown_fast.MEMO_CHARS
    assert long_doc not in markdown_fast._answers  # the memo started over for the second
    too_long = "x" * (markdown_fast.MEMO_CHARS + 1)
    assert markdown_fast.may_need_repair(too_long) is False
    assert too_long not in markdown_fast._answers  # alone over the bound: answered, never kept
    assert markdown_fast._kept_chars <= markdown_fast.MEMO_CHARS
    yamlsrc._plain_tag.cache_clear()
    parse_yaml_text(f"a: {'z' * 100}\nb: short\n", "long.yaml")
    assert yamlsrc._plain_tag.cache_info().currsize == 3  # a, b, short: not the long value
