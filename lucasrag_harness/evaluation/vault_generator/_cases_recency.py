"""Recency query cases: one kind per way of naming a period, one per false alarm.

Period cases ask about one of the persona's facts on a date, in a month, in a season or
at a relative time ("two years ago", "last year"); the period is resolved here by plain
calendar arithmetic (not by the detector under test) and recorded with the case. The
expected answers are the regular notes stating that fact dated inside the period.
False-alarm cases ask present questions with words that look like time ("my
ex-colleague", "the natural history museum", "I'm used to", "five years' warranty"):
the archive must stay closed.
"""

from __future__ import annotations

import calendar
import random
from datetime import date, timedelta

from lucasrag_harness.evaluation.vault_generator._persona import value_at
from lucasrag_harness.evaluation.vault_generator._truth import NoteTruth, QueryCase

PERIOD_KINDS = ("period_date", "period_month", "period_season", "period_relative")
FALSE_ALARM_KINDS = ("false_alarm_ex", "false_alarm_history", "false_alarm_used_to", "false_alarm_years")

_ASK = {
    "home": "where did I live {when}?",
    "employer": "where was I working {when}?",
    "role": "what was my job title {when}?",
    "pet": "did I have a pet {when}?",
    "car": "what car did I have {when}?",
    "bank": "which bank was I with {when}?",
}
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11)}
_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_FALSE_ALARMS = {
    "false_alarm_ex": ["what did my ex-colleague say about where I work?", "does my ex still have my bank details?"],
    "false_alarm_history": [
        "when is the natural history museum open?",
        "did I clear my browser history on the work laptop?",
    ],
    "false_alarm_used_to": ["I'm used to the commute now, where do I work?", "what is used to insure my car?"],
    "false_alarm_years": ["does my car have a five years' warranty?", "is my pet insured for 10 years?"],
}


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 11 <= n % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _month(y: int, m: int) -> tuple[date, date]:
    return date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1])


def _phrasings(d: date, now: date) -> dict[str, list[tuple[str, tuple[date, date]]]]:
    """Ways to name a period that contains ``d``, by kind, with the period each names."""
    mon = calendar.month_name[d.month]
    out: dict[str, list[tuple[str, tuple[date, date]]]] = {k: [] for k in PERIOD_KINDS}
    out["period_date"] += [
        (f"on {d.day} {mon[:3]} {d.year}", (d, d)),
        (f"on {d.isoformat()}", (d, d)),
        (f"on {mon} {d.day}, {d.year}", (d, d)),
    ]
    if now - timedelta(days=364) <= d <= now:
        out["period_date"].append((f"on the {_ordinal(d.day)} of {mon}", (d, d)))
    out["period_month"].append((f"in {mon} {d.year}", _month(d.year, d.month)))
    last_year = now.year if d.month < now.month else now.year - 1
    if d.year == last_year:
        out["period_month"].append((f"last {mon}", _month(d.year, d.month)))
    for name, (a, b) in _SEASONS.items():
        if a <= d.month <= b:
            span = (date(d.year, a, 1), date(d.year, b, calendar.monthrange(d.year, b)[1]))
            out["period_season"] += [(f"in the {name} of {d.year}", span), (f"in {name} {d.year}", span)]
    n = now.year - d.year
    if 1 <= n:
        year = (date(d.year, 1, 1), date(d.year, 12, 31))
        out["period_relative"].append(("last year" if n == 1 else f"{_WORDS[n] if n < 13 else n} years ago", year))
    return out


def recency_cases(
    indexed: list[tuple[str, NoteTruth]], now: date, rng: random.Random, per_kind: int = 6
) -> list[QueryCase]:
    """Up to ``per_kind`` cases per period kind, and the false-alarm cases."""
    stating = [(p, t) for p, t in indexed if t.kind == "regular" and t.date and t.states and not t.charged]
    stating.sort(key=lambda pt: (pt[1].date, pt[0]))
    rng.shuffle(stating)
    by_kind: dict[str, list[QueryCase]] = {k: [] for k in PERIOD_KINDS}
    asked: set[str] = set()
    for _, t in stating:
        d = date.fromisoformat(t.date[:10])
        if d > now:
            continue
        fact = sorted(set(t.states) & set(_ASK))[0] if set(t.states) & set(_ASK) else None
        if fact is None:
            continue
        for kind, options in _phrasings(d, now).items():
            if len(by_kind[kind]) >= per_kind or not options:
                continue
            when, (lo, hi) = options[len(by_kind[kind]) % len(options)]
            q = _ASK[fact].format(when=when)
            if q in asked:
                continue
            expect = sorted(
                p
                for p, u in indexed
                if u.kind == "regular" and u.date and fact in u.states and lo <= date.fromisoformat(u.date[:10]) <= hi
            )
            asked.add(q)
            by_kind[kind].append(
                QueryCase(
                    kind,
                    q,
                    expect,
                    [],
                    archival_open=True,
                    expect_text=value_at(fact, d.year)[1],
                    period=[lo.isoformat(), hi.isoformat()],
                )
            )
    cases = [c for k in PERIOD_KINDS for c in by_kind[k]]
    for kind, queries in _FALSE_ALARMS.items():
        cases += [QueryCase(kind, q, [], []) for q in queries]
    return cases
