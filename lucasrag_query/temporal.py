"""Temporal-signal detection in queries (architecture §3.4). Pure, stdlib only.

A query opens the archive when it carries an explicit temporal signal. Each signal is
a :class:`Signal`: its text, its kind and, when it names one, its period (inclusive
bounds and a precision from "day" to "decade"):

* **periods** below the year: dates, months, seasons, relative expressions ("two years
  ago", "last year", "last Tuesday"), resolved against ``now`` by the rule table of
  :mod:`._temporal_periods`;
* **years** and **decades** (:mod:`._temporal_years`); a possessive decade ("in my
  20s") is a life stage without a period;
* **lexical cues** from an inspectable table with context rules
  (:data:`DEFAULT_CUES`, :mod:`._temporal_cues`; extendable from
  ``<vault>/.lucasrag/temporal.yaml`` via :func:`load_cues`), e.g. "back then",
  "growing up", a habitual "used to". Words that are not time ("my ex-partner", "the
  natural history museum", "I'm used to it", "five years' warranty") are not signals.

A text is read once: a span taken by a more specific rule (a date) is not read again by a
less specific one (its year). What a signal opens is decided by the policy: a cue or a
life stage opens the whole archive; periods alone open only the periods they name
(:attr:`TemporalSignals.whole_archive`).

Why no date library: ``dateparser`` is not installed here; ``python-dateutil`` is, and its
fuzzy parser (about 1 ms a query here, as slow as these rules) reads one date per text,
invents the missing parts ("7 Jan 2024" became 2026-01-07 with now = 2026-06-01), turns
"section 2 may apply" into a date, and cannot read "last winter" or "two years ago". The
rules are a table of compiled regexes with the resolution written down beside them.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ._temporal_cues import DEFAULT_CUES, Cue
from ._temporal_periods import PRECISIONS, Period, find_periods
from ._temporal_years import find_decades, find_years

__all__ = ["DEFAULT_CUES", "PRECISIONS", "Cue", "Period", "Signal", "TemporalSignals", "detect_temporal", "load_cues"]


@dataclass(frozen=True)
class Signal:
    """One temporal signal: its text, its kind and the period it names (None for a cue)."""

    text: str
    kind: str  # date | month | season | relative | weekday | year | decade | life stage | cue
    period: Period | None = None
    label: str | None = None  # the cue's label, for cues

    def to_dict(self, opened_archive: bool = True) -> dict:
        return {
            "text": self.text,
            "kind": self.kind,
            "period": self.period.to_dict() if self.period else None,
            "opens": "period" if self.period else "archive",
            "opened_archive": opened_archive,
        }


@dataclass(frozen=True)
class TemporalSignals:
    archival_open: bool
    signals: tuple[str, ...]  # matched text in query order, e.g. "2013", "the 90s", "growing up"
    periods: tuple[tuple[date, date], ...]  # inclusive date ranges the signals point at
    details: tuple[Signal, ...] = field(default=(), compare=False)

    @functools.cached_property  # asked once per candidate the policy judges (a frozen dataclass allows it)
    def whole_archive(self) -> bool:
        """The archive opens whole (a cue or a life stage), not only for the named periods."""
        if not self.archival_open:
            return False
        if self.details:
            return any(s.period is None for s in self.details)
        return not self.periods

    def to_dict(self, *, opened: bool | None = None) -> dict:
        """The ``temporal`` object of the result JSON (§3.9), with one ``details`` entry per signal.

        ``opened``: whether the signals opened the archive (False when banding is off, so
        the archive was open anyway); by default, ``archival_open``."""
        opened = self.archival_open if opened is None else opened
        scope = "closed" if not self.archival_open else "whole" if self.whole_archive else "periods"
        return {
            "archival_open": self.archival_open,
            "signals": list(self.signals),
            "archive": scope,
            "details": [s.to_dict(opened) for s in self.details],
        }

    def summary(self) -> str:
        """One line for the CLI: what opened the archive, and how far."""
        if not self.archival_open:
            return "archive closed (no temporal signal)"
        scope = "whole archive" if self.whole_archive else "named periods only"
        parts = []
        for s in self.details or [Signal(t, "signal") for t in self.signals]:
            p = s.period
            when = (
                f" {p.start}..{p.end} ({p.precision})" if p and p.start != p.end else f" {p.start} (day)" if p else ""
            )
            parts.append(f"{s.text!r} {s.kind}{when}")
        return f"archive open, {scope}: " + "; ".join(parts)


#: The signal an ``archive=True`` query carries: the archive opened whole by the caller, not by the words.
ARCHIVE_REQUESTED = Signal("archive=True", "request")


def with_archive_opened(temporal: TemporalSignals) -> TemporalSignals:
    """``temporal`` with the whole archive open, as a caller asked (``archive=True``: the person asked about
    the past in words the detector does not read); the query's own periods still rank what is dated in them."""
    if ARCHIVE_REQUESTED in temporal.details:
        return temporal
    details = (*temporal.details, ARCHIVE_REQUESTED)
    return TemporalSignals(True, (*temporal.signals, ARCHIVE_REQUESTED.text), temporal.periods, details)


_YEAR = re.compile(r"\b(1[6-9]\d\d|20\d\d)\b")


def mentions_decade(text: str, periods: Sequence[tuple[date, date]], now: date) -> bool:
    """Whether ``text`` is about one of the decades among ``periods``: it names a year inside it or the
    decade itself ("in 1994", "the nineties"). A note dated years later that recounts the 90s is about
    the 90s; its date alone would rank it as far from them."""
    decades = [(lo, hi) for lo, hi in periods if 366 * 5 < (hi - lo).days <= 366 * 11]  # a decade, not a year
    if not decades:
        return False
    for m in _YEAR.finditer(text):
        if any(lo.year <= int(m.group(1)) <= hi.year for lo, hi in decades):
            return True
    for _, _, _, period in find_decades(text, now):
        if period is not None and any(period.start <= hi and lo <= period.end for lo, hi in decades):
            return True
    return False


def with_period_opened(temporal: TemporalSignals, span: tuple[date, date], text: str) -> TemporalSignals:
    """``temporal`` with the archive also open for ``span``, a period the caller named outside the query's
    words (the ``after``/``before`` filters), exactly as a period in the text opens it."""
    signal = Signal(text, "filter", Period(span[0], span[1], "day"))
    return TemporalSignals(True, (*temporal.signals, text), (*temporal.periods, span), (*temporal.details, signal))


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def load_cues(path: str | Path, *, base: Sequence[Cue] = DEFAULT_CUES) -> tuple[Cue, ...]:
    """``base`` plus the cues listed in a YAML file (``[{pattern, label}]``).

    A missing or empty file gives ``base``. A bad entry raises ValueError naming
    the file and the entry. PyYAML is imported here, not at module import.
    """
    p = Path(path)
    if not os.path.lexists(p):
        return tuple(base)
    from lucasrag.vault_settings import load_settings_yaml  # noqa: PLC0415 - keep module import stdlib-only

    # A regular file inside its own folder (``.lucasrag/``), bounded like every vault settings file.
    data = load_settings_yaml(p.parent, p)
    if isinstance(data, dict) and "cues" in data:
        data = data["cues"]
    if data is None:
        return tuple(base)
    if not isinstance(data, list):
        raise ValueError(f"{p}: expected a list of {{pattern, label}} entries")
    extra: list[Cue] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("pattern"), str) or not item["pattern"]:
            raise ValueError(f"{p}: entry {i} needs a non-empty string 'pattern'")
        try:
            _compile(item["pattern"])
        except re.error as exc:
            raise ValueError(f"{p}: entry {i}: bad regex {item['pattern']!r}: {exc}") from exc
        extra.append(Cue(item["pattern"], str(item.get("label") or item["pattern"])))
    return (*base, *extra)


def detect_temporal(query: str, *, now: date, cues: Sequence[Cue] = DEFAULT_CUES) -> TemporalSignals:
    """Find the periods, years, decades and lexical cues in ``query``; see the module docstring."""
    found: list[tuple[int, Signal]] = []
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in taken)

    def add(s: int, e: int, signal: Signal) -> None:
        taken.append((s, e))
        found.append((s, signal))

    for m in find_periods(query, now):
        add(m.start, m.end, Signal(m.text, m.kind, m.period))
    for s, e, text, period in find_decades(query, now):
        if free(s, e):
            add(s, e, Signal(text, "decade" if period else "life stage", period))
    for m in find_years(query, now):
        if free(m.start, m.end):
            add(m.start, m.end, Signal(m.text, "year", m.period))
    for cue in cues:
        for m in _compile(cue.pattern).finditer(query):
            group = "cue" if "cue" in m.re.groupindex and m.group("cue") else 0
            text = m.group(group).strip()
            if text and free(m.start(group), m.end(group)):
                add(m.start(group), m.end(group), Signal(text, "cue", None, cue.label))

    signals: list[Signal] = []
    for _, sig in sorted(found, key=lambda f: f[0]):
        if sig.text.casefold() not in (s.text.casefold() for s in signals):
            signals.append(sig)
    periods = tuple(dict.fromkeys((s.period.start, s.period.end) for s in signals if s.period))
    return TemporalSignals(bool(signals), tuple(s.text for s in signals), periods, tuple(signals))
