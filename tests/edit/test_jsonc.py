"""The JSONC editor on the documents people really have: what the new text looks like."""

from __future__ import annotations

import pytest

from engram.edit.jsonc.document import (
    add_to_list,
    load,
    remove_from_list,
    remove_value,
    set_value,
)
from engram.errors import EngramError

SERVER = {"command": "engram-mcp", "args": []}


def _set(text: str, *, strict: bool = False) -> str:
    new, undo = set_value(text, ("mcpServers", "engram"), SERVER, strict=strict)
    assert remove_value(new, ("mcpServers", "engram"), undo) == text
    return new


def test_new_member_goes_after_the_last_sibling_at_its_indent() -> None:
    text = '{\n    "mcpServers": {\n        "other": {"command": "x"}\n    }\n}\n'
    assert _set(text) == (
        '{\n    "mcpServers": {\n        "other": {"command": "x"},\n'
        '        "engram": {\n            "command": "engram-mcp",\n            "args": []\n'
        "        }\n    }\n}\n"
    )


def test_tabs_crlf_and_bom_are_kept() -> None:
    text = '\ufeff{\r\n\t"theme": "dark"\r\n}\r\n'
    assert _set(text) == (
        '\ufeff{\r\n\t"theme": "dark",\r\n\t"mcpServers": {\r\n\t\t"engram": {\r\n'
        '\t\t\t"command": "engram-mcp",\r\n\t\t\t"args": []\r\n\t\t}\r\n\t}\r\n}\r\n'
    )


def test_trailing_comma_style_is_followed() -> None:
    text = '{\n  "mcp": {\n    "a": 1,\n  },\n}\n'
    new, _ = set_value(text, ("mcp", "engram"), {"x": 1}, strict=False)
    assert new == '{\n  "mcp": {\n    "a": 1,\n    "engram": {\n      "x": 1,\n    },\n  },\n}\n'


def test_comments_stay_where_they_were() -> None:
    text = (
        "// top comment\n{\n"
        '  /* servers */\n  "mcpServers": {\n    "a": {"command": "x"} // the a server\n  }\n'
        "}\n"
    )
    new = _set(text)
    assert new.startswith("// top comment\n{\n  /* servers */\n")
    assert '"a": {"command": "x"}, // the a server\n    "engram": {' in new


def test_one_line_objects_stay_on_one_line() -> None:
    assert _set('{"mcpServers": {"a": 1}}') == (
        '{"mcpServers": {"a": 1, "engram": {"command": "engram-mcp", "args": []}}}'
    )


def test_strings_that_look_like_comments_are_strings() -> None:
    text = '{"url": "http://x/*y*/", "q": "say \\"//hi\\"", "u": "\\u00e9\\ud83d\\ude00"}'
    assert load(text) == {"url": "http://x/*y*/", "q": 'say "//hi"', "u": "é😀"}
    assert load(_set(text))["q"] == 'say "//hi"'  # type: ignore[index]


def test_nested_arrays_and_lists_of_hooks() -> None:
    text = '{\n  "hooks": {\n    "SessionStart": [\n      {"matcher": "x", "hooks": [[1], []]}\n    ]\n  }\n}\n'
    item = {"matcher": "startup", "hooks": [{"type": "command", "command": "engram hook"}]}
    new, undo = add_to_list(text, ("hooks", "SessionStart"), item, strict=True)
    assert new == (
        '{\n  "hooks": {\n    "SessionStart": [\n      {"matcher": "x", "hooks": [[1], []]},\n'
        '      {\n        "matcher": "startup",\n        "hooks": [\n          {\n'
        '            "type": "command",\n            "command": "engram hook"\n'
        "          }\n        ]\n      }\n    ]\n  }\n}\n"
    )
    again, none = add_to_list(new, ("hooks", "SessionStart"), item, strict=True)
    assert again == new and none is None
    assert remove_from_list(new, ("hooks", "SessionStart"), item, undo) == text


@pytest.mark.parametrize("blank", ["", "\n", "  \r\n"])
def test_blank_file_is_an_empty_object(blank: str) -> None:
    assert load(blank) == {}
    assert load(_set(blank)) == {"mcpServers": {"engram": SERVER}}


@pytest.mark.parametrize(
    ("text", "line", "column", "says"),
    [
        ('{\n  "a": 1,\n  "b": }\n', 3, 8, "expected a value"),
        ('{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected '}' or ','"),
        ('{"a": "unterminated}', 1, 7, "unterminated string"),
        ('{"a": tru}', 1, 7, "unexpected 'tru'"),
        ('{"a": 01}', 1, 7, "invalid number"),
        ('{"a": "\\x"}', 1, 8, "invalid escape"),
        ("{/* open", 1, 2, "unterminated block comment"),
        ("// only a comment\n", 2, 1, "only comments"),
        ('{"a": 1} {"b": 2}', 1, 10, "after the document"),
        ("{'a': 1}", 1, 2, "unexpected"),
    ],
)
def test_parse_errors_name_file_line_and_column(
    text: str, line: int, column: int, says: str
) -> None:
    with pytest.raises(EngramError) as caught:
        set_value(text, ("mcpServers", "engram"), SERVER, strict=False, where="/home/u/.mcp.json")
    err = caught.value
    assert err.code == "edit.parse_error"
    assert err.message.startswith(f"/home/u/.mcp.json:{line}:{column}: ")
    assert says in err.message
    assert "\n" not in err.one_line() and err.remedy


def test_strict_json_never_writes_a_trailing_comma_or_a_comment() -> None:
    # A trailing comma the user already has becomes the separator before Engram's member.
    text = '{\n  // gemini allows comments\n  "mcpServers": {\n    "a": 1,\n  }\n}\n'
    new = _set(text, strict=True)
    assert new == (
        '{\n  // gemini allows comments\n  "mcpServers": {\n    "a": 1,\n'
        '    "engram": {\n      "command": "engram-mcp",\n      "args": []\n    }\n  }\n}\n'
    )
    assert _set('{\n  "a": 1,\n}\n', strict=True).count(",\n}") == 0


def test_a_parent_that_is_not_an_object_is_a_clear_error() -> None:
    with pytest.raises(EngramError) as caught:
        set_value('{"mcpServers": []}', ("mcpServers", "engram"), SERVER, strict=False)
    assert caught.value.code == "edit.type_conflict"
    with pytest.raises(EngramError):
        set_value("[1, 2]", ("mcpServers", "engram"), SERVER, strict=False)


def test_removing_keeps_a_parent_the_user_also_uses() -> None:
    new, undo = set_value("{}", ("mcpServers", "engram"), SERVER, strict=False)
    new, _ = set_value(new, ("mcpServers", "mine"), 1, strict=False)
    assert load(remove_value(new, ("mcpServers", "engram"), undo)) == {"mcpServers": {"mine": 1}}


def test_replacing_then_removing_restores_the_old_value_text() -> None:
    text = '{"mcpServers": {"engram": {"command":"old"}}}'
    new, undo = set_value(text, ("mcpServers", "engram"), SERVER, strict=False)
    assert load(new) == {"mcpServers": {"engram": SERVER}}
    assert remove_value(new, ("mcpServers", "engram"), undo) == text


def test_absurdly_deep_nesting_is_a_parse_error_not_a_crash() -> None:
    with pytest.raises(EngramError) as caught:
        load("[" * 20000 + "]" * 20000)
    assert caught.value.code == "edit.parse_error"
