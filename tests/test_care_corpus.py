"""The generated care corpus: the issue's minimums, batches 1-4 as tuning data, deterministic."""

from __future__ import annotations

from collections import defaultdict

from lucasrag_harness.evaluation.care_corpus import BATCHES, TUNING_BATCHES, generate_corpus, split_of
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


def test_every_family_of_batches_1_to_5_is_tuning_data_and_keeps_its_former_half_on_record():
    halves = defaultdict(set)
    for p in PASSAGES:
        halves[p.family].add(p.half)
    assert all(len(h) == 1 for h in halves.values())  # a family is never split between halves
    tuning = {f.name for charged, neutral in BATCHES + TUNING_BATCHES for f in charged + neutral}
    assert {f for f, h in halves.items() if h == {"tune"}} >= tuning
    assert {(p.label, p.half) for p in PASSAGES if p.family in tuning} == {("charged", "tune"), ("neutral", "tune")}
    former = split_of(CHARGED + NEUTRAL)  # the split the first batch had until corpus v4, for the history
    assert set(former.values()) == {"tune", "test"} and set(former) == {f.name for f in CHARGED + NEUTRAL}


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
