"""Deference, band filtering and recency weighting over candidate chunks (§3.4, §3.5).

Pure functions over chunk metadata: no I/O, stdlib only. Decisions:

* Band: under a closed archive every ``archival`` chunk is removed and counted in
  one ``kind="archive"`` hint (``subject=None``); any other band value is present.
  An archive opened by periods alone ("in March 2019", "last year") admits only the
  archival chunks dated inside one of them; the others are removed and counted in
  the archive hint like those of a closed archive. A cue ("back then") opens it whole.
* Care: a chunk charged for subject S is withheld unless S is bridged, or the
  chunk is archival and the archive admits it. Charged *present* chunks are
  withheld until bridged, whatever the query says.
* Care first: an archival chunk with an unbridged charge under a closed archive
  counts under its subject's deference hint, not under the archive hint.
* Bridging lifts care only, never the band rule: a bridged archival chunk under a
  closed archive is still removed and counted under the archive hint.
* A chunk charged for several unbridged subjects counts once under each of
  them, so hint counts may add up to more than ``len(withheld_ids)``.
* Names: charged names are resolved to a subject's canonical name through its
  name and aliases (case-insensitive); names no subject knows stand for
  themselves and are bridged by the same name, case-insensitively.
* Hints carry only subject names and counts, never chunk text. Order: deference
  hints by subject (case-folded), then the archive hint.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Literal

from lucasrag.vocabulary import ChunkRecord, DeferenceSubject

from .temporal import TemporalSignals


@dataclass(frozen=True)
class Candidate:
    """A retrieved chunk with the metadata the policy needs."""

    chunk_id: str
    workspace: str
    path: str
    band: str
    date: str | None
    charged: tuple[str, ...]
    text: str
    band_rule: str = ""  # which rule set the band (see lucasrag.vocabulary.BandRule)
    #: the span an undated chunk is about (an undated childhood memory: the writer's childhood, lucasrag.life)
    about: tuple[date, date] | None = None

    @classmethod
    def from_record(cls, r: ChunkRecord) -> Candidate:
        return cls(r.chunk_id, r.workspace, r.path, r.band, r.date, tuple(r.charged), r.text, r.band_rule)


@dataclass(frozen=True)
class Hint:
    subject: str | None
    kind: Literal["deference", "archive", "vault", "damaged"]  # vault: most of the vault is not searchable;
    # damaged: a workspace's index files do not read (left out; the message says how to rebuild it)
    withheld: int
    message: str

    def to_dict(self) -> dict:
        return {"subject": self.subject, "kind": self.kind, "withheld": self.withheld, "message": self.message}


@dataclass(frozen=True)
class PolicyOutcome:
    kept: list[Candidate]
    hints: list[Hint]
    withheld_ids: frozenset[str]
    warnings: tuple[str, ...] = ()  # e.g. a bridge naming no deference subject


def _canonical(name: str, subjects: Sequence[DeferenceSubject]) -> str:
    for s in subjects:
        if s.matches(name):
            return s.name
    return name.strip()


def resolve_bridge(bridge: Iterable[str], subjects: Sequence[DeferenceSubject]) -> frozenset[str]:
    """Canonical subject names for the bridge entries (name or alias, any case).

    An entry no subject knows is kept as written (stripped), so that it can
    bridge a charged name outside the deference list; blank entries are dropped.
    """
    return frozenset(_canonical(b, subjects) for b in bridge if b and b.strip())


def bridge_warnings(bridge: Iterable[str], subjects: Sequence[DeferenceSubject]) -> tuple[str, ...]:
    """One warning per bridge entry that names no deference subject (a typo, "Grandma Sue")."""
    known = ", ".join(json.dumps(s.name, ensure_ascii=False) for s in subjects) or "none"
    return tuple(
        f"bridge {json.dumps(b.strip(), ensure_ascii=False)} names no subject on the deference list "
        f"(subjects: {known}); it bridges only notes whose charged: lists that exact name"
        for b in dict.fromkeys(b for b in bridge if b and b.strip())
        if not any(s.matches(b) for s in subjects)
    )


def care_withheld_subjects(
    charged: Iterable[str], subjects: Sequence[DeferenceSubject], bridged: frozenset[str]
) -> list[str]:
    """The care rule for one chunk: its charged subjects (canonical) that ``bridged`` (casefolded
    canonical names, see :func:`resolve_bridge`) does not lift, sorted. Every surface that
    returns text asks this (the query through :func:`apply_policy`, the graph listing)."""
    if not charged:  # most chunks are charged for no one: nothing to resolve
        return []
    return sorted(
        {n for n in (_canonical(x, subjects) for x in charged) if n and n.casefold() not in bridged},
        key=str.casefold,
    )


def _passages(n: int) -> str:
    return f"{n} passage{'s' if n != 1 else ''}"


def deference_message(subject: str, withheld: int) -> str:
    q = json.dumps(subject, ensure_ascii=False)
    return (
        f"{_passages(withheld)} about {subject} matched but {'were' if withheld != 1 else 'was'} "
        f"withheld out of care. To include them, bridge the subject: "
        f"query(..., bridge=[{q}]) or CLI --bridge {q}."
    )


def archive_message(withheld: int, outside_periods: bool = False) -> str:
    noun = _passages(withheld).split(" ", 1)[1]
    if outside_periods:
        return (
            f"{withheld} older (archival) {noun} outside the period you named matched; name their period, "
            f"or use words like 'back then' to include the whole archive (an assistant: search again with "
            f"archive=True)."
        )
    return (
        f"{withheld} older (archival) {noun} matched; ask with a year, a decade or words like 'back then' to "
        "include them (an assistant whose person asked about the past: search again with archive=True)."
    )


def in_periods(value: str | None, periods: Sequence[tuple[date, date]]) -> bool:
    """Whether a chunk date (ISO, or a prefix of one) falls inside any of ``periods``."""
    d = parse_date(value)
    return d is not None and any(lo <= d <= hi for lo, hi in periods)


def archive_admits(c: Candidate, temporal: TemporalSignals) -> bool:
    """Whether the archive, as the query opened it, admits the archival chunk ``c``: its date, or for an
    undated chunk the span it is about, inside a period the query opened."""
    return temporal.archival_open and (
        temporal.whole_archive or in_periods(c.date, temporal.periods) or about_periods(c, temporal.periods)
    )


def about_periods(c: Candidate, periods: Sequence[tuple[date, date]]) -> bool:
    """Whether an undated chunk's ``about`` span overlaps one of ``periods`` longer than a year. A childhood is
    placed to the decade, not the year: "the 90s" reaches it, "the summer of 2006" does not."""
    if c.about is None or c.date is not None:
        return False
    return any(precision_of(lo, hi) == "decade" and lo <= c.about[1] and c.about[0] <= hi for lo, hi in periods)


def apply_policy(
    candidates: Iterable[Candidate],
    *,
    temporal: TemporalSignals,
    subjects: Sequence[DeferenceSubject],
    bridge: Sequence[str] = (),
    care_temporal: TemporalSignals | None = None,
) -> PolicyOutcome:
    """Split candidates into kept and withheld, with one hint per reason (see module doc).

    ``care_temporal``: the archive as the query's own words open it, when the caller opened it further
    (``archive=True``, an ``after``/``before`` filter): those open the band rule only, never a withholding,
    so a charged archival chunk is released by the words' archive alone. Default: ``temporal``."""
    bridged = frozenset(b.casefold() for b in resolve_bridge(bridge, subjects))
    kept: list[Candidate] = []
    withheld: set[str] = set()
    per_subject: dict[str, tuple[str, set[str]]] = {}  # casefolded -> (display name, chunk ids)
    archived: set[str] = set()
    for c in candidates:
        archival = c.band == "archival"
        admitted = archival and archive_admits(c, temporal)
        unbridged = care_withheld_subjects(c.charged, subjects, bridged)
        released = admitted if care_temporal is None else archival and archive_admits(c, care_temporal)
        if unbridged and not released:
            withheld.add(c.chunk_id)
            for name in unbridged:
                display, ids = per_subject.setdefault(name.casefold(), (name, set()))
                per_subject[name.casefold()] = (min(display, name), ids)
                ids.add(c.chunk_id)
        elif archival and not admitted:
            withheld.add(c.chunk_id)
            archived.add(c.chunk_id)
        else:
            kept.append(c)
    hints = [
        Hint(name, "deference", len(ids), deference_message(name, len(ids)))
        for _, (name, ids) in sorted(per_subject.items())
    ]
    if archived:
        outside = temporal.archival_open and not temporal.whole_archive
        hints.append(Hint(None, "archive", len(archived), archive_message(len(archived), outside)))
    return PolicyOutcome(kept, hints, frozenset(withheld), bridge_warnings(bridge, subjects))


#: Half-life of the present preference: a note two years old weighs half a new one.
HALF_LIFE_YEARS = 2.0
#: Half-life of the distance to an asked-for period, by its precision: a year outside a
#: year halves the weight, a few days outside a day do.
PERIOD_HALF_LIFE_DAYS = {"day": 3.0, "week": 7.0, "month": 30.0, "season": 45.0, "year": 365.25, "decade": 365.25}
#: How strongly the time fit counts in ranking, by the precision of the finest period the
#: query named: proportional to precision (a day beats a decade); a year is the unit the
#: ranking weights were tuned with.
PRECISION_STRENGTH = {"day": 2.0, "week": 1.75, "month": 1.5, "season": 1.25, "year": 1.0, "decade": 0.5}
#: Weight of a chunk without a usable date (equal to a note HALF_LIFE_YEARS old).
UNDATED_WEIGHT = 0.5
#: Weight of an undated chunk when the query names a period: it cannot be shown to fall inside,
#: so it ranks below a dated chunk within one half-life of the period (0.5).
UNDATED_IN_PERIOD_WEIGHT = 0.25
#: Floor, so that a weight never reaches 0 and blending keeps every candidate rankable.
MIN_WEIGHT = 0.01


def parse_date(value: str | None) -> date | None:
    """An ISO date ``YYYY-MM-DD`` (or a longer timestamp), ``YYYY-MM`` or ``YYYY``; else None."""
    return _parse_date(str(value)) if value else None


@lru_cache(maxsize=1 << 14)  # a query parses the dates of hundreds of candidates, most of them seen before
def _parse_date(value: str) -> date | None:
    v = value.strip()
    try:
        if len(v) >= 10:
            return date.fromisoformat(v[:10])
        if len(v) == 7:
            return date(int(v[:4]), int(v[5:7]), 1)
        if len(v) == 4:
            return date(int(v), 7, 1)
    except ValueError:
        return None
    return None


def precision_of(start: date, end: date) -> str:
    """The precision of an inclusive period, from its length ("day" .. "decade")."""
    days = (end - start).days + 1
    for name, most in (("day", 1), ("week", 8), ("month", 31), ("season", 92), ("year", 366)):
        if days <= most:
            return name
    return "decade"


def period_strength(periods: Sequence[tuple[date, date]]) -> float:
    """:data:`PRECISION_STRENGTH` of the finest period (0.0 without periods)."""
    return max((PRECISION_STRENGTH[precision_of(lo, hi)] for lo, hi in periods), default=0.0)


def recency_weight(date: str | None, *, now: date, periods: Sequence[tuple[date, date]] = ()) -> float:
    """A weight in (0, 1] to blend with a rerank score.

    * undated or unparseable: ``UNDATED_WEIGHT`` (0.5), ``UNDATED_IN_PERIOD_WEIGHT`` (0.25) with periods;
    * no periods: ``0.5 ** (age_years / HALF_LIFE_YEARS)`` (future dates: 1.0);
    * periods: 1.0 inside any period, else ``0.5 ** (days_outside / half_life)`` with the
      half-life of that period's precision (:data:`PERIOD_HALF_LIFE_DAYS`), best period wins;
    always at least ``MIN_WEIGHT``.
    """
    d = parse_date(date)
    if d is None:
        return UNDATED_IN_PERIOD_WEIGHT if periods else UNDATED_WEIGHT
    if periods:
        w = max(
            0.5 ** (max((lo - d).days, (d - hi).days, 0) / PERIOD_HALF_LIFE_DAYS[precision_of(lo, hi)])
            for lo, hi in periods
        )
    else:
        w = 0.5 ** (max((now - d).days, 0) / 365.25 / HALF_LIFE_YEARS)
    return max(MIN_WEIGHT, min(1.0, w)) if math.isfinite(w) else MIN_WEIGHT


def temporal_weight(date: str | None, *, now: date, temporal: TemporalSignals) -> float:
    """Recency weight for a query: periods if it named any; neutral 1.0 when the archive
    was opened by a lexical cue alone (no preference for new or old); else recency."""
    if temporal.archival_open and not temporal.periods:
        return 1.0
    return recency_weight(date, now=now, periods=temporal.periods)
