"""The generated care corpus: the issue's minimums, batches 1-5 as tuning data, a held-out test batch, deterministic."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections import defaultdict

import lucasrag_harness.evaluation.care_corpus as care_corpus
from lucasrag_harness.evaluation.care_corpus import (
    BATCHES,
    HELDOUT,
    PERSONAS,
    TUNING_BATCHES,
    generate_corpus,
    split_of,
)
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


def test_deterministic_across_processes():
    """Another interpreter with another string-hash seed draws the same corpus (no set order leaks in)."""
    code = (
        "import hashlib; from lucasrag_harness.evaluation.care_corpus import generate_corpus; "
        "print(hashlib.sha256(repr(generate_corpus(11)).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, check=True
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert digests == {hashlib.sha256(repr(PASSAGES).encode()).hexdigest().encode()}


HELD_CHARGED, HELD_NEUTRAL = HELDOUT
HELD_NAMES = {f.name for f in HELD_CHARGED + HELD_NEUTRAL}


def test_heldout_batch_1_is_tuning_data_now_and_large_enough():
    assert len(HELD_CHARGED) >= 24 and len(HELD_NEUTRAL) >= 12
    assert all(len(f.templates) >= 8 for f in HELD_CHARGED + HELD_NEUTRAL)
    assert {f.label for f in HELD_CHARGED} == {"charged"} and {f.label for f in HELD_NEUTRAL} == {"neutral"}
    held = [p for p in PASSAGES if p.family in HELD_NAMES]
    assert {p.half for p in held} == {"tune"}  # scored twice, so tuning data (the leave-one-author-out half)
    assert {p.family for p in held} == HELD_NAMES and len(held) == 8 * len(HELD_NAMES)


def test_the_heldout_families_are_new():
    earlier = [f for charged, neutral in BATCHES + TUNING_BATCHES for f in charged + neutral]
    assert not HELD_NAMES & {f.name for f in earlier} and len(HELD_NAMES) == len(HELD_CHARGED + HELD_NEUTRAL)

    def words(template):
        return set(re.findall(r"[a-z]+", template.lower()))

    old = [words(t) for f in earlier for t in f.templates]
    for f in HELD_CHARGED + HELD_NEUTRAL:
        for t in f.templates:  # no template is a light rewording of an earlier one
            assert max(len(words(t) & o) / len(words(t) | o) for o in old) < 0.5, (f.name, t)


def test_the_heldout_batch_leaves_the_earlier_batches_unchanged(monkeypatch):
    monkeypatch.setattr(care_corpus, "HELDOUT", ((), ()))
    without = generate_corpus(11)
    assert PASSAGES[: len(without)] == without
    assert {p.family for p in PASSAGES[len(without) :]} == HELD_NAMES


def test_heldout_personas_appear_in_the_heldout_batch_only():
    heldout_only = {p.subject.name for p in PERSONAS if p.heldout}
    assert len(heldout_only) >= 2
    assert not any(p.subject in heldout_only for p in PASSAGES if p.family not in HELD_NAMES)
    assert {p.subject for p in PASSAGES if p.family in HELD_NAMES} == {p.subject.name for p in PERSONAS}


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
