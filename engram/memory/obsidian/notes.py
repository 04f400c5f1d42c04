"""Rendering the vault's notes: paths, YAML frontmatter, wikilinks, bodies.

Everything here is a pure function of the rows, so the same memory renders byte for byte
the same vault (a second export finds nothing to write).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence

from engram.store.records import Observation, Session

MAX_SLUG = 60
# Characters Obsidian refuses in file names or reads as link syntax.
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]]')
_SPACES = re.compile(r"\s+")
_TAG_UNSAFE = re.compile(r"[^\w/-]")


def slug(text: str, *, keep_unique: bool = False) -> str:
    """A file-name-safe form of ``text`` (at most ``MAX_SLUG`` characters; control and
    format characters dropped, whitespace runs made one space). With
    ``keep_unique``, a name that had to change gets a short hash of the original, so two
    different ids never share a note."""
    visible = "".join(c for c in text if not unicodedata.category(c).startswith("C") or c.isspace())
    cleaned = _SPACES.sub(" ", _UNSAFE.sub("-", visible)).strip(" .")[:MAX_SLUG].strip(" .")
    cleaned = cleaned or "untitled"
    if keep_unique and cleaned != text:
        cleaned += "-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:6]
    return cleaned


def project_path(project: str) -> str:
    """``projects/<project>`` (vault-relative, without ``.md``)."""
    return f"projects/{slug(project or 'no-project', keep_unique=True)}"


def session_path(session_id: str) -> str:
    """``sessions/<session id>``."""
    return f"sessions/{slug(session_id, keep_unique=True)}"


def topic_path(project: str, topic_key: str) -> str:
    """``topics/<project>/<topic key>``."""
    folder = slug(project or "no-project", keep_unique=True)
    return f"topics/{folder}/{slug(topic_key, keep_unique=True)}"


def observation_path(obs_id: int, title: str, project: str) -> str:
    """``observations/<project>/<id> <title>``: the id keeps it unique, the title readable."""
    folder = slug(project or "no-project", keep_unique=True)
    return f"observations/{folder}/{obs_id} {slug(title)}"


def link(path: str, label: str) -> str:
    """A wikilink to ``path`` showing ``label`` (made safe for the alias position)."""
    alias = _SPACES.sub(" ", label.replace("[", "(").replace("]", ")").replace("|", "/"))
    return f"[[{path}|{alias.strip() or path}]]"


def escape_links(text: str) -> str:
    """Body text with every ``[[`` escaped, so stored text never becomes a wikilink."""
    return re.sub(r"\[(?=\[)", r"\\[", text)


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar for ``text`` (escapes: ``\\"``, ``\\\\``, ``\\n``,
    ``\\t``, ``\\uXXXX`` for every other control or non-printable character)."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029, 0xFEFF):
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
            out.append("\\ufffd")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def iso(stamp: str | None) -> str:
    """A store timestamp as an ISO 8601 UTC datetime (``null`` for None)."""
    return f"{stamp.replace(' ', 'T')}Z" if stamp else "null"


def tag(*parts: str) -> str:
    """An Obsidian tag (letters, digits, ``_``, ``-``, ``/``; never only digits)."""
    return "/".join(_TAG_UNSAFE.sub("-", part) or "none" for part in parts)


def frontmatter(fields: Sequence[tuple[str, object]]) -> str:
    """The ``---`` block: strings quoted, ints and datetimes bare, lists as ``- item``."""
    lines = ["---"]
    for key, value in fields:
        if isinstance(value, list):
            lines.append(f"{key}:" if value else f"{key}: []")
            lines.extend(f"  - {yaml_string(str(item))}" for item in value)
        elif value is None:
            lines.append(f"{key}: null")
        elif isinstance(value, int | RawYaml):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {yaml_string(str(value))}")
    lines.append("---")
    return "\n".join(lines) + "\n"


class RawYaml(str):
    """A value written as is (an ISO datetime)."""

    __slots__ = ()


def observation_note(obs: Observation, relation_lines: Iterable[str]) -> str:
    """One observation: frontmatter, title, content, its links and relations."""
    fields: list[tuple[str, object]] = [
        ("id", obs.id),
        ("sync_id", obs.sync_id),
        ("type", obs.type),
        ("project", obs.project),
        ("scope", obs.scope),
        ("topic_key", obs.topic_key),
        ("session", obs.session_id),
        ("created", RawYaml(iso(obs.created_at))),
        ("updated", RawYaml(iso(obs.updated_at))),
        ("tags", [tag("engram", obs.type), tag("project", obs.project or "none")]),
    ]
    links = [f"- Project: {link(project_path(obs.project), obs.project or 'no project')}"]
    if obs.session_id:
        links.append(f"- Session: {link(session_path(obs.session_id), obs.session_id)}")
    if obs.topic_key:
        links.append(f"- Topic: {link(topic_path(obs.project, obs.topic_key), obs.topic_key)}")
    body = [f"# {escape_links(obs.title)}", "", escape_links(obs.content).rstrip(), ""]
    body += ["## Links", "", *links, ""]
    relations = sorted(relation_lines)
    if relations:
        body += ["## Relations", "", *relations, ""]
    return frontmatter(fields) + "\n" + "\n".join(body)


def session_note(session: Session, members: Sequence[tuple[int, str, str]]) -> str:
    """One session: its facts, summary, and a link to each observation in recorded order."""
    fields: list[tuple[str, object]] = [
        ("session_id", session.id),
        ("project", session.project),
        ("directory", session.directory),
        ("started", RawYaml(iso(session.started_at))),
        ("ended", RawYaml(iso(session.ended_at))),
        ("tags", [tag("engram", "session"), tag("project", session.project or "none")]),
    ]
    body = [f"# Session {escape_links(session.id)}", ""]
    body.append(f"Project: {link(project_path(session.project), session.project or 'no project')}")
    body.append("")
    if session.summary:
        body += ["## Summary", "", escape_links(session.summary).rstrip(), ""]
    body += ["## Observations", ""]
    body += [f"- {link(observation_path(i, t, p), f'#{i} {t}')}" for i, t, p in members]
    if not members:
        body.append("(none)")
    return frontmatter(fields) + "\n" + "\n".join(body) + "\n"


def topic_note(project: str, topic_key: str, members: Sequence[tuple[int, str]]) -> str:
    """One topic key of a project, linking every observation that carries it."""
    fields: list[tuple[str, object]] = [
        ("topic_key", topic_key),
        ("project", project),
        ("tags", [tag("engram", "topic"), tag("project", project or "none")]),
    ]
    body = [f"# Topic {escape_links(topic_key)}", ""]
    body.append(f"Project: {link(project_path(project), project or 'no project')}")
    body += ["", "## Observations", ""]
    body += [f"- {link(observation_path(i, t, project), f'#{i} {t}')}" for i, t in members]
    return frontmatter(fields) + "\n" + "\n".join(body) + "\n"


def project_note(
    project: str, sessions: Sequence[str], topics: Sequence[str], observations: int
) -> str:
    """One project: its sessions and topics."""
    fields: list[tuple[str, object]] = [
        ("project", project),
        ("observations", observations),
        ("tags", [tag("engram", "project")]),
    ]
    body = [f"# {escape_links(project or 'no project')}", "", f"{observations} observations.", ""]
    body += ["## Sessions", ""]
    body += [f"- {link(session_path(s), s)}" for s in sessions] or ["(none)"]
    body += ["", "## Topics", ""]
    body += [f"- {link(topic_path(project, t), t)}" for t in topics] or ["(none)"]
    return frontmatter(fields) + "\n" + "\n".join(body) + "\n"


def index_note(projects: Sequence[str]) -> str:
    """``Engram.md``: every exported project."""
    fields: list[tuple[str, object]] = [("tags", [tag("engram", "index")])]
    body = ["# Engram", "", "What your agents remember, one note per memory.", ""]
    body += [f"- {link(project_path(p), p or 'no project')}" for p in projects] or ["(empty)"]
    return frontmatter(fields) + "\n" + "\n".join(body) + "\n"
