"""How much of the vault is searchable, and why the rest is not: grouped reasons, and a warning
when most of it is not. Plain functions; the ingest summary prints them, the note catalogue keeps
them (``catalog/health.json``) and a query on such a vault carries a hint (no note text, ever).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lucasrag.settings import Settings

#: Above this share of invalid + quarantined notes, the vault is called mostly unsearchable.
UNSEARCHABLE_SHARE = 0.25
EXAMPLES = 3

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_PAREN = re.compile(r"\s*\([^)]*\)")
_NUMBER = re.compile(r"(?<![\w-])\d+(?:\.\d+)?(?!\w)")

#: Likely cause → what fixes it, by the first words of a reason group.
_FIXES: tuple[tuple[str, str], ...] = (
    (
        "low confidence",
        "review with `lucasrag quarantine list`, approve with `lucasrag quarantine approve PATH "
        "--workspace W`, or give the notes a `workspace:` key",
    ),
    (
        "too little content",
        "these are near-empty notes; approve the ones that matter with "
        "`lucasrag quarantine approve PATH --workspace W`",
    ),
    (
        "content-free",
        "web clippings of pages that never loaded (an error, sign-in or front page): clip the article again, "
        "or approve one that matters with `lucasrag quarantine approve PATH --workspace W`",
    ),
    ("malformed frontmatter", "fix the YAML at the line named in each reason (`lucasrag notes --json` lists them)"),
    ("frontmatter is a", "frontmatter must be `key: value` lines between '---' lines"),
    ("not UTF-8", "re-save the files as UTF-8"),
    ("file is", "raise LUCASRAG_MAX_NOTE_BYTES, or split the notes"),
    ("bad workspace", "use one of technical, creative, personal, administrative in `workspace:`"),
    ("bad band", "use `band: present` or `band: archival`"),
    ("bad charged", "write `charged:` as a list of names"),
)


def reason_group(reason: str | None) -> str:
    """A reason without its particulars: 'low confidence: best guess x at 0.26 < …' → 'low confidence'."""
    text = (reason or "no reason given").removeprefix("skipped: ")
    text = _PAREN.sub("", _QUOTED.sub("…", text))
    head = text.split(":", 1)[0].strip()
    return _NUMBER.sub("N", head) or text.strip()


@dataclass(frozen=True)
class ReasonGroup:
    status: str
    reason: str
    count: int
    examples: tuple[str, ...]  # vault-relative paths


@dataclass(frozen=True)
class VaultHealth:
    counts: dict[str, int] = field(default_factory=dict)  # status → files
    groups: tuple[ReasonGroup, ...] = ()  # largest first
    undated_warnings: int = 0  # notes whose date could not be read

    @property
    def notes(self) -> int:
        """Files that are meant to be searchable notes (skipped ones are deliberately not, private ones are
        the person's own: neither counts)."""
        return sum(n for s, n in self.counts.items() if s not in ("skipped", "private"))

    @property
    def unsearchable(self) -> int:
        return self.counts.get("invalid", 0) + self.counts.get("quarantined", 0)

    @property
    def unsearchable_share(self) -> float:
        return self.unsearchable / self.notes if self.notes else 0.0


def vault_health(rows: Iterable[tuple[str, str, str | None]], *, undated_warnings: int = 0) -> VaultHealth:
    """From ``(path, status, reason)`` rows: counts per status and reasons grouped (examples kept)."""
    counts: dict[str, int] = {}
    grouped: dict[tuple[str, str], list[str]] = {}
    for path, status, reason in rows:
        counts[status] = counts.get(status, 0) + 1
        if status not in ("indexed", "private"):  # a private note is counted, never listed
            grouped.setdefault((status, reason_group(reason)), []).append(path)
    groups = sorted(
        (ReasonGroup(s, r, len(paths), tuple(sorted(paths)[:EXAMPLES])) for (s, r), paths in grouped.items()),
        key=lambda g: (-g.count, g.status, g.reason),
    )
    return VaultHealth(counts, tuple(groups), undated_warnings)


def likely_fix(group: ReasonGroup) -> str:
    for start, fix in _FIXES:
        if group.reason.startswith(start):
            return fix
    return "see each file's reason with `lucasrag notes --json`"


def unsearchable_warning(health: VaultHealth) -> str | None:
    """The warning for a vault whose notes are mostly not searchable, with the likely cause and its fix."""
    if health.notes == 0 or health.unsearchable_share <= UNSEARCHABLE_SHARE:
        return None
    problems = [g for g in health.groups if g.status in ("invalid", "quarantined")]
    top = problems[0]
    return (
        f"{health.unsearchable} of {health.notes} notes ({health.unsearchable_share:.0%}) are not searchable "
        f"({health.counts.get('quarantined', 0)} quarantined, {health.counts.get('invalid', 0)} invalid). "
        f"Most likely cause: {top.count} {top.status} for '{top.reason}'. Fix: {likely_fix(top)}."
    )


def health_path(settings: Settings) -> Path:
    return settings.data / "catalog" / "health.json"


def write_health(settings: Settings, health: VaultHealth) -> None:
    path = health_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(health), ensure_ascii=False))
    tmp.replace(path)


def read_health(settings: Settings) -> VaultHealth | None:
    """The last ingest's health, or None (no ingest yet, or an unreadable file: no hint then)."""
    try:
        data = json.loads(health_path(settings).read_text())
        groups = tuple(ReasonGroup(g["status"], g["reason"], g["count"], tuple(g["examples"])) for g in data["groups"])
        return VaultHealth(dict(data["counts"]), groups, int(data.get("undated_warnings", 0)))
    except (OSError, ValueError, KeyError, TypeError):
        return None
