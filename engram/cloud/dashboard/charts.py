"""Charts rendered on the server as inline SVG: no script, no external asset, CSP-clean.

Each chart is a bar chart with a text alternative (``<title>`` and ``aria-label``) and a
``<desc>`` table of its values, so a screen reader and a keyboard user get the numbers too.
Colours come from the stylesheet (classes, no inline style).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from html import escape

from markupsafe import Markup

WIDTH = 640
HEIGHT = 200
PAD_LEFT = 36
PAD_BOTTOM = 28
PAD_TOP = 12


@dataclass(frozen=True)
class Bar:
    """One bar: its label and value."""

    label: str
    value: int


def day_series(counts: dict[str, int], days: int, today: date) -> list[Bar]:
    """One bar per day for the last ``days`` days ending ``today`` (missing days are 0)."""
    start = today - timedelta(days=days - 1)
    return [
        Bar(
            (start + timedelta(days=i)).isoformat(),
            counts.get((start + timedelta(days=i)).isoformat(), 0),
        )
        for i in range(days)
    ]


def bar_chart(bars: list[Bar], title: str, *, label_every: int = 1) -> Markup:
    """An SVG bar chart of ``bars`` (labels under every ``label_every``-th bar)."""
    peak = max((bar.value for bar in bars), default=0)
    top = max(peak, 1)
    plot_w = WIDTH - PAD_LEFT - 8
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    step = plot_w / max(len(bars), 1)
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
        f' aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet">',
        f"<title>{escape(title)}</title>",
        "<desc>" + escape("; ".join(f"{b.label}: {b.value}" for b in bars)) + "</desc>",
        f'<line class="axis" x1="{PAD_LEFT}" y1="{HEIGHT - PAD_BOTTOM}"'
        f' x2="{WIDTH - 8}" y2="{HEIGHT - PAD_BOTTOM}"/>',
        f'<text class="tick" x="{PAD_LEFT - 6}" y="{PAD_TOP + 8}" text-anchor="end">{peak}</text>',
        f'<text class="tick" x="{PAD_LEFT - 6}" y="{HEIGHT - PAD_BOTTOM}" text-anchor="end">0</text>',
    ]
    for index, bar in enumerate(bars):
        height = plot_h * bar.value / top
        x = PAD_LEFT + index * step + step * 0.15
        y = HEIGHT - PAD_BOTTOM - height
        parts.append(
            f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{step * 0.7:.1f}"'
            f' height="{height:.1f}"><title>{escape(bar.label)}: {bar.value}</title></rect>'
        )
        if index % label_every == 0:
            short = bar.label[5:] if len(bar.label) == 10 and bar.label[4] == "-" else bar.label
            parts.append(
                f'<text class="label" x="{x + step * 0.35:.1f}" y="{HEIGHT - PAD_BOTTOM + 16}"'
                f' text-anchor="middle">{escape(short[:14])}</text>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))
