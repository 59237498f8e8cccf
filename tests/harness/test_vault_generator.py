"""The synthetic vault generator: deterministic, well-formed, and its truth agrees with the files."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import frontmatter
import pytest
import yaml

from lucasrag.deference import load_deference
from lucasrag_harness.evaluation.policy_eval import KINDS
from lucasrag_harness.evaluation.vault_generator import (
    GRIEF_CUES,
    PAST_CUES,
    SUBJECT_MENTION,
    GroundTruth,
    generate_vault,
    main,
    truth_path,
)

N = 300
NOW = dt.date(2026, 6, 1)
CUTOFF = dt.date(2023, 6, 1)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _is_note(rel: str) -> bool:
    return rel.endswith(".md") and not any(part.startswith(".") for part in rel.split("/"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, GroundTruth]:
    root = tmp_path_factory.mktemp("a") / "vault"
    return root, generate_vault(root, N, seed=7, now=NOW)


def test_same_seed_gives_identical_bytes_and_truth(generated, tmp_path):
    root_a, truth_a = generated
    root_b = tmp_path / "vault"
    truth_b = generate_vault(root_b, N, seed=7, now=NOW)
    assert _files(root_a) == _files(root_b)
    assert truth_path(root_a).read_bytes() == truth_path(root_b).read_bytes()
    assert truth_a.to_dict() == truth_b.to_dict()
    other = generate_vault(tmp_path / "other" / "vault", N, seed=8, now=NOW)
    assert other.to_dict()["notes"] != truth_a.to_dict()["notes"]


def test_truth_json_loads_and_lists_every_note(generated):
    root, truth = generated
    path = truth_path(root)
    assert path.parent == root.parent and path.is_file()  # outside the vault
    loaded = GroundTruth.load(path)
    assert loaded.to_dict() == truth.to_dict()
    assert json.loads(path.read_text(encoding="utf-8"))["n_notes"] == N
    notes = sorted(rel for rel in _files(root) if _is_note(rel))
    assert notes == sorted(truth.notes) and len(notes) == N
    # ignored things exist but are not in the truth
    files = _files(root)
    assert ".obsidian/app.json" in files and any(r.endswith(".png") for r in files)
    assert [s.name for s in load_deference(root)] == ["Grandad Tom", "Maya"]
    assert {"home", "employer", "pet", "car"} <= set(truth.timelines)


def test_counts_roughly_as_configured(generated):
    root, truth = generated
    notes = truth.notes.values()
    status = Counter(t.status for t in notes)
    assert 4 <= status["invalid"] <= max(8, 0.02 * N)  # ~1%, at least one of each kind
    assert 4 <= status["quarantined"] <= max(12, 0.04 * N)  # ~2%
    assert status["invalid"] >= 0.005 * N and status["quarantined"] >= 0.01 * N
    indexed = [t for t in notes if t.status == "indexed"]
    by_ws = Counter(t.workspace for t in indexed)
    assert set(by_ws) == {"technical", "creative", "personal", "administrative"}
    assert all(by_ws[w] >= 0.10 * len(indexed) for w in by_ws), by_ws
    undated = sum(t.date is None for t in indexed)
    assert 0.05 * N <= undated <= 0.18 * N
    with_fm = sum(1 for rel in truth.notes if (root / rel).read_bytes().startswith(b"---\n"))
    assert 0.18 * N <= with_fm <= 0.45 * N
    kinds = Counter(t.kind for t in notes)
    assert kinds["charged_marked"] >= 4 and kinds["charged_unmarked"] >= 4 and kinds["neutral_mention"] >= 4
    assert kinds["childhood"] >= 2 and kinds["facts"] == 1
    words = [
        len((root / r).read_text(encoding="utf-8").split()) for r, t in truth.notes.items() if t.status == "indexed"
    ]
    assert max(words) <= 560 and sorted(words)[len(words) // 2] >= 60


def test_bad_files_are_really_bad(generated):
    root, truth = generated
    bad = {rel: t.reason for rel, t in truth.notes.items() if t.status == "invalid"}
    assert set(bad.values()) == {"malformed_yaml", "empty", "non_utf8", "nul"}
    for rel, reason in bad.items():
        data = (root / rel).read_bytes()
        if reason == "empty":
            assert data == b""
        elif reason == "nul":
            assert b"\x00" in data
        elif reason == "non_utf8":
            with pytest.raises(UnicodeDecodeError):
                data.decode("utf-8")
        else:
            text = data.decode("utf-8")
            assert text.startswith("---\n")
            block = text.split("---\n")[1]
            with pytest.raises(yaml.YAMLError):
                yaml.safe_load(block)
            with pytest.raises(yaml.YAMLError):
                frontmatter.loads(text)
    # and nothing else is
    for rel, t in truth.notes.items():
        if t.status != "invalid":
            data = (root / rel).read_bytes()
            assert data and b"\x00" not in data
            frontmatter.loads(data.decode("utf-8"))


def test_dates_and_bands_follow_the_rules(generated):
    root, truth = generated
    assert truth.archival_cutoff == CUTOFF.isoformat()
    for rel, t in truth.notes.items():
        if t.status != "indexed":
            assert t.workspace is t.band is t.date is None
            continue
        post = frontmatter.loads((root / rel).read_text(encoding="utf-8"))
        fm = post.metadata
        m = re.match(r"(\d{4}-\d{2}-\d{2})", rel.rsplit("/", 1)[-1])
        expected_date = str(fm["date"]) if "date" in fm else (m.group(1) if m else None)
        assert t.date == expected_date, rel
        if "workspace" in fm:
            assert t.workspace == fm["workspace"], rel
        timeless = "runbook" in (fm.get("tags") or []) or "## Ingredients" in post.content  # a how-to, a recipe
        if "band" in fm:
            expected_band = fm["band"]
        elif timeless:
            expected_band = "present"  # what does not age stays present whatever its date
        elif t.date is not None:
            d = dt.date.fromisoformat(t.date)
            assert dt.date(2006, 1, 1) <= d < NOW and d != CUTOFF, rel
            expected_band = "archival" if d < CUTOFF else "present"
        else:
            expected_band = "archival" if PAST_CUES.search(post.content) else "present"
        assert t.band == expected_band, rel
        if t.kind == "facts":
            assert rel == "personal/facts.md" and fm["band"] == "present" and dt.date.fromisoformat(t.date) < CUTOFF


def test_charged_and_neutral_notes(generated):
    root, truth = generated
    for rel, t in truth.notes.items():
        if t.status != "indexed":
            continue
        post = frontmatter.loads((root / rel).read_text(encoding="utf-8"))
        if t.kind == "charged_marked":
            assert post.metadata["charged"] == t.charged and len(t.charged) == 1
        elif t.kind == "charged_unmarked":
            assert "charged" not in post.metadata
            assert SUBJECT_MENTION.search(post.content) and GRIEF_CUES.search(post.content), rel
        else:
            assert t.charged == [] and "charged" not in post.metadata
            if SUBJECT_MENTION.search(post.content):
                assert not GRIEF_CUES.search(post.content), rel
        if t.kind == "neutral_mention" and t.mentions:
            assert SUBJECT_MENTION.search(post.content), rel
    bands = {(t.charged[0], t.kind, t.band) for t in truth.notes.values() if t.charged}
    for subject in ("Grandad Tom", "Maya"):
        for kind in ("charged_marked", "charged_unmarked"):
            for band in ("archival", "present"):
                assert (subject, kind, band) in bands


def test_query_cases_are_consistent(generated):
    _, truth = generated
    cases = truth.cases
    assert len(cases) >= 30
    assert {c.kind for c in cases} == set(KINDS)  # every kind the evaluation judges, and only those
    notes = truth.notes
    for c in cases:
        assert set(c.expect_paths) <= set(notes) and set(c.forbid_paths) <= set(notes), c.query
        assert not set(c.expect_paths) & set(c.forbid_paths), c.query
        assert all(notes[p].status == "indexed" for p in c.expect_paths)
        if c.kind == "present_fact":
            assert not c.archival_open and c.expect_paths[-1] == "personal/facts.md"
            assert all(notes[p].band == "present" and not notes[p].charged for p in c.expect_paths)
            assert all(notes[p].band == "archival" for p in c.forbid_paths)
            dated = [notes[p].date for p in c.expect_paths[:-1]]
            assert dated == sorted(dated, reverse=True)  # the newest statement first
        elif c.kind in ("archive_year", "archive_cue"):
            assert c.archival_open and c.expect_paths
        elif c.kind == "charged_withheld":
            assert all(notes[p].charged for p in c.forbid_paths)
            assert c.withheld or c.archival_open
        elif c.kind == "charged_bridged":
            assert c.bridge and all(
                c.bridge[0] in notes[p].charged and notes[p].band == "present" for p in c.expect_paths
            )
        elif c.kind == "quarantine_never":
            assert all(notes[p].status != "indexed" for p in c.forbid_paths) and c.forbid_paths
        elif c.kind == "workspace_restriction":
            assert c.workspaces and all(notes[p].workspace in c.workspaces for p in c.expect_paths)
        elif c.kind.startswith("period_"):
            lo, hi = c.period
            assert c.archival_open and c.expect_paths and lo <= hi
            assert all(lo <= notes[p].date[:10] <= hi for p in c.expect_paths), c.query
        elif c.kind.startswith("false_alarm_"):
            assert not c.archival_open and not c.expect_paths


def test_cli(tmp_path, capsys):
    out = tmp_path / "v"
    assert main([str(out), "--notes", "60", "--seed", "3"]) == 0
    assert "wrote 60 files" in capsys.readouterr().out
    assert main([str(out), "--notes", "60"]) == 2  # not empty, no --force
    assert main([str(out), "--notes", "60", "--force"]) == 0
    assert GroundTruth.load(truth_path(out)).n_notes == 60


@pytest.fixture(scope="module")
def larger(tmp_path_factory) -> GroundTruth:
    """Large enough that some questions have more answers than a capped list would hold (over fifty)."""
    return generate_vault(tmp_path_factory.mktemp("larger") / "vault", 3000, seed=7, now=NOW)


def _answers(truth: GroundTruth, case) -> set[str]:
    """Every indexed, dated, uncharged note that answers ``case``, found from the notes' truth alone."""
    fact, entry = next((f, e) for f, es in truth.timelines.items() for e in es if e["key"] == case.expect_text)
    current = [e for e in truth.timelines[fact] if e["start_year"] <= NOW.year][-1]["value"]
    notes = {
        p: t
        for p, t in truth.notes.items()
        if t.status == "indexed" and t.kind == "regular" and t.date and not t.charged and fact in t.states
    }
    if case.kind == "present_fact":
        return {p for p, t in notes.items() if t.band == "present" and t.states[fact] == current}
    if case.kind == "archive_year":
        year = re.search(r"\b(\d{4})\b", case.query)[1]
        return {p for p, t in notes.items() if t.date[:4] == year and t.states[fact] != current}
    lo, hi = case.period
    return {p for p, t in notes.items() if lo <= t.date[:10] <= hi}


def test_a_case_lists_every_note_that_answers_it(larger):
    """A capped list (the newest few) would count a right answer as a miss, the more so the larger the vault."""
    checked = Counter()
    for c in larger.cases:
        if c.kind in ("present_fact", "archive_year") or c.kind.startswith("period_"):
            facts_note = ["personal/facts.md"] if c.kind == "present_fact" else []
            expect = set(c.expect_paths) - set(facts_note)
            assert expect == _answers(larger, c) and set(facts_note) <= set(c.expect_paths), c.query
            checked[c.kind] += 1
    assert checked["present_fact"] == 12 and checked["archive_year"] >= 20, checked
    assert max(len(c.expect_paths) for c in larger.cases) > 50
