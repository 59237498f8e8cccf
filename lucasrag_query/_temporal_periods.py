"""Periods below the year, resolved against "now": dates, months, seasons, relative
expressions and weekdays (architecture §3.4). A rule table, stdlib only.

Every rule gives the span it matched and a :class:`Period` (inclusive bounds and a
precision). Resolution, deliberately simple and written down here:

* **dates**: "7 Jan 2024", "7th of January 2024", "January 7, 2024", "1 February, 2023",
  "2024-01-07" (also ``2024/01/07``). Without a year ("the 7th of January", "Jan 7th")
  the most recent such day not after now. Slash dates with the day first or the month
  first are ambiguous and are not read.
* **months**: a month with a year ("March 2019", "March, 2019"), or after "last", "this",
  "in", "during", "early", "mid", "late" ("last March": the most recent March before the
  current month; "in March": the most recent March up to the current month). An
  abbreviation ("Mar") needs a year or a day; a bare "may" or "march" is never a month.
* **seasons** (northern hemisphere, meteorological): spring Mar–May, summer Jun–Aug,
  autumn/fall Sep–Nov, winter Dec–Feb; "winter 2015" is the winter whose January is in
  2015. A season needs a year ("summer 2015", "the summer of '13") or "last"/"this"
  ("last winter": the most recent one already over); "in the summer" alone is a habit.
* **relative**: "yesterday", "last night", "the day before yesterday", "last week"
  (Monday–Sunday), "last month", "last year", "this year", "the year before last",
  "N days/weeks/months/years ago" (N a number, "a", "a couple of"; weeks: the seven days
  around that day; months and years: the calendar month or year). "a few/many years
  ago" has no period (a lexical cue). Future expressions ("next year", "in two weeks",
  "tomorrow") are not signals.
* **weekdays**: "last Tuesday" (the most recent Tuesday before today), "on Tuesday" (the
  most recent Tuesday up to today); plurals ("on Tuesdays") are habits, not periods.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

#: Precisions, finest first.
PRECISIONS = ("day", "week", "month", "season", "year", "decade")


@dataclass(frozen=True)
class Period:
    """An inclusive date range a query points at, with how precisely it was named."""

    start: date
    end: date
    precision: str  # one of PRECISIONS

    def to_dict(self) -> dict:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(), "precision": self.precision}


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    text: str
    kind: str  # date | month | season | relative | weekday
    period: Period


_MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_FULL_MONTHS = tuple(calendar.month_name[i].lower() for i in range(1, 13))
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_FULL = "|".join(_FULL_MONTHS)
_DAY = r"(?<!\d)(?P<{name}>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?(?!\d)"
_YEAR = r"(?P<{name}>(?:19|20)\d\d)(?!\d)"
_WEEKDAYS = tuple(calendar.day_name[i].lower() for i in range(7))  # monday = 0
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "a couple of": 2,
    "couple of": 2,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
}
_NUMBER = "|".join(sorted((n.replace(" ", r"\s+") for n in _NUMBERS), key=len, reverse=True))
#: Month names that are also verbs: without a year they count only when capitalised.
_VERB_MONTHS = frozenset({"may", "march"})
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 2)}


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_ISO = _rx(r"(?<![\w.-])(?P<y>(?:19|20)\d\d)[-/](?P<m>0?[1-9]|1[0-2])[-/](?P<d>0?[1-9]|[12]\d|3[01])(?![\w-])")
_DAY_MONTH = _rx(
    rf"(?:\bthe\s+)?{_DAY.format(name='d')}(?:\s+of)?\s+(?P<m>{_MONTH})\b\.?(?:,?\s+{_YEAR.format(name='y')})?"
)
_MONTH_DAY = _rx(rf"\b(?P<m>{_MONTH})\.?\s+(?:the\s+)?{_DAY.format(name='d')}(?:,?\s+{_YEAR.format(name='y')})?")
_MONTH_YEAR = _rx(rf"\b(?P<m>{_MONTH})\.?,?\s+(?:of\s+)?{_YEAR.format(name='y')}")
_REL_MONTH = _rx(rf"\b(?P<rel>last|this|in|during|early|mid|late)[-\s]+(?P<m>{_FULL})\b(?!\s+\d)")
_SEASON = _rx(
    r"\b(?:(?P<rel>last|this)\s+)?(?:the\s+)?(?P<s>spring|summer|autumn|fall|winter)\b"
    rf"(?:\s+(?:of\s+)?(?:{_YEAR.format(name='y')}|['\u2019](?P<yy>\d\d)(?!\w)))?"
)
_AGO = _rx(rf"\b(?P<n>\d{{1,2}}|{_NUMBER})\s+(?P<unit>day|week|month|year)s?\s+ago\b")
_LAST_UNIT = _rx(
    r"\b(?:(?P<last>last|past)\s+(?P<unit>week|month|year|night)|(?P<this>this)\s+year|(?P<yday>yesterday)"
    r"|the\s+(?P<before>day|year)\s+before\s+(?:yesterday|last))\b"
)
_WEEKDAY = _rx(rf"\b(?P<rel>last|on)\s+(?P<w>{'|'.join(_WEEKDAYS)})\b(?!['\u2019]?s\b)")


#: "the past week/month/year": a rolling window ending today.
_ROLLING = {"week": (7, "week"), "month": (31, "month"), "year": (365, "year")}


def _month_period(y: int, m: int) -> Period:
    return Period(date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1]), "month")


def _day(y: int, m: int, d: int) -> Period | None:
    try:
        day = date(y, m, d)
    except ValueError:
        return None
    return Period(day, day, "day")


def _season(name: str, year: int) -> Period:
    """The season ``name`` of ``year`` (winter: the one whose January falls in ``year``)."""
    first, last = _SEASONS[name]
    start_year = year - 1 if first > last else year
    return Period(date(start_year, first, 1), date(year, last, calendar.monthrange(year, last)[1]), "season")


def _months_back(now: date, n: int) -> tuple[int, int]:
    k = now.year * 12 + now.month - 1 - n
    return k // 12, k % 12 + 1


def _dates(q: str, now: date) -> Iterator[Match]:
    for m in _ISO.finditer(q):
        p = _day(int(m["y"]), int(m["m"]), int(m["d"]))
        if p and p.start <= now:
            yield Match(m.start(), m.end(), m.group(0), "date", p)
    for rx in (_DAY_MONTH, _MONTH_DAY):
        for m in rx.finditer(q):
            month, d = _MONTHS[m["m"].lower()], int(m["d"])
            if m["y"]:
                p = _day(int(m["y"]), month, d)
            elif (m["m"].lower() in _VERB_MONTHS and not m["m"][0].isupper()) or (
                m["m"].islower() and m["m"].lower() not in _FULL_MONTHS
            ):
                continue  # "section 2 may apply", "3 mar": without a year, a month is written as one
            else:
                # No year: the most recent such day, this year's if it is not after now.
                p = _day(now.year, month, d)
                if p and p.start > now:
                    p = _day(now.year - 1, month, d)
            if p and p.start <= now:
                yield Match(m.start(), m.end(), m.group(0).strip(), "date", p)


def _months(q: str, now: date) -> Iterator[Match]:
    for m in _MONTH_YEAR.finditer(q):
        y, month = int(m["y"]), _MONTHS[m["m"].lower()]
        if (y, month) <= (now.year, now.month):
            yield Match(m.start(), m.end(), m.group(0), "month", _month_period(y, month))
    for m in _REL_MONTH.finditer(q):
        month, rel = _MONTHS[m["m"].lower()], m["rel"].lower()
        if rel == "this":
            y = now.year
        elif rel == "last":
            y = now.year if month < now.month else now.year - 1
        else:
            y = now.year if month <= now.month else now.year - 1
        if (y, month) <= (now.year, now.month):
            yield Match(m.start(), m.end(), m.group(0), "month", _month_period(y, month))


def _seasons(q: str, now: date) -> Iterator[Match]:
    for m in _SEASON.finditer(q):
        name, rel = m["s"].lower(), (m["rel"] or "").lower()
        if m["y"] or m["yy"]:
            y = (
                int(m["y"])
                if m["y"]
                else (2000 + int(m["yy"]) if 2000 + int(m["yy"]) <= now.year else 1900 + int(m["yy"]))
            )
            p = _season(name, y)
        elif rel == "last":
            p = next(s for s in (_season(name, y) for y in range(now.year + 1, now.year - 3, -1)) if s.end < now)
        elif rel == "this":
            p = next(
                (s for s in (_season(name, y) for y in (now.year, now.year + 1)) if s.start <= now <= s.end),
                _season(name, now.year),
            )
        else:
            continue
        if p.start <= now:
            yield Match(m.start(), m.end(), m.group(0).strip(), "season", p)


def _relative(q: str, now: date) -> Iterator[Match]:
    for m in _AGO.finditer(q):
        raw = re.sub(r"\s+", " ", m["n"].lower())
        n, unit = (int(raw) if raw.isdigit() else _NUMBERS[raw]), m["unit"].lower()
        if unit == "day":
            p = Period(now - timedelta(days=n), now - timedelta(days=n), "day")
        elif unit == "week":
            mid = now - timedelta(weeks=n)
            p = Period(mid - timedelta(days=3), mid + timedelta(days=3), "week")
        elif unit == "month":
            p = _month_period(*_months_back(now, n))
        else:
            p = Period(date(now.year - n, 1, 1), date(now.year - n, 12, 31), "year")
        yield Match(m.start(), m.end(), m.group(0), "relative", p)
    for m in _LAST_UNIT.finditer(q):
        unit = (m["unit"] or "").lower()
        if (m["last"] or "").lower() == "past" and unit in _ROLLING:
            days, precision = _ROLLING[unit]
            p = Period(now - timedelta(days=days), now, precision)
        elif m["yday"] or unit == "night":
            p = Period(now - timedelta(days=1), now - timedelta(days=1), "day")
        elif m["before"] and m["before"].lower() == "day":
            p = Period(now - timedelta(days=2), now - timedelta(days=2), "day")
        elif unit == "week":
            monday = now - timedelta(days=now.weekday() + 7)
            p = Period(monday, monday + timedelta(days=6), "week")
        elif unit == "month":
            p = _month_period(*_months_back(now, 1))
        else:
            y = now.year if m["this"] else now.year - (2 if m["before"] else 1)
            p = Period(date(y, 1, 1), date(y, 12, 31), "year")
        yield Match(m.start(), m.end(), m.group(0), "relative", p)


def _weekdays(q: str, now: date) -> Iterator[Match]:
    for m in _WEEKDAY.finditer(q):
        back = (now.weekday() - _WEEKDAYS.index(m["w"].lower())) % 7
        if m["rel"].lower() == "last" and back == 0:
            back = 7
        day = now - timedelta(days=back)
        yield Match(m.start(), m.end(), m.group(0), "weekday", Period(day, day, "day"))


#: The rules, most specific first: a span taken by an earlier rule is not read again.
RULES = (_dates, _seasons, _months, _relative, _weekdays)


def find_periods(query: str, now: date) -> list[Match]:
    """Non-overlapping period expressions in ``query`` (earlier rules and longer spans win)."""
    taken: list[Match] = []
    for rule in RULES:
        for m in sorted(rule(query, now), key=lambda m: (m.start, -(m.end - m.start))):
            if all(m.end <= t.start or m.start >= t.end for t in taken):
                taken.append(m)
    return sorted(taken, key=lambda m: m.start)
