"""A memory's code status (``current``, ``changed``, ``stale``) and the citation settings.

``ENGRAM_CODE_CITATIONS``: ``on`` (default) finds citations at save and checks them on read;
``record`` finds them but never checks (results carry no code status); ``off`` does neither.
``ENGRAM_STALE_REVIEW_DAYS`` (default 30): a stale memory no agent fetched or re-saved for that
many days is ``needs_review`` even before its review date.

On the hook path: ``os`` and the records only.
"""

from __future__ import annotations

import os

from engram.store.records import Record, record

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from collections.abc import Mapping

CURRENT, CHANGED, STALE = "current", "changed", "stale"
FUNCTION, CLASS, CONSTANT = "function", "class", "constant"  # kinds of defined symbols
DEFAULT_STALE_REVIEW_DAYS = 30
_OFF = ("off", "0", "false", "no", "none")


@record
class CodeStatus(Record):
    """What checking a memory's citations found.

    Attributes:
        state: ``stale`` (a cited file is gone or moved, or a cited symbol is no longer
            defined in it), ``changed`` (a cited file changed since the save), or ``current``.
        reasons: one line per citation that is not current, e.g.
            ``billing/retry.py renamed to billing/backoff.py``.
        citations: how many citations were checked.
        used_at: when the memory was last saved or fetched (UTC stamp).
    """

    state: str
    reasons: tuple[str, ...]
    citations: int
    used_at: str

    @property
    def stale(self) -> bool:
        """Whether the memory's code is gone or moved."""
        return self.state == STALE

    def label(self) -> str:
        """The one line results show: ``stale: <reasons>``, ``<path> changed since saved``."""
        if self.state == STALE:
            return "stale: " + "; ".join(self.reasons)
        if self.state == CHANGED:
            return "; ".join(self.reasons)
        return "current"


def shown(symbol: str, kind: str | None) -> str:
    """How a reason names a symbol: ``backoff()`` for a function, else the bare name."""
    return f"{symbol}()" if kind == FUNCTION else symbol


def mode(env: Mapping[str, str] | None = None) -> str:
    """``on``, ``record`` or ``off`` from ``ENGRAM_CODE_CITATIONS`` (anything else: on)."""
    value = (os.environ if env is None else env).get("ENGRAM_CODE_CITATIONS", "").strip().lower()
    if value in _OFF:
        return "off"
    return "record" if value == "record" else "on"


def finding_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether saves record citations."""
    return mode(env) != "off"


def checking_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether served memories have their citations checked."""
    return mode(env) == "on"


def stale_review_days(env: Mapping[str, str] | None = None) -> int:
    """Days a stale memory may go unused before it is ``needs_review`` (0: at once)."""
    raw = (os.environ if env is None else env).get("ENGRAM_STALE_REVIEW_DAYS", "").strip()
    try:
        days = int(raw)
    except ValueError:
        return DEFAULT_STALE_REVIEW_DAYS
    return max(days, 0)
