"""``archive=True`` (CLI ``--archive``, MCP ``archive``): the whole archive opened on the caller's request,
for a person who asked about the past in words the detector does not read. Care, privacy and workspaces
apply as ever; the hint of a closed archive says the parameter exists."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lucasrag_query import query

pytestmark = pytest.mark.slow

QUESTION = "moving to a new city"  # no period in the words: the moves of 2008 and 2019 are archival


def test_closed_by_default_and_the_hint_names_the_parameter(ingested):
    result = query(QUESTION, settings=ingested, top_k=5)
    assert not result.archival_open and all(r.band == "present" for r in result.results)
    [hint] = [h for h in result.hints if h.kind == "archive"]
    assert hint.withheld > 0 and "archive=True" in hint.message


def test_archive_true_opens_the_whole_archive_and_care_still_applies(ingested):
    result = query(QUESTION, settings=ingested, top_k=5, archive=True)
    assert result.archival_open and "archive=True" in result.signals
    assert result.to_dict()["temporal"]["archive"] == "whole"
    paths = [r.path for r in result.results]
    assert "journal/2019-08-03 moving to manchester.md" in paths and "journal/2008-09-21 moving to leeds.md" in paths
    assert not [h for h in result.hints if h.kind == "archive"]
    assert {h.subject for h in result.hints if h.kind == "deference"} >= {"Grandad Tom"}  # not lifted


def test_a_period_in_the_words_keeps_ranking_with_archive_true(ingested):
    """The request opens the archive whole; the period the words name still ranks its notes first."""
    both = query("where did I live in 2013?", settings=ingested, top_k=3, archive=True)
    assert (both.results[0].date or "").startswith("2013")
    assert "2013" in both.signals and "archive=True" in both.signals


def test_the_cli_flag(ingested):
    from lucasrag_cli import app

    env = {"LUCASRAG_VAULT": str(ingested.vault), "LUCASRAG_DATA": str(ingested.data), "LUCASRAG_NOW": "2026-06-01"}
    done = CliRunner().invoke(app, ["query", QUESTION, "--archive", "--json", "--top-k", "5"], env=env)
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    assert result["temporal"]["archival_open"] and any(r["band"] == "archival" for r in result["results"])


def test_archive_true_does_not_release_a_charged_archival_passage(ingested):
    """Words that name the past release the charged archival passages they admit; archive=True (like a
    filter) opens the band rule only: the funeral stays withheld, announced, unless bridged."""
    funeral = "journal/2012-10-06 grandad's funeral.md"
    requested = query("grandad's funeral", settings=ingested, top_k=10, archive=True)
    assert funeral not in {r.path for r in requested.results}
    assert "Grandad Tom" in {h.subject for h in requested.hints if h.kind == "deference"}
    in_words = query("grandad's funeral in 2012", settings=ingested, top_k=10)
    assert funeral in {r.path for r in in_words.results}
