import re

import pytest

from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.charged import (
    CHARGED_CONTEXT_CUES,
    charged_subjects,
    charging_evidence,
    split_sentences,
)

TOM = DeferenceSubject("Grandad Tom", ("grandad", "grandpa tom", "Tom"))
EX = DeferenceSubject("Sam", ("my ex",))
SUBJECTS = (TOM, EX)

INFERRED = [
    # charged: name/alias near a cue
    pytest.param("Grandad Tom's funeral was on Friday.", ("Grandad Tom",), id="funeral-same-sentence"),
    pytest.param(
        "I still can't believe he's gone. Grandad would have laughed.",
        ("Grandad Tom",),
        id="cant-believe-prev-sentence",
    ),
    pytest.param(
        "Grandad loved that garden. He passed away in March.", ("Grandad Tom",), id="passed-away-next-sentence"
    ),
    pytest.param(
        "Grandad\u2019s chair is empty. I can\u2019t believe he\u2019s gone.", ("Grandad Tom",), id="curly-apostrophes"
    ),
    pytest.param("I miss him so much, grandpa tom always knew.", ("Grandad Tom",), id="alias-miss-him"),
    pytest.param("GRANDAD died today.", ("Grandad Tom",), id="case-insensitive"),
    pytest.param("Grief comes in waves.\nGrandad's watch on my desk.", ("Grandad Tom",), id="line-break-neighbour"),
    pytest.param("## The funeral\n\nGrandad Tom was there in spirit.", ("Grandad Tom",), id="heading-cue"),
    pytest.param("Sam and I broke up last night. I was crying for hours.", ("Sam",), id="breakup"),
    pytest.param("Heartbroken. My ex moved out.", ("Sam",), id="alias-heartbroken"),
    pytest.param("Mourning grandad; Sam held my hand while I cried.", ("Grandad Tom", "Sam"), id="two-subjects-sorted"),
    # not charged
    pytest.param("Insurance valuation of grandad's pocket watch: 400 GBP.", (), id="neutral-valuation"),
    pytest.param("Grandad Tom's lamb stew recipe: brown the lamb, add stock.", (), id="neutral-recipe"),
    pytest.param("Tomato soup after the funeral of a stranger.", (), id="tomato-is-not-tom"),
    pytest.param(
        "Grandad built a shed. The roof leaked. Then the funeral.", ("Grandad Tom",), id="cue-two-sentences-away"
    ),
    pytest.param(
        "Grandad built a shed. The roof leaked. It rained. Then the funeral.", (), id="cue-three-sentences-away"
    ),
    pytest.param("The funeral home called about a billing error.", (), id="cue-without-subject"),
    pytest.param("Samantha broke up with her boyfriend.", (), id="samantha-is-not-sam"),
    pytest.param("It's a far cry from grandad's cooking.", (), id="far-cry-not-crying"),
    pytest.param("", (), id="empty"),
]


@pytest.mark.parametrize("text, expected", INFERRED)
def test_inferred(text, expected):
    assert charged_subjects(text, SUBJECTS) == expected


DECLARED = [
    pytest.param(["grandad"], ("Grandad Tom",), id="alias-normalised"),
    pytest.param(["  GRANDAD TOM "], ("Grandad Tom",), id="name-case-space-normalised"),
    pytest.param(["Aunt May"], ("Aunt May",), id="unknown-kept-as-written"),
    pytest.param(["Sam", "my ex", "grandad"], ("Grandad Tom", "Sam"), id="deduplicated-sorted"),
    pytest.param(["", "  "], (), id="blank-ignored"),
]


@pytest.mark.parametrize("declared, expected", DECLARED)
def test_declared(declared, expected):
    assert charged_subjects("A neutral note about soup.", SUBJECTS, declared) == expected


def test_declared_and_inferred_merge():
    text = "Sam and I broke up."
    assert charged_subjects(text, SUBJECTS, ["Grandad Tom", "sam"]) == ("Grandad Tom", "Sam")


def test_no_subjects():
    assert charged_subjects("Grandad died.", ()) == ()


def test_evidence_names_cue_and_sentences():
    text = "Grandad loved that garden. He passed away in March."
    ev = charging_evidence(text, SUBJECTS)
    assert list(ev) == ["Grandad Tom"]
    (e,) = ev["Grandad Tom"]
    assert (e.mention, e.cue, e.why) == ("Grandad", "passed away", "death")
    assert e.sentence == "Grandad loved that garden."
    assert e.cue_sentence == "He passed away in March."


def test_evidence_empty_for_neutral():
    assert charging_evidence("Grandad Tom's lamb stew recipe.", SUBJECTS) == {}


SENTENCES = [
    pytest.param("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"], id="punctuation"),
    pytest.param("a\nb\n\nc", ["a", "b", "c"], id="lines"),
    pytest.param('He said "bye." Then left.', ['He said "bye."', "Then left."], id="closing-quote"),
]


@pytest.mark.parametrize("text, expected", SENTENCES)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


@pytest.mark.parametrize("rx, why", CHARGED_CONTEXT_CUES, ids=[c[0] for c in CHARGED_CONTEXT_CUES])
def test_cue_table_is_well_formed(rx, why):
    re.compile(rx)
    assert why
