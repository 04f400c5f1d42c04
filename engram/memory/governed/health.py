"""``engram_verify`` and ``engram_status``: integrity of stored hashes, health and counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.memory.governed import approvals
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.content import content_hash, hashed_fields
from engram.memory.governed.prefs import get_roles, get_rule_variant
from engram.store import governed as sql


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Result of recomputing every stored content hash."""

    checked: int
    mismatches: tuple[dict[str, Any], ...]
    missing_files: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when every hash matches and every live note has its file."""
        return not self.mismatches and not self.missing_files

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "ok": self.ok,
            "checked": self.checked,
            "mismatches": list(self.mismatches),
            "missing_files": list(self.missing_files),
        }

    def text(self) -> str:
        """Human summary."""
        if self.ok:
            return f"verify: ok ({self.checked} memories, every hash matches)"
        lines = [f"verify: {len(self.mismatches)} hash mismatch(es) in {self.checked} memories"]
        lines += [
            f"  {m['id']} ({m['tier']}): stored {m['stored']}, now {m['actual']}"
            for m in self.mismatches
        ]
        lines += [f"  missing note file: {path}" for path in self.missing_files]
        return "\n".join(lines)


def verify(kb: KnowledgeBase) -> VerifyReport:
    """Recompute the content hash of every memory of this project (and global ones)."""
    mismatches: list[dict[str, Any]] = []
    missing: list[str] = []
    checked = 0
    today = kb.today()
    for row in sql.list_all(kb.conn):
        if row["project"] not in (kb.project, ""):
            continue
        checked += 1
        actual = content_hash(hashed_fields(row))
        if actual != row["content_hash"]:
            mismatches.append(
                {
                    "id": row["id"],
                    "tier": row["tier"],
                    "stored": row["content_hash"],
                    "actual": actual,
                }
            )
        if row["tier"] == "working" and str(row["valid_until"]) >= today:
            path = kb.workspace.working_dir / f"{row['id']}.md"
            if row["project"] == kb.project and not path.exists():
                missing.append(str(path))
    return VerifyReport(checked, tuple(mismatches), tuple(missing))


def status(kb: KnowledgeBase) -> dict[str, Any]:
    """Health and counts: memories by tier and type, pending proposals, roles, variant."""
    report = verify(kb)
    counts = sql.counts(kb.conn, kb.project, kb.today())
    return {
        "project": kb.project,
        "workspace": str(kb.workspace.path),
        "healthy": report.ok,
        "hash_mismatches": len(report.mismatches),
        **counts,
        "pending_proposals": approvals.pending_count(kb.workspace, kb.now()),
        "roles": get_roles(kb),
        "rule_variant": get_rule_variant(kb),
        "working_ttl_days": kb.config.working_ttl_days,
    }


def status_text(data: dict[str, Any]) -> str:
    """Human summary of :func:`status`."""
    types = ", ".join(f"{t} {n}" for t, n in data["by_type"].items()) or "none"
    return "\n".join(
        [
            f"engram governed memory — project {data['project']}: "
            + ("healthy" if data["healthy"] else f"{data['hash_mismatches']} hash mismatch(es)"),
            f"  durable {data['durable']} ({types}); working notes {data['working']}"
            f" (+{data['expired_notes']} expired); superseded {data['superseded']}",
            f"  pending proposals {data['pending_proposals']}; roles "
            f"{', '.join(data['roles']) or '(all)'}; rule variant {data['rule_variant']}",
        ]
    )
