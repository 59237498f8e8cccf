"""Table-driven tests for query temporal-signal detection (§3.4)."""

from __future__ import annotations

import ast
import sys
from datetime import date
from pathlib import Path

import pytest

from lucasrag_query.temporal import DEFAULT_CUES, Cue, TemporalSignals, detect_temporal, load_cues

NOW = date(2025, 6, 1)


def y(a: int, b: int | None = None) -> tuple[date, date]:
    return (date(a, 1, 1), date(b if b is not None else a, 12, 31))


# (query, expected signals, expected periods)
CASES = [
    ("where did I live in 2013?", ["2013"], [y(2013)]),
    ("2013's budget", ["2013"], [y(2013)]),
    ("photos (2013)", ["2013"], [y(2013)]),
    ("the summer of 2013", ["the summer of 2013"], [(date(2013, 6, 1), date(2013, 8, 31))]),
    ("was it 2013?", ["2013"], [y(2013)]),
    ("what happened on 2013-04-02", ["2013-04-02"], [(date(2013, 4, 2), date(2013, 4, 2))]),
    ("mid-2013 plans", ["2013"], [y(2013)]),
    ("from 2012-2014", ["2012", "2014"], [y(2012), y(2014)]),
    ("the summer of '13", ["the summer of '13"], [(date(2013, 6, 1), date(2013, 8, 31))]),
    ("what did I do in 2025", ["2025"], [y(2025)]),
    ("Windows 2000 server setup", [], []),
    ("SQL Server 2008 backup", [], []),
    ("Visual Studio 2019 shortcuts", [], []),
    ("iPhone 2013 case", [], []),
    ("service on port 2013", [], []),
    ("latency 2013ms", [], []),
    ("upgrade to v2013", [], []),
    ("1920x1080 wallpaper", [], []),
    ("it cost $2015", [], []),
    ("tag 2013-rc1", [], []),
    ("RFC 1918 ranges", [], []),
    ("table with 2000 rows", [], []),
    ("plans for 2030", [], []),
    ("the 2020s", ["the 2020s"], [y(2020, 2029)]),
    ("music of the 1990s", ["the 1990s"], [y(1990, 1999)]),
    ("the 1990's", ["the 1990's"], [y(1990, 1999)]),
    ("the 90s", ["the 90s"], [y(1990, 1999)]),
    ("'90s fashion", ["'90s"], [y(1990, 1999)]),
    ("mid-90s", ["mid-90s"], [y(1990, 1999)]),
    ("90s music", ["90s"], [y(1990, 1999)]),
    ("the nineties", ["the nineties"], [y(1990, 1999)]),
    ("the noughties", ["the noughties"], [y(2000, 2009)]),
    ("the twenty-tens", ["the twenty-tens"], [y(2010, 2019)]),
    ("in the 20s", ["the 20s"], [y(2020, 2029)]),
    ("the 30s", ["the 30s"], [y(1930, 1939)]),
    ("sleep 30s between retries", [], []),
    ("timeout=90s", [], []),
    ("tens of thousands of rows", [], []),
    ("what did I do in my 20s", ["my 20s"], []),
    ("back in uni", ["back in uni"], []),
    ("growing up in Leeds", ["growing up"], []),
    ("where did I grow up?", ["did I grow up"], []),
    ("kids grow up so fast", [], []),
    ("as a kid I liked trains", ["as a kid"], []),
    ("childhood friends", ["childhood"], []),
    ("when I was a teenager", ["when I was a teenager"], []),
    ("back then we rented", ["back then"], []),
    ("history of my street", ["history of"], []),
    ("the house's history", ["history"], []),
    ("how did the allotment come about?", ["how did the allotment come about"], []),
    ("show my git history", [], []),
    ("where I used to live", ["used to"], []),
    ("what is used to rotate logs", [], []),
    ("I'm used to it", [], []),
    ("what is X", [], []),
    ("what was X", [], []),
    ("last year", ["last year"], [y(2024)]),
    ("2 years ago", ["2 years ago"], [y(2023)]),
    ("12 years ago", ["12 years ago"], [y(2013)]),
    ("years ago", ["years ago"], []),
    ("my ex-boss", [], []),
    ("regex-based parser", [], []),
    ("how do I configure nginx?", [], []),
]


@pytest.mark.parametrize(("query", "signals", "periods"), CASES, ids=[c[0] for c in CASES])
def test_detect_temporal(query, signals, periods):
    got = detect_temporal(query, now=NOW)
    assert got == TemporalSignals(bool(signals), tuple(signals), tuple(periods))


def test_two_digit_decade_follows_now():
    assert detect_temporal("the 20s", now=date(2015, 1, 1)).periods == (y(1920, 1929),)


def test_to_dict():
    assert detect_temporal("in 2013", now=NOW).to_dict() == {
        "archival_open": True,
        "signals": ["2013"],
        "archive": "periods",
        "details": [
            {
                "text": "2013",
                "kind": "year",
                "period": {"start": "2013-01-01", "end": "2013-12-31", "precision": "year"},
                "opens": "period",
                "opened_archive": True,
            }
        ],
    }
    assert detect_temporal("back then", now=NOW).to_dict()["archive"] == "whole"
    assert detect_temporal("how do I bake bread", now=NOW).to_dict()["archive"] == "closed"


def test_summary_is_one_line():
    line = detect_temporal("what did I say about the boiler last year, back then?", now=NOW).summary()
    assert "\n" not in line and "'last year' relative 2024-01-01..2024-12-31 (year)" in line
    assert line.startswith("archive open, whole archive")


def test_custom_cues_replace_defaults():
    cues = (Cue(r"\bwhen I lived in\b", "lived"),)
    assert detect_temporal("when I lived in Leeds", now=NOW, cues=cues).signals == ("when I lived in",)
    assert not detect_temporal("growing up", now=NOW, cues=cues).archival_open


def test_load_cues(tmp_path):
    assert load_cues(tmp_path / "missing.yaml") == DEFAULT_CUES
    f = tmp_path / "temporal.yaml"
    f.write_text("- pattern: '\\bin the old flat\\b'\n  label: flat\n", encoding="utf-8")
    cues = load_cues(f)
    assert cues[-1] == Cue(r"\bin the old flat\b", "flat") and cues[:-1] == DEFAULT_CUES
    assert detect_temporal("in the old flat", now=NOW, cues=cues).archival_open


@pytest.mark.parametrize(
    "text", ["- pattern: '('\n", "- label: x\n", "pattern: x\n"], ids=["bad-regex", "no-pattern", "not-list"]
)
def test_load_cues_rejects(tmp_path, text):
    f = tmp_path / "temporal.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="temporal.yaml"):
        load_cues(f)


@pytest.mark.parametrize(
    "name", ["temporal.py", "policy.py", "_temporal_periods.py", "_temporal_years.py", "_temporal_cues.py"]
)
def test_module_level_imports_are_light(name):
    """Only stdlib, lucasrag.vocabulary and sibling rule modules at module level (no numpy, dagster...)."""
    tree = ast.parse((Path(__file__).parents[2] / "lucasrag_query" / name).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = ["." if node.level else node.module]
        else:
            continue
        for mod in mods:
            ok = mod in (".", "lucasrag.vocabulary") or mod.split(".")[0] in sys.stdlib_module_names
            assert ok, f"{name} imports {mod} at module level"
