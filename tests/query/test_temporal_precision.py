"""Precision of temporal cues and periods: does a phrase open the archive only as a time reference?

Two tables written to cover both directions: time references that must open the archive
(each with the kind of its first signal) and words that look like time but are not.
"""

from __future__ import annotations

from datetime import date

import pytest

from lucasrag_query.temporal import detect_temporal

NOW = date(2026, 6, 1)  # a Monday

# (phrase, kind of the first signal)
OPENS = [
    ("where did I use to work?", "cue"),
    ("what car did I use to drive?", "cue"),
    ("I used to live in Haxby", "cue"),
    ("we always used to go to Whitby", "cue"),
    ("Maya used to call me on Sundays", "cue"),
    ("things used to be simpler", "cue"),
    ("our history together", "cue"),
    ("my history with Maya", "cue"),
    ("the history of the project", "cue"),
    ("the early history of Brightwire", "cue"),
    ("Lisbon's history", "cue"),
    ("how the garden came about", "cue"),
    ("historically, how much did I spend on heating?", "cue"),
    ("where did I grow up?", "cue"),
    ("growing up in Leeds", "cue"),
    ("as a kid I liked trains", "cue"),
    ("my childhood home", "cue"),
    ("back then we rented", "cue"),
    ("back in the day", "cue"),
    ("years ago I had a bike", "cue"),
    ("a few years ago", "cue"),
    ("a long time ago", "cue"),
    ("in the past I tried yoga", "cue"),
    ("my first car", "cue"),
    ("when I was at school", "cue"),
    ("what did I say on 7 Jan 2024?", "date"),
    ("notes from 2024-01-07", "date"),
    ("the 7th of January", "date"),
    ("What did Gina find on 1 February, 2023?", "date"),
    ("October 13, 2023", "date"),
    ("where was I working in March 2019?", "month"),
    ("last March", "month"),
    ("summer 2015", "season"),
    ("last winter", "season"),
    ("the summer of '13", "season"),
    ("two years ago", "relative"),
    ("what did I say about the boiler last year?", "relative"),
    ("yesterday's meeting", "relative"),
    ("three weeks ago", "relative"),
    ("last Tuesday", "weekday"),
    ("the 90s", "decade"),
    ("in 2013", "year"),
]

CLOSED = [
    "my ex-partner",
    "my ex's birthday",
    "an ex-colleague recommended a plumber",
    "the natural history museum",
    "a history of asthma",
    "family history of diabetes",
    "my dad's medical history",
    "the history of present illness",
    "clear my chat history",
    "Natural History Museum opening times",
    "browser history",
    "git history of the repo",
    "history homework for Sam",
    "medical history form",
    "I'm used to it",
    "we're used to the noise",
    "I got used to working from home",
    "get used to the new laptop",
    "the flour used to make bread",
    "what is used to rotate logs",
    "what did I use to fix the boiler?",
    "what did I use to clean the oven?",
    "five years' warranty",
    "a 5-year guarantee",
    "for years",
    "the boiler is 2 years old",
    "in two years",
    "next year",
    "tomorrow",
    "on Tuesdays I swim",
    "section 2 may apply",
    "march on",
    "in the summer I cycle",
    "Spring Boot config",
    "my daughter is growing up fast",
    "childhood vaccinations schedule",
    "formerly known as Twitter",
    "the previously selected option",
    "Windows 2000",
    "how do I configure nginx?",
    "what was the cafe called",
    "I may go",
]


def test_tables_are_balanced_and_large_enough():
    assert len(OPENS) + len(CLOSED) >= 60 and abs(len(OPENS) - len(CLOSED)) <= 4


@pytest.mark.parametrize(("phrase", "kind"), OPENS, ids=[p for p, _ in OPENS])
def test_time_reference_opens(phrase, kind):
    got = detect_temporal(phrase, now=NOW)
    assert got.archival_open and got.details[0].kind == kind, got.details


@pytest.mark.parametrize("phrase", CLOSED)
def test_not_a_time_reference(phrase):
    got = detect_temporal(phrase, now=NOW)
    assert not got.archival_open, got.signals


def d(y: int, m: int, day: int) -> date:
    return date(y, m, day)


# (phrase, (start, end), precision) with now = Monday 1 June 2026
PERIODS = [
    ("on 7 Jan 2024", (d(2024, 1, 7), d(2024, 1, 7)), "day"),
    ("7th January 2024", (d(2024, 1, 7), d(2024, 1, 7)), "day"),
    ("January 7, 2024", (d(2024, 1, 7), d(2024, 1, 7)), "day"),
    ("2024-01-07", (d(2024, 1, 7), d(2024, 1, 7)), "day"),
    ("the 7th of January", (d(2026, 1, 7), d(2026, 1, 7)), "day"),
    ("the 7th of December", (d(2025, 12, 7), d(2025, 12, 7)), "day"),  # not after now
    ("March 2019", (d(2019, 3, 1), d(2019, 3, 31)), "month"),
    ("February 2024", (d(2024, 2, 1), d(2024, 2, 29)), "month"),
    ("last March", (d(2026, 3, 1), d(2026, 3, 31)), "month"),
    ("last July", (d(2025, 7, 1), d(2025, 7, 31)), "month"),
    ("summer 2015", (d(2015, 6, 1), d(2015, 8, 31)), "season"),
    ("winter 2015", (d(2014, 12, 1), d(2015, 2, 28)), "season"),
    ("last winter", (d(2025, 12, 1), d(2026, 2, 28)), "season"),
    ("last summer", (d(2025, 6, 1), d(2025, 8, 31)), "season"),
    ("two years ago", (d(2024, 1, 1), d(2024, 12, 31)), "year"),
    ("last year", (d(2025, 1, 1), d(2025, 12, 31)), "year"),
    ("the year before last", (d(2024, 1, 1), d(2024, 12, 31)), "year"),
    ("3 months ago", (d(2026, 3, 1), d(2026, 3, 31)), "month"),
    ("last month", (d(2026, 5, 1), d(2026, 5, 31)), "month"),
    ("last week", (d(2026, 5, 25), d(2026, 5, 31)), "week"),
    ("yesterday", (d(2026, 5, 31), d(2026, 5, 31)), "day"),
    ("last Monday", (d(2026, 5, 25), d(2026, 5, 25)), "day"),
    ("on Friday", (d(2026, 5, 29), d(2026, 5, 29)), "day"),
    ("the nineties", (d(1990, 1, 1), d(1999, 12, 31)), "decade"),
]


@pytest.mark.parametrize(("phrase", "bounds", "precision"), PERIODS, ids=[p for p, *_ in PERIODS])
def test_period_resolution(phrase, bounds, precision):
    got = detect_temporal(phrase, now=NOW)
    assert got.periods == (bounds,)
    assert got.details[0].period.precision == precision and not got.whole_archive


def test_a_date_is_not_read_again_as_its_year():
    got = detect_temporal("what did she say on 7 Jan 2024?", now=NOW)
    assert got.signals == ("7 Jan 2024",) and got.periods == ((d(2024, 1, 7), d(2024, 1, 7)),)


def test_a_cue_with_a_period_opens_the_whole_archive():
    got = detect_temporal("where did I use to work in March 2019?", now=NOW)
    assert got.whole_archive and [s.kind for s in got.details] == ["cue", "month"]
