"""The query CLI's blocks read at 80 columns: real results, a fixed-width Console."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from typer.testing import CliRunner

from lucasrag_cli import app
from lucasrag_cli._render import PASSAGE_CHARS, passage, render_query
from lucasrag_query import query

pytestmark = pytest.mark.slow
WIDTH = 80


def rendered(result, *, full: bool = False) -> str:
    buffer = io.StringIO()
    render_query(Console(file=buffer, width=WIDTH, color_system=None, legacy_windows=False), result, full=full)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def pocket_watch(ingested):
    return query("what is grandad's pocket watch insured for?", workspaces=["administrative"], settings=ingested)


def test_each_result_is_a_readable_block_at_80_columns(pocket_watch):
    text = rendered(pocket_watch)
    lines = text.splitlines()
    assert max(map(len, lines)) <= WIDTH
    words = set(text.split())
    assert "administrative" in words  # never broken across lines
    for r in pocket_watch.results:
        heading = next(i for i, line in enumerate(lines) if line.startswith(f"{r.rank}. "))
        # The heading (and, on a narrow terminal, its continuation) holds every field whole.
        fields = " ".join(lines[heading : heading + 2]).split()
        assert r.path.split()[0] in fields and r.workspace in fields and r.band in fields
        assert (r.date or "undated") in fields and f"{r.score:.3f}" in fields
        # Every word of the shown passage survives wrapping intact.
        assert set(passage(r.text).split()) <= words
    assert "€900" in text  # the answer itself is on screen, not cut at ~100 characters
    assert [line for line in lines if line != line.rstrip()] == []  # no line padded with trailing spaces


def test_passages_are_cut_unless_full(ingested):
    result = query("what do I do for work?", settings=ingested)
    long = [r for r in result.results if len(" ".join(r.text.split())) > PASSAGE_CHARS + 50]
    assert long, "the sample vault has passages longer than the cut"
    short, full = rendered(result), rendered(result, full=True)
    tail = " ".join(long[0].text.split()[-8:])
    assert tail not in " ".join(short.split()) and tail in " ".join(full.split())
    assert "…" in short


def test_deference_hint_says_why_in_one_line(ingested):
    result = query("how is grandad?", settings=ingested)
    text = rendered(result)
    flat = " ".join(text.split())
    assert [h for h in result.hints if h.kind == "deference"]
    for hint in result.hints:
        if hint.kind == "deference":
            assert f"these refer to {hint.subject}, who is on your deference list" in flat
            assert "lucasrag care list" in flat


def test_cli_query_full_flag_and_json_unchanged(ingested):
    env = {"LUCASRAG_VAULT": str(ingested.vault), "LUCASRAG_DATA": str(ingested.data)}
    cli = CliRunner()
    shown = cli.invoke(app, ["query", "what is grandad's pocket watch insured for?", "--full", "--top-k", "2"], env=env)
    assert shown.exit_code == 0, shown.output
    assert "1. admin/insurance/2025-01-15 contents insurance valuation.md" in shown.stdout
    as_json = cli.invoke(app, ["query", "where do I live?", "--json", "--top-k", "2"], env=env)
    assert as_json.exit_code == 0 and as_json.stdout.lstrip().startswith("{")


@pytest.mark.parametrize(("command", "module"), [(["notes"], "route"), (["quarantine", "list"], "app")])
def test_note_listings_read_at_80_columns(ingested, monkeypatch, command, module):
    """`lucasrag notes` and `lucasrag quarantine list`: one block per note, every value whole at 80 columns."""
    import importlib
    import json

    buffer = io.StringIO()
    cli_module = importlib.import_module(f"lucasrag_cli.{module}")
    monkeypatch.setattr(cli_module, "out", Console(file=buffer, width=WIDTH, color_system=None, legacy_windows=False))
    env = {"LUCASRAG_VAULT": str(ingested.vault), "LUCASRAG_DATA": str(ingested.data)}
    shown = CliRunner().invoke(app, command, env=env)
    assert shown.exit_code == 0, shown.output
    rows = json.loads(CliRunner().invoke(app, [*command, "--json"], env=env).stdout)
    assert rows
    lines = buffer.getvalue().splitlines()
    assert max(map(len, lines)) <= WIDTH
    for row in rows:
        heading = lines.index(row["path"])  # the path whole on its own line
        fields = []
        for line in lines[heading + 1 :]:
            if not line.startswith(" " * 4):
                break
            fields += line.strip().split(" · ")
        shown_fields = dict(f.split(": ", 1) for f in fields if ": " in f)
        for name in ("status", "workspace", "band", "date", "suggestion"):
            if row.get(name):
                assert shown_fields[name] == row[name], (row["path"], name, fields)
        if row.get("reason"):  # a long reason is word-wrapped, never lost
            assert row["reason"].split()[0] in " ".join(fields)
