"""What awaits a person's care review: inferred withheld pairs, one row per (note, subject).

Both ``lucasrag care list`` (from the note catalogue) and the ``care_reviewed``
asset check (from the chunk table) list them through :func:`review_rows`. A
note's row keeps the strongest chunk's evidence. ``uncertain`` rows are
*pending*; inferred ``charged`` rows are listed too, so that a wrong inference
can be dismissed. Rows carry evidence, never chunk text beyond the mention.
"""

from __future__ import annotations

from collections.abc import Iterable

REVIEW_COLUMNS = (
    "path",
    "subject",
    "outcome",
    "confidence",
    "mention",
    "rule_cue",
    "score",
    "lexical_score",
    "vector_score",
    "nearest",
    "prototype",
)


def review_rows(pairs: Iterable[tuple[str, dict]], *, pending_only: bool = False) -> list[dict]:
    """``(path, assessment dict)`` pairs → review rows sorted by path and subject."""
    best: dict[tuple[str, str], dict] = {}
    for path, a in pairs:
        if a.get("source") != "inferred" or a.get("outcome") not in ("charged", "uncertain"):
            continue
        if pending_only and a["outcome"] != "uncertain":
            continue
        key = (path, a["subject"])
        row = {"path": path, **{c: a.get(c) for c in REVIEW_COLUMNS[1:]}}
        if key not in best or (row["score"] or 0) > (best[key]["score"] or 0):
            best[key] = row
    return [best[k] for k in sorted(best)]
