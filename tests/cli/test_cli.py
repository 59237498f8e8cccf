"""The `lucasrag` command line on the ingested sample vault (contract §3.8)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lucasrag_cli import app

pytestmark = pytest.mark.slow
NOTE_FIELDS = {"path", "status", "workspace", "confidence", "band", "date", "charged", "reason"}


@pytest.fixture
def run(ingested):
    env = {"LUCASRAG_VAULT": str(ingested.vault), "LUCASRAG_DATA": str(ingested.data), "LUCASRAG_NOW": "2026-06-01"}

    def invoke(*args):
        return CliRunner().invoke(app, list(args), env=env)

    return invoke


def test_notes_json_has_one_row_per_file_with_contract_fields(run, truth):
    result = run("notes", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert {r["path"] for r in rows} == set(truth["notes"])
    assert all(NOTE_FIELDS <= set(r) for r in rows)
    assert all(isinstance(r["charged"], list) for r in rows)
    invalid = [r for r in rows if r["status"] == "invalid"]
    assert invalid and all(r["reason"] and r["workspace"] is None for r in invalid)


def test_notes_table(run):
    result = run("notes")
    assert result.exit_code == 0 and "personal/facts.md" in result.stdout


def test_query_json_shape(run):
    result = run("query", "where did I live in 2013?", "--json", "--top-k", "4")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    temporal = data["temporal"]
    assert temporal["archival_open"] is True and temporal["signals"] == ["2013"]
    assert temporal["archive"] == "periods"
    assert [(d["text"], d["kind"], d["period"]["precision"]) for d in temporal["details"]] == [("2013", "year", "year")]
    assert len(data["results"]) == 4


def test_query_table_prints_the_temporal_decision_in_one_line(run):
    result = run("query", "what did I write on 2 April 2013?")
    assert result.exit_code == 0
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("temporal:"))
    assert "'2 April 2013' date 2013-04-02 (day)" in line and "named periods only" in line


def test_query_table_shows_hints(run):
    result = run("query", "how is grandad?")
    assert result.exit_code == 0
    assert "Grandad Tom" in result.stdout and "--bridge" in result.stdout


def test_query_workspace_and_bridge_options(run):
    data = json.loads(run("query", "grandad", "--workspace", "personal", "--bridge", "Grandad Tom", "--json").stdout)
    assert {r["workspace"] for r in data["results"]} == {"personal"}
    assert not [h for h in data["hints"] if h["subject"] == "Grandad Tom"]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["query", "x", "--workspace", "kitchen"], 2, "unknown workspace"),
        (["query", "   "], 2, "empty"),
        (["query", "x", "--top-k", "0"], 2, "top_k"),
    ],
    ids=["unknown-workspace", "empty-query", "bad-top-k"],
)
def test_query_errors_are_messages_not_tracebacks(run, args, code, message):
    result = run(*args)
    assert result.exit_code == code
    assert message in result.output.lower() and "Traceback" not in result.output


def test_query_without_index_says_to_ingest(tmp_path):
    env = {"LUCASRAG_VAULT": str(tmp_path), "LUCASRAG_DATA": str(tmp_path / "none")}
    result = CliRunner().invoke(app, ["query", "anything"], env=env)
    assert result.exit_code == 1 and "lucasrag ingest" in result.output


def test_notes_without_ingest_says_to_ingest(tmp_path):
    result = CliRunner().invoke(app, ["notes"], env={"LUCASRAG_DATA": str(tmp_path / "none")})
    assert result.exit_code == 1 and "lucasrag ingest" in result.output
