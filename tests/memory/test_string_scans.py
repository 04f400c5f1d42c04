"""The hook path reads git config headers and remote URLs with string scans instead of ``re``
(issue 27): each gives exactly what the regular expression it replaced gives, on generated
text made of the characters that matter to it."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from engram import project_names
from engram.memory.git_repo import repo_name_from_url, section_header
from engram.memory.project_binding import normalize_remote
from engram.store.migrate import migration_version

SECTION = r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]'
SCP_LIKE = r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$"
URL = r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d+)?(/.*)?$"


def normalize_remote_by_regex(url: str) -> str:
    """normalize_remote as it was written with ``re``."""
    text = url.strip().rstrip("/")
    if text.endswith(".git"):
        text = text[: -len(".git")]
    found = re.match(URL, text, re.IGNORECASE)
    if found and not text.lower().startswith("file:"):
        host, path = found.group(1), found.group(2) or ""
    else:
        scp = re.match(SCP_LIKE, text)
        if scp is None or text.startswith(("/", ".", "file:")):
            return "path:" + text.removeprefix("file://")
        host, path = scp.group(1), "/" + scp.group(2)
    path = re.sub(r"/+", "/", path).strip("/")
    return f"remote:{host.lower()}/{path.lower()}"


def texts(alphabet: str, **kwargs: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, **kwargs)


URL_PIECES = st.lists(
    st.sampled_from(
        [
            "https",
            "ssh",
            "git+ssh",
            "HTTP",
            "file",
            "://",
            ":",
            "/",
            "//",
            "@",
            "git@",
            "user:pw@",
            "github.com",
            "GitHub.COM",
            ":22",
            ":x",
            "22",
            "team",
            "api",
            ".git",
            ".",
            " ",
            "\t",
            "\\",
            "-",
            "+",
            "%",
            "é",
            "\u017f",  # long s: folds to "s" under IGNORECASE
            "\u212a",  # Kelvin sign: folds to "k"
            "٣",
            "\n",
        ]
    ),
    max_size=10,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(URL_PIECES, texts("ab0:/@.+-\\ \t\nA9_", max_size=24), st.text(max_size=16)))
def test_normalize_remote_matches_the_regular_expressions(url: str) -> None:
    assert normalize_remote(url) == normalize_remote_by_regex(url)


def test_normalize_remote_keeps_its_documented_answers() -> None:
    assert normalize_remote("git@GitHub.com:Team/API.git") == "remote:github.com/team/api"
    assert normalize_remote("https://tok@github.com:443/team//api/") == "remote:github.com/team/api"
    assert normalize_remote("/srv/git/api.git") == "path:/srv/git/api"
    assert normalize_remote("file:///srv/git/api") == "path:/srv/git/api"


HEADER_PIECES = st.lists(
    st.sampled_from(
        [
            "[",
            "]",
            '"',
            "\\",
            " ",
            "\t",
            "\xa0",
            "\u2028",
            "remote",
            "Remote.Origin",
            "origin",
            "core",
            "a-b.c",
            "_",
            "é",
            "x",
            '\\"',
            "\\\\",
            "=",
            "url",
        ]
    ),
    max_size=10,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(HEADER_PIECES, st.text(max_size=16)))
@example('[\xa0remote\x1c"origin"\u3000]')  # re's \s is Unicode whitespace
@example('[remote "a\\"b" ] url = x')
@example('[remote "a\\')
@example('[remote "a\\\n"]')
def test_section_headers_match_the_regular_expression(line: str) -> None:
    found = re.match(SECTION, line)
    expected = (found.group(1), found.group(2), found.end()) if found else None
    assert section_header(line) == expected


@settings(max_examples=200, deadline=None)
@given(st.one_of(URL_PIECES, st.text(max_size=16)))
def test_repository_names_match_the_regular_expression(url: str) -> None:
    trimmed = url.strip().rstrip("/").removesuffix(".git")
    assert repo_name_from_url(url) == re.split(r"[/:\\]", trimmed)[-1]


MIGRATION_NAMES = st.lists(
    st.sampled_from(["0001", "0", "12", "٣", "_", "init", "A", "-", ".sql", ".SQL", "x", "9"]),
    max_size=6,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(MIGRATION_NAMES, st.text(max_size=12)))
def test_migration_names_match_the_regular_expression(name: str) -> None:
    found = re.match(r"^(\d{4})_[a-z0-9_]+\.sql\Z", name)  # `$` also took a final newline
    assert migration_version(name) == (int(found.group(1)) if found else None)


@settings(max_examples=200, deadline=None)
@given(texts("-_ aB\t", max_size=16))
def test_project_names_collapse_runs_as_the_regular_expressions_did(raw: str) -> None:
    expected = re.sub(r"_{2,}", "_", re.sub(r"-{2,}", "-", raw.strip().lower()))
    assert project_names.normalized_name(raw) == expected
