"""What awaits a person's care review, and which pending pairs a batch decision selects.

``lucasrag care list`` (from the note catalogue) and the ``care_reviewed`` asset check (from the chunk
table) list rows through :func:`review_rows`: one row per (note, subject) whose chunks are withheld with no
decision of the person's. A note's row speaks for its chunk most likely charged. Rows are grouped by subject
and, within a subject, the most likely neutral come first (``neutral`` = 1 - the detector's probability of
charged; 0 for a pair held by words that speak of the subject as gone, ``holding.py``), so that a person can
release a run of them with one batch decision. A row carries the referring sentence for the person's eyes;
hints and MCP never show it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePosixPath

from lucasrag.catalog import care_pending

REVIEW_COLUMNS = (
    "subject",
    "path",
    "neutral",
    "outcome",
    "source",
    "why",
    "mention",
    "reference",
    "sentence",
    "rule_cue",
    "holding",
    "score",
    "inferred",
    "nearest",
    "prototype",
)


def review_rows(pairs: Iterable[tuple[str, dict]], *, every: bool = False) -> list[dict]:
    """``(path, assessment dict)`` pairs → pending review rows (``every``: every pair, released and decided
    ones too), grouped by subject, the most likely neutral first."""
    best: dict[tuple[str, str], dict] = {}
    for path, a in pairs:
        if not every and not care_pending(a):
            continue
        key = (path, a["subject"])
        row = {"path": path, **{c: a.get(c) for c in REVIEW_COLUMNS if c not in ("path", "neutral")}}
        # words that speak of the subject as gone hold a pair whatever its score: it is not likely neutral, is
        # listed last and no --neutral-above batch picks it
        row["neutral"] = None if a.get("score") is None else 0.0 if a.get("holding") else round(1 - a["score"], 4)
        held = best.get(key)
        # a note is as withheld as its most withheld chunk, and as charged as its most charged one
        rank = (row["outcome"] == "withheld", row["score"] or 0.0)
        if held is None or rank > (held["outcome"] == "withheld", held["score"] or 0.0):
            best[key] = row
    return sorted(
        best.values(),
        key=lambda r: (r["subject"].casefold(), -(r["neutral"] if r["neutral"] is not None else -1), r["path"]),
    )


def select(
    rows: Iterable[dict],
    *,
    paths: Iterable[str] = (),
    folder: str | None = None,
    tag: str | None = None,
    tags_of: Callable[[str], Iterable[str]] | None = None,
    subject: str | None = None,
    neutral_above: float | None = None,
    neutral_below: float | None = None,
) -> list[dict]:
    """The review rows a batch decision applies to: every filter given must hold (paths: any of them)."""
    wanted = set(paths)
    prefix = PurePosixPath(folder.strip("/")) if folder else None
    tag = tag.lstrip("#").casefold() if tag else None
    out = []
    for r in rows:
        if wanted and r["path"] not in wanted:
            continue
        if prefix is not None and prefix not in PurePosixPath(r["path"]).parents:
            continue
        if subject and r["subject"].casefold() != subject.casefold():
            continue
        if neutral_above is not None and (r["neutral"] is None or r["neutral"] < neutral_above):
            continue
        if neutral_below is not None and (r["neutral"] is None or r["neutral"] >= neutral_below):
            continue
        if tag and tags_of is not None and tag not in {t.lstrip("#").casefold() for t in tags_of(r["path"])}:
            continue
        out.append(r)
    return out


def since_suggestions(pairs: Iterable[tuple[str, dict]], dates: Mapping[str, str | None]) -> dict[str, dict]:
    """What a ``since:`` date would release, per subject: the date of the earliest note that the person marked
    charged or the detector reads as charged for it, and the pending references in notes dated before it that
    the detector does not read as charged (``since:`` releases exactly those). Subjects where it would
    release nothing are left out. A suggestion for the person, never applied."""
    pairs = list(pairs)
    earliest: dict[str, tuple[str, str]] = {}
    for path, a in pairs:
        d = dates.get(path)
        if d and (a.get("source") == "declared" or a.get("inferred") in ("charged", "uncertain")):
            if a["subject"] not in earliest or d < earliest[a["subject"]][0]:
                earliest[a["subject"]] = (d[:10], path)
    out: dict[str, dict] = {}
    for subject, (since, first) in earliest.items():
        before = {
            path
            for path, a in pairs
            if a["subject"] == subject
            and care_pending(a)
            and a.get("inferred") == "neutral"
            and (dates.get(path) or "9999")[:10] < since
        }
        if before:
            out[subject] = {"since": since, "first_charged": first, "releases": len(before)}
    return out


_FULL_NAME = re.compile(r"another person: ([^\s;,]+ [A-Z][\w'’-]*\.?)(?=[;,]|$)")


def namesakes_released(pairs: Iterable[tuple[str, dict]]) -> dict[str, list[tuple[str, int]]]:
    """Per subject, the full names released as another person of the same name ("Robert Hale"), each with how
    many notes, most first. A surname the person never listed may be the subject's own — the ex written in full
    ("Robert Hale got married") — so ``care list`` shows them, for one look and, if so, an alias."""
    notes: dict[str, dict[str, set[str]]] = {}
    for path, a in pairs:
        if a.get("source") != "resolution" or a.get("outcome") != "released":
            continue
        for name in _FULL_NAME.findall(a.get("reference") or ""):
            notes.setdefault(a["subject"], {}).setdefault(name, set()).add(path)
    return {
        subject: sorted(((n, len(p)) for n, p in by_name.items()), key=lambda x: (-x[1], x[0]))
        for subject, by_name in sorted(notes.items(), key=lambda kv: kv[0].casefold())
    }
