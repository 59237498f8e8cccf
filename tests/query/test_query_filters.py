"""The caller's filters (§3.7): after, before, folders, tags — one meaning in query(), the CLI and MCP.
A period filter opens the archive for that period only; no filter lifts a withholding."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lucasrag_query import QueryError, query
from lucasrag_query.filters import FilterError, parse_filters

NOW = __import__("datetime").date(2026, 6, 1)


@pytest.mark.parametrize(
    ("kwargs", "after", "before"),
    [
        ({"after": "2019"}, "2019-01-01", None),
        ({"before": "2019"}, None, "2019-12-31"),
        ({"after": "April 2024", "before": "2024-06-30"}, "2024-04-01", "2024-06-30"),
        ({"after": "2021-03-14"}, "2021-03-14", None),
        ({"before": "last summer"}, None, "2025-08-31"),
    ],
)
def test_date_bounds_include_the_period_they_name(kwargs, after, before):
    dates = parse_filters(**kwargs, now=NOW).to_dict()["dates"]
    assert (dates["from"], dates["to"]) == (after, before)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"after": "someday"}, "expected an ISO date"),
        ({"before": "2019 and 2020"}, "one period"),
        ({"after": "2021", "before": "2019"}, "later than"),
        ({"folders": [""]}, "non-empty"),
        ({"tags": ["#"]}, "non-empty"),
    ],
)
def test_bad_values_say_what_was_expected(kwargs, message):
    with pytest.raises(FilterError, match=message):
        parse_filters(**kwargs, now=NOW)


@pytest.mark.parametrize(
    ("kwargs", "path", "date", "tags", "admitted"),
    [
        ({"folders": ["journal"]}, "journal/2024-05-12.md", None, [], True),
        ({"folders": ["journal/"]}, "journalling/x.md", None, [], False),
        ({"folders": ["admin", "tech"]}, "tech/homelab.md", None, [], True),
        ({"tags": ["#Travel"]}, "a.md", None, ["travel/lisbon"], True),
        ({"tags": ["travel"]}, "a.md", None, ["travelling"], False),
        ({"after": "2020"}, "a.md", None, [], False),  # undated: a date filter cannot admit it
        ({"after": "2020"}, "a.md", "2020-01-01", [], True),
        ({"before": "2019", "folders": ["journal"]}, "journal/a.md", "2020-01-01", [], False),
    ],
)
def test_what_a_filter_admits(kwargs, path, date, tags, admitted):
    why = parse_filters(**kwargs, now=NOW).admits(path, date, lambda _: tags)
    assert (why is not None) is admitted


@pytest.mark.slow
def test_filters_on_the_sample_vault(profile_ingested):
    recent = query("what happened?", settings=profile_ingested, after="2024", top_k=10)
    assert recent.results and all(r.date and r.date >= "2024-01-01" for r in recent.results)
    assert recent.to_dict()["filters"] == {"after": "2024", "dates": {"from": "2024-01-01", "to": None}}

    # A period filter opens the archive for that period only, as "in 2013" in the words would.
    old = query("where did I live?", settings=profile_ingested, before="2013", top_k=10)
    assert old.archival_open and old.results
    assert all(r.date and r.date <= "2013-12-31" for r in old.results)
    assert any(r.band == "archival" for r in old.results)
    assert old.to_dict(why=True)["results"][0]["why"]["filters"][0].startswith("dated ")

    journal = query("moving", settings=profile_ingested, folders=["journal"], archive=True, top_k=10)
    assert journal.results and all(r.path.startswith("journal/") for r in journal.results)
    assert journal.to_dict()["filters"] == {"folders": ["journal"], "archive": True}


@pytest.mark.slow
def test_a_tag_filter_reads_the_notes_tags(profile_ingested):
    from lucasrag.catalog import read_catalog

    tagged = {r["path"] for r in read_catalog(profile_ingested).to_dicts() if "insurance" in (r["tags"] or [])}
    assert tagged
    result = query("what is insured?", settings=profile_ingested, tags=["#insurance"], top_k=10)
    assert result.results and {r.path for r in result.results} <= tagged


FUNERAL = "journal/2012-10-06 grandad's funeral.md"


@pytest.mark.slow
def test_a_filter_never_lifts_a_withholding(profile_ingested):
    """Narrowed to the funeral's folder and year, the funeral's passages stay withheld unless bridged."""
    asked = {"settings": profile_ingested, "folders": ["journal"], "after": "2012", "before": "2012", "top_k": 10}
    filtered = query("grandad's funeral", **asked)
    assert FUNERAL not in {r.path for r in filtered.results}
    assert "Grandad Tom" in {h.subject for h in filtered.hints if h.kind == "deference"}
    bridged = query("grandad's funeral", bridge=["Grandad Tom"], **asked)
    assert FUNERAL in {r.path for r in bridged.results}


@pytest.mark.slow
def test_bad_filters_are_query_errors(profile_ingested):
    with pytest.raises(QueryError, match="after='someday'"):
        query("anything", settings=profile_ingested, after="someday")


@pytest.mark.slow
def test_the_cli_filters(ingested):
    from lucasrag_cli import app

    env = {"LUCASRAG_VAULT": str(ingested.vault), "LUCASRAG_DATA": str(ingested.data), "LUCASRAG_NOW": "2026-06-01"}
    args = ["query", "where did I live?", "--before", "2013", "--folder", "journal", "--json", "--top-k", "5"]
    done = CliRunner().invoke(app, args, env=env)
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    assert result["filters"]["folders"] == ["journal"]
    assert all(r["path"].startswith("journal/") and r["date"] <= "2013-12-31" for r in result["results"])
    bad = CliRunner().invoke(app, ["query", "x", "--after", "someday"], env=env)
    assert bad.exit_code == 2 and "expected an ISO date" in bad.output
