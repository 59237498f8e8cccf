"""The generated care corpus: its size minimums, batches 1-5, held-out batches 1-3 and the writers batches as
tuning data, held-out batch 4 as the test half, deterministic."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import subprocess
import sys
from collections import defaultdict

import pytest

import lucasrag_harness.evaluation.care_corpus as care_corpus
from lucasrag_harness.evaluation.care_corpus import (
    BATCHES,
    HELDOUT,
    HELDOUT2,
    HELDOUT3,
    HELDOUT4,
    PERSONAS,
    TUNING_BATCHES,
    WRITERS_BATCHES,
    WRITERS_PERSONAS,
    generate_corpus,
    split_of,
)
from lucasrag_harness.evaluation.care_corpus._load import load_batch, load_writers

CHARGED, NEUTRAL = load_batch("batch1")
WRITERS2, WRITERS3, WRITERS4 = (load_writers(f"heldout{n}") for n in (2, 3, 4))
WRITERS_1, WRITERS_2 = (load_writers(f"writers{n}") for n in (1, 2))

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


def test_every_family_of_batches_1_to_5_heldout_1_to_3_and_the_writers_is_tuning_data_and_keeps_its_former_half():
    halves = defaultdict(set)
    for p in PASSAGES:
        halves[p.family].add(p.half)
    assert all(len(h) == 1 for h in halves.values())  # a family is never split between halves
    tuned = BATCHES + TUNING_BATCHES + (HELDOUT, HELDOUT2) + WRITERS_BATCHES + (HELDOUT3,)
    tuning = {f.name for charged, neutral in tuned for f in charged + neutral}
    assert {f for f, h in halves.items() if h == {"tune"}} == tuning
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
HELD2_CHARGED, HELD2_NEUTRAL = HELDOUT2
HELD2_NAMES = {f.name for f in HELD2_CHARGED + HELD2_NEUTRAL}
HELD3_CHARGED, HELD3_NEUTRAL = HELDOUT3
HELD3_NAMES = {f.name for f in HELD3_CHARGED + HELD3_NEUTRAL}
HELD4_CHARGED, HELD4_NEUTRAL = HELDOUT4
HELD4_NAMES = {f.name for f in HELD4_CHARGED + HELD4_NEUTRAL}
EARLIER = [f for charged, neutral in BATCHES + TUNING_BATCHES for f in charged + neutral]
WRITER_FAMILIES = [f for charged, neutral in WRITERS_BATCHES for f in charged + neutral]
WRITER_CHARGED = [f for charged, _ in WRITERS_BATCHES for f in charged]
WRITER_NAMES = {f.name for f in WRITER_FAMILIES}
#: Every writer of the writers batches, by family-name prefix, with their voice.
WRITER_VOICES = {**WRITERS_1, **WRITERS_2}


@pytest.mark.parametrize(
    ("charged", "neutral", "half", "minimums"),
    [
        (HELD_CHARGED, HELD_NEUTRAL, "tune", (24, 12)),
        (HELD2_CHARGED, HELD2_NEUTRAL, "tune", (28, 14)),
        (HELD3_CHARGED, HELD3_NEUTRAL, "tune", (30, 15)),
        (HELD4_CHARGED, HELD4_NEUTRAL, "test", (30, 16)),
    ],
    ids=["heldout-1-now-tuning", "heldout-2-now-tuning", "heldout-3-now-tuning", "heldout-4-the-test-half"],
)
def test_each_heldout_batch_is_in_one_half_and_large_enough(charged, neutral, half, minimums):
    assert len(charged) >= minimums[0] and len(neutral) >= minimums[1]
    assert all(len(f.templates) >= 8 for f in charged + neutral)
    assert {f.label for f in charged} == {"charged"} and {f.label for f in neutral} == {"neutral"}
    names = {f.name for f in charged + neutral}
    held = [p for p in PASSAGES if p.family in names]
    assert {p.half for p in held} == {half}
    assert {p.family for p in held} == names and len(held) == 8 * len(names)


def test_the_test_half_is_heldout_batch_4_only():
    assert {p.family for p in PASSAGES if p.half == "test"} == HELD4_NAMES


def _words(template):
    return set(re.findall(r"[a-z]+", template.lower()))


@pytest.mark.parametrize(
    ("batch", "earlier"),
    [
        (HELDOUT, EARLIER),
        (HELDOUT2, EARLIER + list(HELDOUT[0] + HELDOUT[1])),
        *(
            (batch, EARLIER + list(HELDOUT[0] + HELDOUT[1] + HELDOUT2[0] + HELDOUT2[1]) + WRITER_FAMILIES[:start])
            for batch, start in zip(
                WRITERS_BATCHES, [sum(len(c + n) for c, n in WRITERS_BATCHES[:i]) for i in range(len(WRITERS_BATCHES))]
            )
        ),
        (HELDOUT3, EARLIER + list(HELDOUT[0] + HELDOUT[1] + HELDOUT2[0] + HELDOUT2[1]) + WRITER_FAMILIES),
        (
            HELDOUT4,
            EARLIER
            + list(HELDOUT[0] + HELDOUT[1] + HELDOUT2[0] + HELDOUT2[1])
            + WRITER_FAMILIES
            + list(HELD3_CHARGED + HELD3_NEUTRAL),
        ),
    ],
    ids=[
        "heldout-1",
        "heldout-2",
        *(f"writers-{i + 1}" for i in range(len(WRITERS_BATCHES))),
        "heldout-3",
        "heldout-4",
    ],
)
def test_the_heldout_and_writers_families_are_new(batch, earlier):
    families = batch[0] + batch[1]
    names = {f.name for f in families}
    assert not names & {f.name for f in earlier} and len(names) == len(families)
    old = [_words(t) for f in earlier for t in f.templates]
    for i, f in enumerate(families):
        before = old + [_words(t) for g in families[:i] for t in g.templates]  # nor of an earlier family of its batch
        for t in f.templates:  # no template is a light rewording of an earlier one
            assert max(len(_words(t) & o) / len(_words(t) | o) for o in before) < 0.5, (f.name, t)


@pytest.mark.parametrize(
    ("families", "writers", "minimum_writers", "minimum_registers"),
    [
        (HELD2_CHARGED + HELD2_NEUTRAL, WRITERS2, 5, 20),
        (tuple(WRITER_FAMILIES), WRITER_VOICES, 10, 20),
        (HELD3_CHARGED + HELD3_NEUTRAL, WRITERS3, 8, 20),
        (HELD4_CHARGED + HELD4_NEUTRAL, WRITERS4, 10, 25),
    ],
    ids=["heldout-2", "writers", "heldout-3", "heldout-4"],
)
def test_a_writers_batch_has_several_writers_and_unmarked_templates_naming_their_subject_only(
    families, writers, minimum_writers, minimum_registers
):
    names = {n.lower() for p in PERSONAS for n in p.subject.names}
    by_writer = defaultdict(set)
    for f in families:
        writer, _, _ = f.name.partition("/")
        by_writer[writer].add(f.label)
        assert len(f.templates) >= 8, f.name
        for t in f.templates:
            assert re.search(r"\{[Ss](\}|'s\})", t) and "charged:" not in t, (f.name, t)
            bare = re.sub(r"\{[^}]*\}", " ", t).lower()  # what the template says besides its slots
            assert not any(re.search(rf"\b{re.escape(n)}\b", bare) for n in names), (f.name, t)  # no other subject
    assert set(by_writer) == set(writers) and len(by_writer) >= minimum_writers  # every writer named, with a voice
    assert all(labels == {"charged", "neutral"} for labels in by_writer.values())  # a voice is no label cue
    assert len({f.register for f in families if f.label == "charged"}) >= minimum_registers


def test_the_writers_batches_are_large_enough_and_tuning_data():
    charged = [f for f in WRITER_FAMILIES if f.label == "charged"]
    neutral = [f for f in WRITER_FAMILIES if f.label == "neutral"]
    assert len(charged) >= 36 and len(neutral) >= 18
    assert not set(WRITERS_1) & set(WRITERS_2) and not set(WRITER_VOICES) & set(WRITERS2)  # a writer is one person
    writers = [p for p in PASSAGES if p.family in WRITER_NAMES]
    assert {p.half for p in writers} == {"tune"} and len(writers) == 8 * len(WRITER_NAMES)
    neutral_registers = {f.register for f in neutral}
    assert len(neutral_registers & {f.register for f in charged}) >= 10  # the same registers carry both labels


def test_heldout_batch_3_is_written_by_writers_no_tuning_batch_had():
    assert not set(WRITERS3) & (set(WRITERS2) | set(WRITER_VOICES))
    # batch 3 was written to avoid batch 2's voices; the writers batches were written at the same time, apart,
    # and share one profession with it (an accountant: Anjali's pasted tables, Clive's ledgers) and no voice
    voices = {v.split(":")[0] for v in WRITERS3.values()}
    assert not voices & {v.split(":")[0] for v in WRITERS2.values()}
    assert voices & {v.split(":")[0] for v in WRITER_VOICES.values()} <= {"an accountant"}


def test_heldout_batch_4_is_written_by_writers_no_earlier_batch_had_with_neutral_twins_in_its_registers():
    earlier = {**WRITERS2, **WRITER_VOICES, **WRITERS3}
    assert not set(WRITERS4) & set(earlier)
    voices = {v.split(":")[0] for v in WRITERS4.values()}
    assert not voices & {v.split(":")[0] for v in earlier.values()}  # no earlier writer's profession or voice
    charged = {f.register for f in HELD4_CHARGED}
    assert len({f.register for f in HELD4_NEUTRAL} & charged) >= 12  # a neutral twin in the same register


def test_baby_families_of_heldout_3_and_4_never_use_he_since_one_of_their_subjects_is_they():
    assert any(p.kind == "baby" and p.pronouns[0] == "they" for p in PERSONAS)
    for f in HELD3_CHARGED + HELD3_NEUTRAL + HELD4_CHARGED + HELD4_NEUTRAL:
        if f.kind == "baby":
            assert not any(re.search(r"\{[Hh]e\}", t) for t in f.templates), f.name


def test_the_test_half_is_the_same_whatever_tuning_batch_is_added_before_it(monkeypatch):
    extra = tuple(dataclasses.replace(f, name=f"extra/{f.name}") for f in HELD2_CHARGED + HELD2_NEUTRAL)
    monkeypatch.setattr(care_corpus, "TUNING_BATCHES", TUNING_BATCHES + ((extra[:3], extra[-2:]),))
    with_extra = generate_corpus(11)
    assert len(with_extra) == len(PASSAGES) + 40
    assert [p for p in with_extra if p.half == "test"] == [p for p in PASSAGES if p.half == "test"]


def test_each_batch_leaves_the_batches_before_it_unchanged(monkeypatch):
    monkeypatch.setattr(care_corpus, "HELDOUT4", ((), ()))
    without_4 = generate_corpus(11)
    assert PASSAGES[: len(without_4)] == without_4
    assert {p.family for p in PASSAGES[len(without_4) :]} == HELD4_NAMES
    monkeypatch.setattr(care_corpus, "HELDOUT3", ((), ()))
    before = generate_corpus(11)
    assert without_4[: len(before)] == before
    assert {p.family for p in without_4[len(before) :]} == HELD3_NAMES
    for n in range(len(WRITERS_BATCHES), 0, -1):  # each writers batch, the last first
        monkeypatch.setattr(care_corpus, "WRITERS_BATCHES", WRITERS_BATCHES[: n - 1])
        fewer = generate_corpus(11)
        assert before[: len(fewer)] == fewer
        batch = WRITERS_BATCHES[n - 1]
        assert {p.family for p in before[len(fewer) :]} == {f.name for f in batch[0] + batch[1]}
        before = fewer
    monkeypatch.setattr(care_corpus, "HELDOUT2", ((), ()))
    without_2 = generate_corpus(11)
    assert fewer[: len(without_2)] == without_2
    assert {p.family for p in fewer[len(without_2) :]} == HELD2_NAMES
    monkeypatch.setattr(care_corpus, "HELDOUT", ((), ()))
    without_both = generate_corpus(11)
    assert without_2[: len(without_both)] == without_both
    assert {p.family for p in without_2[len(without_both) :]} == HELD_NAMES


def test_heldout_personas_appear_from_their_batch_on_only():
    first = {p.subject.name: p.heldout for p in PERSONAS}
    assert sum(n == 1 for n in first.values()) >= 2 and sum(n == 2 for n in first.values()) >= 3
    assert sum(n == 3 for n in first.values()) >= 3 and sum(n == 4 for n in first.values()) >= 3
    batch_of = {
        name: n
        for n, names in (
            (1, HELD_NAMES),
            (2, HELD2_NAMES),
            (WRITERS_PERSONAS, WRITER_NAMES),
            (3, HELD3_NAMES),
            (4, HELD4_NAMES),
        )
        for name in names
    }
    assert all(first[p.subject] <= batch_of.get(p.family, 0) for p in PASSAGES)
    assert {p.subject for p in PASSAGES if p.family in HELD_NAMES} == {s for s, n in first.items() if n <= 1}
    assert {p.subject for p in PASSAGES if p.family in HELD2_NAMES} == {s for s, n in first.items() if n <= 2}
    assert {p.subject for p in PASSAGES if p.family in WRITER_NAMES} == {s for s, n in first.items() if n <= 2}
    assert {p.subject for p in PASSAGES if p.family in HELD3_NAMES} == {s for s, n in first.items() if n <= 3}
    assert {p.subject for p in PASSAGES if p.family in HELD4_NAMES} == set(first)


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


def test_written_about_new_subjects_uses_only_tuning_families_that_fit():
    from lucasrag.vocabulary import DeferenceSubject
    from lucasrag_harness.evaluation.care_corpus.new_subjects import tuning_families, written_about

    rose = care_corpus.Persona(DeferenceSubject("Rose"), "loss", ("she", "her", "her"), ("Rose",), ("Rose", "rose"))
    passages = written_about([rose])
    assert passages == written_about([rose])  # deterministic
    test_families = {f.name for f in HELDOUT4[0] + HELDOUT4[1]}
    fitting = [f for f in tuning_families() if f.kind in ("loss", "any")]
    assert not test_families & {f.name for f in tuning_families()}
    assert len(passages) == sum(len(f.templates) for f in fitting)
    assert {p.label for p in passages} == {"charged", "neutral"} and {p.half for p in passages} == {"tune"}
    assert all(p.subject == "Rose" and "{" not in p.text for p in passages)
    assert any("rose" in p.text for p in passages) and any("Rose" in p.text for p in passages)
