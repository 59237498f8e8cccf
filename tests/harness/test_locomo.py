"""LoCoMo converter, evidence parsing, recall and BM25 (fast: no ingest)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from lucasrag_harness.evaluation.baselines import BM25, tokenize
from lucasrag_harness.evaluation.locomo import (
    load_locomo,
    parse_conversation,
    parse_evidence,
    parse_session_datetime,
    session_note,
    write_vault,
)
from lucasrag_harness.evaluation.recall import SystemScores, recall_at, turn_ids

REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "locomo" / "locomo10.json"


def test_session_dates_parse():
    assert parse_session_datetime("1:56 pm on 8 May, 2023") == dt.datetime(2023, 5, 8, 13, 56)
    assert parse_session_datetime("12:09 am on 13 September, 2023") == dt.datetime(2023, 9, 13, 0, 9)
    assert parse_session_datetime("12:30 pm on 1 January, 2024") == dt.datetime(2024, 1, 1, 12, 30)
    assert parse_session_datetime("8 May 2023") == dt.datetime(2023, 5, 8)
    with pytest.raises(ValueError, match="unrecognised"):
        parse_session_datetime("sometime in May")


def test_sessions_without_turns_are_skipped_and_now_is_the_day_after(locomo_sample):
    conv = parse_conversation(locomo_sample)
    assert [s.number for s in conv.sessions] == [1, 2]
    assert conv.turns == 3
    assert conv.now == dt.date(2023, 6, 21)


def test_notes_carry_markers_one_paragraph_per_turn_and_no_annotations(locomo_sample, tmp_path):
    conv = parse_conversation(locomo_sample)
    note = session_note(conv, conv.sessions[0])
    head, body = note.split("---\n\n", 1)
    assert "date: 2023-05-08" in head and "workspace: personal" in head and "title:" in head
    paragraphs = body.strip().split("\n\n")
    assert paragraphs == [
        "[D1:1] Ann: I adopted a dog called Rex.",
        "[D1:2] Bob: Lovely! What breed? (shares a photo: a photo of a beagle)",
    ]
    assert write_vault(conv, tmp_path) == 2
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.md"))
    assert files == ["sessions/2023-05-08 session 1.md", "sessions/2023-06-20 session 2.md"]
    assert "LEAK" not in "".join(p.read_text() for p in tmp_path.rglob("*.md"))
    assert write_vault(conv, tmp_path) == 0  # unchanged notes are not rewritten


def test_note_frontmatter_is_accepted_by_the_vault_scanner(locomo_sample, tmp_path):
    from lucasrag_assets.rules.vault_scan import parse_note

    conv = parse_conversation(locomo_sample)
    write_vault(conv, tmp_path)
    note = parse_note(tmp_path, tmp_path / "sessions/2023-05-08 session 1.md", max_bytes=1 << 20)
    assert note.status == "ok", note.reason
    assert note.workspace == "personal" and note.date == dt.date(2023, 5, 8)


@pytest.mark.parametrize(
    ("raw", "ids", "split", "repaired", "skipped"),
    [
        (["D3:7"], ["D3:7"], 0, 0, 0),
        (["D8:6; D9:17"], ["D8:6", "D9:17"], 1, 0, 0),
        (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"], 1, 0, 0),
        (["D:11:26"], ["D11:26"], 0, 1, 0),
        (["D30:05"], ["D30:5"], 0, 0, 0),
        (["D"], [], 0, 0, 1),
        (["D:1:2:3"], [], 0, 0, 1),  # ambiguous: not repaired
        (["D1:1", "D1:1"], ["D1:1"], 0, 0, 0),
        ([], [], 0, 0, 0),
    ],
)
def test_evidence_parsing_is_lenient(raw, ids, split, repaired, skipped):
    got, stats = parse_evidence(raw)
    assert got == ids
    assert (stats.ids_split, stats.ids_repaired, stats.ids_skipped) == (split, repaired, skipped)


def test_unknown_turns_and_questions_without_evidence_are_counted(locomo_sample):
    conv = parse_conversation(locomo_sample)
    assert [q.evidence for q in conv.questions] == [("D1:1",), ("D1:2", "D2:1"), ("D1:1",)]
    assert [q.category for q in conv.questions] == [4, 1, 2]  # adversarial never scored
    ev = conv.evidence
    assert (ev.ids_skipped, ev.ids_unknown, ev.ids_repaired, ev.ids_split) == (1, 1, 1, 1)
    assert ev.questions_without_evidence == 2  # [] and ["D", "D9:9"]
    assert conv.questions_total == 6


def test_recall_on_a_hand_checked_example():
    chunks = [
        "[D1:1] Ann: a\n\n[D1:2] Bob: b",  # rank 1
        "[D2:1] Ann: c",  # rank 2
        "[D3:4] Ann: d mentions D5:5 without brackets",  # rank 3
    ]
    assert turn_ids(chunks[2]) == {"D3:4"}
    evidence = ["D1:2", "D3:4", "D5:5", "D9:9"]
    assert recall_at(evidence, chunks, 1) == 0.25
    assert recall_at(evidence, chunks, 2) == 0.25
    assert recall_at(evidence, chunks, 3) == 0.5
    assert recall_at(["D1:1"], ["[D1:10] x", "[D11:1] y"], 2) == 0.0  # no prefix matches
    with pytest.raises(ValueError):
        recall_at([], chunks, 3)

    scores = SystemScores("toy")
    scores.add("single-hop", ["D1:1"], chunks, 10.0)
    scores.add("multi-hop", evidence, chunks, 30.0)
    table = scores.table(["single-hop", "multi-hop"])
    assert table["single-hop"]["R@5"] == 1.0 and table["multi-hop"]["R@25"] == 0.5
    assert table["all"]["n"] == 2 and table["all"]["R@25"] == 0.75
    summary = scores.summary()
    assert summary["latency_p50_ms"] == 20.0 and summary["mean_turns_at_25"] == 4


def test_bm25_ranks_a_toy_corpus():
    docs = ["the cat sat on the mat", "dogs chase cats in the park", "a cat and a cat and a hat"]
    assert tokenize("The Cat's hat!") == ["the", "cat", "s", "hat"]
    bm25 = BM25(docs)
    assert bm25.top("cat", 3)[:2] == [2, 0]  # two "cat"s beat one; "cats" is not stemmed to "cat"
    assert bm25.scores("cat")[1] == 0.0
    assert bm25.top("dogs park", 1) == [1]
    assert bm25.top("unknown words", 3) == [0, 1, 2]  # ties keep corpus order
    scores = bm25.scores("mat hat")
    assert scores[0] > 0 and scores[2] > 0 and scores[1] == 0


@pytest.mark.skipif(not REAL.is_file(), reason="LoCoMo data not present")
def test_real_file_counts():
    convs = load_locomo(REAL)
    assert sum(len(c.sessions) for c in convs) == 272
    assert sum(c.turns for c in convs) == 5882
    assert sum(c.questions_total for c in convs) == 1986
    assert sum(len(c.questions) for c in convs) == 1536  # categories 1-4 with usable evidence


def test_locomo_command_is_registered():
    from typer.testing import CliRunner

    from lucasrag_cli import app

    result = CliRunner().invoke(app, ["eval", "locomo", "--help"])
    assert result.exit_code == 0 and "--conversations" in result.output


def test_locomo_command_reports_a_missing_file(tmp_path):
    from typer.testing import CliRunner

    from lucasrag_cli import app

    result = CliRunner().invoke(app, ["eval", "locomo", "--data", str(tmp_path / "nope.json")])
    assert result.exit_code == 2


def test_json_roundtrip_through_loader(locomo_sample, tmp_path):
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([locomo_sample]))
    (conv,) = load_locomo(path)
    assert conv.sample_id == "conv-x" and conv.speakers == ("Ann", "Bob")
