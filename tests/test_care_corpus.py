"""The generated care corpus: the issue's minimums, a split by family, and a stable first batch."""

from __future__ import annotations

from collections import defaultdict

from lucasrag_harness.evaluation.care_corpus import generate_corpus, split_of
from lucasrag_harness.evaluation.care_corpus._families import CHARGED, NEUTRAL

PASSAGES = generate_corpus(11)


def test_counts_meet_the_issue():
    charged = [p for p in PASSAGES if p.label == "charged"]
    neutral = [p for p in PASSAGES if p.label == "neutral"]
    assert len(charged) >= 300 and len({p.family for p in charged}) >= 40
    assert len(neutral) >= 150
    registers = {p.register for p in charged}
    assert {"diary", "letter", "therapy", "poem", "one-line", "heading", "list", "message"} <= registers
    namesakes = [p for p in neutral if p.family.startswith("namesake")]
    assert {p.workspace for p in namesakes} >= {"technical", "administrative"}  # another workspace than personal
    assert {p.band for p in charged} == {"present", "archival"}


def test_split_is_by_family_and_both_halves_hold_both_labels():
    halves = defaultdict(set)
    for p in PASSAGES:
        halves[p.family].add(p.half)
    assert all(len(h) == 1 for h in halves.values())
    assert {(p.label, p.half) for p in PASSAGES} == {
        (lab, h) for lab in ("charged", "neutral") for h in ("tune", "test")
    }


def test_the_first_batch_keeps_the_halves_it_had_before_the_corpus_grew():
    first = {f.name for f in CHARGED + NEUTRAL}
    by_family = {p.family: p.half for p in PASSAGES if p.family in first}
    assert by_family == split_of(CHARGED + NEUTRAL)


def test_deterministic():
    assert generate_corpus(11) == PASSAGES and generate_corpus(12) != PASSAGES


def test_the_generated_vault_carries_the_corpus(tmp_path):
    from lucasrag.deference import load_deference
    from lucasrag_harness.evaluation.vault_generator import generate_vault

    plain = generate_vault(tmp_path / "plain", 60, seed=3)
    assert not any("care-corpus" in p for p in plain.notes)
    truth = generate_vault(tmp_path / "vault", 60, seed=3, care_corpus=True)
    care = {p: t for p, t in truth.notes.items() if p.startswith("journal/care-corpus/")}
    assert len(care) == len(PASSAGES) and truth.n_notes == len(plain.notes) + len(care)
    charged = [t for t in care.values() if t.kind == "charged_unmarked"]
    assert len(charged) >= 300 and all(t.charged == t.mentions for t in charged)
    assert sum(t.kind == "neutral_mention" and not t.charged for t in care.values()) >= 150
    assert {s.name for s in load_deference(tmp_path / "vault")} == {p.subject for p in PASSAGES}
    path, note = next(iter(care.items()))
    text = (tmp_path / "vault" / path).read_text()
    assert text.startswith(f"---\ndate: '{note.date}'\nworkspace: {note.workspace}\n---\n")
    assert "charged" not in text.split("---")[1]  # unmarked
