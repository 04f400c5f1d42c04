"""The YAML editor on the files people really keep: set then remove gives back every byte.

Cases are the configs Goose (``extensions:`` map) and Continue (``mcpServers:`` list) users
have: comments everywhere, CRLF, a BOM, anchors and aliases, flow style, quoting, a missing
final newline. Files the host could not read are refused with a located, one-line error.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonc_docs import PROPERTY

from engram.edit import yaml_doc
from engram.edit.jsonc.document import same
from engram.edit.plan import AddToList, DocFormat, LinkPlan, Scope, SetValue
from engram.errors import EngramError
from engram.testing import Sandbox

GOOSE = {"name": "engram", "cmd": "engram-mcp", "args": [], "enabled": True, "type": "stdio"}
CONTINUE = {"name": "engram", "command": "engram-mcp", "args": []}
BOM = "\ufeff"

MAPS = {
    "empty": "",
    "comment-only": "# nothing yet\n",
    "no-final-newline": "GOOSE_PROVIDER: openai",
    "comments-everywhere": (
        "# goose config\n"
        "GOOSE_PROVIDER: anthropic  # inline\n"
        "extensions:\n"
        "  developer:\n"
        "    enabled: true\n"
        "    type: builtin\n"
        "  # memory:\n"
        "  #   enabled: false\n"
        "\n"
        "# models below\n"
        "GOOSE_MODEL: 'claude'  \n"
    ),
    "crlf-four-spaces": 'a: "x"\r\nextensions:\r\n    other:\r\n        cmd: o\r\n',
    "bom": BOM + "extensions:\n  other:\n    cmd: o\n",
    "anchors-aliases": (
        "defaults: &defaults\n  timeout: 300\n  enabled: true\n"
        "extensions:\n  other:\n    <<: *defaults\n    cmd: o\n"
        "copy: *defaults\n"
    ),
    "flow-empty": "extensions: {}\n",
    "flow-full": "extensions: {other: {cmd: o, args: [-v]}}  # flow\n",
    "quoting": 'title: \'single\'\nother: "double"\nextensions:\n  x:\n    cmd: "x y"\n',
    "explicit-document": "---\nextensions:\n  x:\n    cmd: y\n...\n",
    "compact-lists": "extensions:\n  x:\n    args:\n    - a\n    - b\nlast: 1\n",
    "tab-inside-value": "title: \"a\\tb\"\nnote: 'tab\there'\n",
}
LISTS = {
    "empty": "",
    "continue-indented": (
        "name: My Config\nversion: 0.0.1\nschema: v1\n"
        "mcpServers:\n  - name: other\n    command: o\n    args:\n      - -v\n"
        "# models\nmodels: []\n"
    ),
    "compact": "mcpServers:\n- name: other\n  command: o\nmodels:\n- name: m\n",
    "flow": "mcpServers: [{name: other, command: o}]\n",
    "crlf-bom": BOM + "mcpServers:\r\n  - name: other\r\n    command: o\r\n",
}


@pytest.mark.parametrize("text", MAPS.values(), ids=MAPS.keys())
def test_set_then_remove_gives_back_the_original_bytes(text: str) -> None:
    path = ("extensions", "engram")
    new, inserted = yaml_doc.set_value(text, path, GOOSE)
    expected = copy.deepcopy(yaml_doc.load(text))
    expected.setdefault("extensions", {})["engram"] = GOOSE
    assert same(yaml_doc.load(new), expected)
    assert new.startswith(BOM) == text.startswith(BOM)
    assert ("\r\n" in new) == ("\r\n" in text)
    if "#" in text:
        assert all(line in new for line in text.splitlines() if line.lstrip().startswith("#"))
    assert yaml_doc.remove_value(new, path, inserted) == text


@pytest.mark.parametrize("text", LISTS.values(), ids=LISTS.keys())
def test_add_then_remove_list_item_gives_back_the_original_bytes(text: str) -> None:
    done = yaml_doc.add_to_list(text, ("mcpServers",), CONTINUE)
    assert done is not None
    new, inserted = done
    servers = yaml_doc.load(new)["mcpServers"]
    assert (
        servers[-1] == CONTINUE
        and len(servers) == len(yaml_doc.load(text).get("mcpServers", [])) + 1
    )
    assert yaml_doc.add_to_list(new, ("mcpServers",), CONTINUE) is None  # already there
    assert yaml_doc.remove_from_list(new, ("mcpServers",), CONTINUE, inserted) == text


def test_new_entry_uses_the_files_indentation() -> None:
    text = LISTS["continue-indented"]
    new, _ = yaml_doc.add_to_list(text, ("mcpServers",), CONTINUE) or ("", None)
    assert "  - name: other\n    command: o\n    args:\n      - -v\n  - name: engram\n" in new
    assert new.endswith("# models\nmodels: []\n")
    crlf = MAPS["crlf-four-spaces"]
    assert (
        "\r\n    engram:\r\n        name: engram\r\n"
        in yaml_doc.set_value(crlf, ("extensions", "engram"), GOOSE)[0]
    )


def test_aliases_keep_their_anchors_and_merges() -> None:
    text = MAPS["anchors-aliases"]
    new, _ = yaml_doc.set_value(text, ("extensions", "engram"), GOOSE)
    assert "&defaults" in new and "<<: *defaults" in new and "copy: *defaults" in new
    assert yaml_doc.load(new)["extensions"]["other"]["timeout"] == 300


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("extensions:\n\tother: 1\n", "tabs for indentation"),
        ("a: 1\na: 2\n", "duplicate key"),
        ("a: 1\n---\nb: 2\n", "another document"),
        ("extensions: [unclosed\n", ":2:1"),
        ("- just\n- a list\n", "not a mapping"),
        ("extensions: 3\n", "extensions is not a mapping"),
        ("shared: &s\n  a: 1\nextensions: *s\n", "anchor &s"),
    ],
)
def test_a_file_the_host_cannot_read_is_refused_clearly(text: str, says: str) -> None:
    with pytest.raises(EngramError) as err:
        yaml_doc.set_value(text, ("extensions", "engram"), GOOSE, where="config.yaml")
    assert says in err.value.message
    assert err.value.message.startswith("config.yaml")
    assert "\n" not in err.value.message


def test_engine_links_and_unlinks_yaml_byte_for_byte(sandbox: Sandbox) -> None:
    from engram.edit.engine import apply, reverse
    from engram.edit.ledger import Ledger

    goose = sandbox.home / ".config/goose/config.yaml"
    cont = sandbox.home / ".continue/config.yaml"
    for path, text in ((goose, MAPS["comments-everywhere"]), (cont, LISTS["crlf-bom"])):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    before = {p: p.read_bytes() for p in (goose, cont)}
    plan = LinkPlan(
        "test",
        Scope.GLOBAL,
        [
            SetValue(goose, DocFormat.YAML, ("extensions", "engram"), GOOSE),  # type: ignore[arg-type]
            AddToList(cont, DocFormat.YAML, ("mcpServers",), CONTINUE),  # type: ignore[arg-type]
        ],
        root=sandbox.home,
        server_command=["engram-mcp"],
    )
    ledger = Ledger.at(sandbox.data_dir)
    apply([plan], ledger)
    assert yaml_doc.load(goose.read_text())["extensions"]["engram"] == GOOSE
    assert CONTINUE in yaml_doc.load(cont.read_text(encoding="utf-8-sig"))["mcpServers"]
    again = apply([plan], ledger)
    assert all("already linked" in f.notes for f in again[0].files)
    reverse("test", Scope.GLOBAL, ledger)
    assert {p: p.read_bytes() for p in (goose, cont)} == before


def test_a_file_that_does_not_parse_is_never_written(sandbox: Sandbox) -> None:
    from engram.edit.engine import apply
    from engram.edit.ledger import Ledger

    bad = sandbox.home / ".config/goose/config.yaml"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"extensions:\n\tbroken: 1\n")
    plan = LinkPlan(
        "test",
        Scope.GLOBAL,
        [SetValue(bad, DocFormat.YAML, ("extensions", "engram"), GOOSE)],
        root=sandbox.home,
    )  # type: ignore[arg-type]
    with pytest.raises(EngramError) as err:
        apply([plan], Ledger.at(sandbox.data_dir))
    assert err.value.code == "edit.parse_error"
    assert bad.read_bytes() == b"extensions:\n\tbroken: 1\n"


# Generated documents: root keys, nested mappings, lists in both styles, comments, blank lines.
KEY = st.sampled_from(["a", "b", "GOOSE_MODEL", "extensions", "other", "x-y", "mcpServers"])
SCALAR = st.one_of(
    st.integers(-5, 5),
    st.booleans(),
    st.sampled_from(["plain", "'quoted'", '"dq # not a comment"', "~", "[]", "{}", "[1, 2]"]),
)


@st.composite
def yaml_documents(draw: st.DrawFn) -> str:
    """A block-style YAML mapping with comments, nesting and lists."""
    indent = draw(st.sampled_from([2, 4]))
    lines: list[str] = []

    def block(depth: int) -> None:
        for key in draw(st.lists(KEY, unique=True, min_size=1, max_size=3)):
            pad = " " * (indent * depth)
            if draw(st.booleans()):
                lines.append(pad + "# " + draw(st.sampled_from(["note", "key: value", "- item"])))
            kind = draw(st.sampled_from(["scalar", "map", "list"] if depth < 2 else ["scalar"]))
            if kind == "scalar":
                lines.append(f"{pad}{key}: {draw(SCALAR)}")
            elif kind == "map":
                lines.append(f"{pad}{key}:")
                block(depth + 1)
            else:
                lines.append(f"{pad}{key}:")
                dash = pad + (" " * indent if draw(st.booleans()) else "")
                lines.extend(f"{dash}- {draw(SCALAR)}" for _ in range(draw(st.integers(1, 2))))
            if draw(st.booleans()):
                lines.append("")

    block(0)
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return draw(st.sampled_from(["", BOM])) + eol.join(lines) + draw(st.sampled_from(["", eol]))


@settings(PROPERTY)
@given(yaml_documents(), st.sampled_from([("extensions", "engram"), ("engram",), ("a", "b", "c")]))
# found by hypothesis: an existing empty flow mapping filled with a created parent
@example("a: {}\nb: 0", ("a", "b", "c"))
def test_generated_documents_round_trip(text: str, path: tuple[str, ...]) -> None:
    try:
        before: Any = yaml_doc.load(text)
        new, inserted = yaml_doc.set_value(text, path, GOOSE)
    except EngramError as err:
        assert err.code in ("edit.type_conflict", "edit.parse_error")
        return
    found, value = yaml_doc.get(new, path)
    assert found and value == GOOSE
    assert yaml_doc.remove_value(new, path, inserted) == text
    assert before == yaml_doc.load(text)


def test_a_keyed_item_engram_wrote_is_replaced_on_relink(sandbox: Sandbox) -> None:
    from engram.edit.engine import apply, reverse
    from engram.edit.ledger import Ledger

    config = sandbox.home / ".continue/config.yaml"
    config.parent.mkdir(parents=True)
    original = LISTS["continue-indented"]
    config.write_text(original)
    ledger = Ledger.at(sandbox.data_dir)

    def plan(command: str) -> LinkPlan:
        item = {**CONTINUE, "command": command}
        edit = AddToList(config, DocFormat.YAML, ("mcpServers",), item, key="name")
        return LinkPlan("test", Scope.GLOBAL, [edit], root=sandbox.home)

    apply([plan("engram-mcp")], ledger)
    (report,) = apply([plan("/new/engram-mcp")], ledger)  # an upgrade re-pins the command
    assert not report.conflicts
    servers = yaml_doc.load(config.read_text())["mcpServers"]
    assert [s["command"] for s in servers if s["name"] == "engram"] == ["/new/engram-mcp"]
    reverse("test", Scope.GLOBAL, ledger)
    assert config.read_text() == original


@pytest.mark.parametrize(
    "name", ["comments-everywhere", "crlf-four-spaces", "anchors-aliases", "bom"]
)
def test_a_re_pinned_entry_still_unlinks_to_the_original_bytes(name: str) -> None:
    text, path = MAPS[name], ("extensions", "engram")
    first, inserted = yaml_doc.set_value(text, path, GOOSE)
    moved = {**GOOSE, "cmd": "/opt/engram/bin/engram-mcp", "args": ["--x"]}
    repinned, _ = yaml_doc.set_value(first, path, moved)  # an upgrade re-pins the command
    assert yaml_doc.get(repinned, path) == (True, moved)
    kept = [line for line in first.splitlines() if "engram" not in line and "args" not in line]
    assert [line for line in repinned.splitlines() if line in kept] == kept
    assert yaml_doc.remove_value(repinned, path, inserted) == text


def test_a_forced_replacement_changes_only_the_entrys_lines() -> None:
    mine = "# my goose\nextensions:\n  engram:  # built from source\n    cmd: /src/engram\n    args: []\nGOOSE_MODEL: x  # keep\n"
    path = ("extensions", "engram")
    new, _ = yaml_doc.set_value(mine, path, GOOSE)
    assert new.startswith("# my goose\nextensions:\n  engram:\n    name: engram\n")
    assert new.endswith("GOOSE_MODEL: x  # keep\n")
    back, _ = yaml_doc.set_value(new, path, {"cmd": "/src/engram", "args": []})
    assert back == mine.replace("  engram:  # built from source\n", "  engram:\n")


@st.composite
def yaml_lists(draw: st.DrawFn) -> str:
    """A Continue-style config: top keys, then an ``mcpServers`` block list, maybe more keys."""
    dash = " " * draw(st.sampled_from([0, 2, 4]))
    lines = ["name: cfg", "version: 1.0.0", "schema: v1"]
    if draw(st.booleans()):
        lines.append("# servers")
    lines.append("mcpServers:")
    for n in range(draw(st.integers(1, 3))):
        lines.append(f"{dash}- name: s{n}")
        lines.append(f"{dash}  command: {draw(SCALAR)}")
        if draw(st.booleans()):
            lines.append(f"{dash}  # a comment inside item {n}")
        if draw(st.booleans()):
            lines += [f"{dash}  args:", f"{dash}    - -v"]
    if draw(st.booleans()):
        lines += ["", "# models", "models: []"]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return draw(st.sampled_from(["", BOM])) + eol.join(lines) + draw(st.sampled_from(["", eol]))


@settings(PROPERTY)
@given(yaml_lists())
def test_generated_lists_round_trip(text: str) -> None:
    done = yaml_doc.add_to_list(text, ("mcpServers",), CONTINUE)
    assert done is not None
    new, inserted = done
    assert yaml_doc.load(new)["mcpServers"][-1] == CONTINUE
    assert yaml_doc.remove_from_list(new, ("mcpServers",), CONTINUE, inserted) == text
