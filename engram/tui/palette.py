"""Catppuccin Mocha colours and the two-line rendering of list items.

The app runs Textual's ``catppuccin-mocha`` theme; these are the same palette's colours for
the text inside list items (titles, previews, badges), which the theme does not style.
"""

from __future__ import annotations

from datetime import tzinfo

from rich.text import Text

from engram.memory.browse import ListedObservation, ListedSession
from engram.memory.clock import local_time

THEME = "catppuccin-mocha"

TEXT = "#cdd6f4"
SUBTEXT = "#a6adc8"
OVERLAY = "#7f849c"
LAVENDER = "#b4befe"
MAUVE = "#cba6f7"
BLUE = "#89b4fa"
GREEN = "#a6e3a1"
PEACH = "#fab387"
YELLOW = "#f9e2af"
RED = "#f38ba8"
TEAL = "#94e2d5"

TYPE_COLOURS = {
    "decision": MAUVE,
    "bugfix": RED,
    "discovery": TEAL,
    "pattern": BLUE,
    "architecture": PEACH,
    "config": YELLOW,
    "session_summary": GREEN,
}

ACTIVE_BADGE = "(active)"
PREVIEW_WIDTH = 200


def preview(text: str, width: int = PREVIEW_WIDTH) -> str:
    """``text`` on one line, cut at ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def fit(text: Text, width: int | None) -> Text:
    """Each line of ``text`` cut to ``width`` cells with an ellipsis (None: as it is)."""
    if width is None:
        return text
    lines = text.split("\n", allow_blank=True)
    for line in lines:
        line.truncate(width, overflow="ellipsis")
    return Text("\n").join(lines)


def observation_item(
    item: ListedObservation, zone: tzinfo, *, show_project: bool, width: int | None = None
) -> Text:
    """Two lines: ``#id [type] title (active)  project · time``, then a content preview;
    each cut to ``width`` cells."""
    obs = item.observation
    line = Text()
    line.append(f"#{obs.id} ", style=OVERLAY)
    line.append(f"[{obs.type}] ", style=TYPE_COLOURS.get(obs.type, BLUE))
    line.append(obs.title, style=f"bold {TEXT}")
    if item.active:
        line.append(f" {ACTIVE_BADGE}", style=f"bold {GREEN}")
    where = f"{obs.project} · " if show_project else ""
    line.append(f"  {where}{local_time(obs.created_at, zone)}", style=OVERLAY)
    line.append("\n")
    line.append(f"  {preview(obs.content)}", style=SUBTEXT)
    for note in item.annotations:
        line.append(f"\n  {note}", style=PEACH)
    return fit(line, width)


def session_item(item: ListedSession, zone: tzinfo, *, width: int | None = None) -> Text:
    """Two lines: ``id (active)  project · started``, then count and summary preview."""
    session = item.session
    line = Text()
    line.append(session.id, style=f"bold {TEXT}")
    if item.active:
        line.append(f" {ACTIVE_BADGE}", style=f"bold {GREEN}")
    line.append(f"  {session.project or '(no project)'}", style=MAUVE)
    line.append(f" · {local_time(session.started_at, zone)}", style=OVERLAY)
    line.append("\n")
    count = f"{item.observations:,} observation{'s' if item.observations != 1 else ''}"
    summary = preview(session.summary) if session.summary else "no summary"
    line.append(f"  {count} · {summary}", style=SUBTEXT)
    return fit(line, width)
