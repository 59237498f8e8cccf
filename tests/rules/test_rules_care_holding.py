"""Care: words that speak of a subject as gone, missed or counterfactual hold a passage whatever the scores
(rules/care/holding.py)."""

from __future__ import annotations

from datetime import date

import pytest

from lucasrag.embedding import get_embedder
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.detector import assess_chunk
from lucasrag_assets.rules.care.holding import holding_cue
from lucasrag_assets.rules.care.unnamed import anniversary_references

S = "<subject>"

#: (masked context, the cue's kind or None)
CUES = [
    (f"{S} would've loved this garden.", "what they would have done"),
    (f"{S} would have laughed at the new kitchen", "what they would have done"),
    ("She would of said so. Ate it anyway.", "what they would have done"),
    (f"{S} wouldn't have wanted a fuss.", "what they would have done"),
    (f"Today would have been {S}'s birthday.", "a day that would have been theirs"),
    (f"{S} would be 30 today.", "an age they did not reach"),
    (f"Would've been {S}'s 70th.", "a day that would have been theirs"),
    ("I wish I had rung you that Sunday.", "a wish"),
    (f"Wish {S} could see the baby.", "a wish"),
    (f"{S} should be here.", "their absence"),
    (f"First Christmas without {S}.", "a time without them"),
    (f"12 years without {S}.", "a time without them"),
    ("Not the same without her.", "a time without them"),
    ("7 years today. Lit a candle.", "a date coming round"),
    (f"2 years since we lost {S}.", "a date coming round"),
    (f"{S}'s anniversary. Work as usual.", "a date coming round"),
    ("so the anniversary is Thursday", "a date coming round"),
    (f"Missed {S} at the match today.", "missing them"),
    (f"Still have {S}'s number in my phone.", "something of theirs kept"),
    ("Can't bring myself to sell it.", "something of theirs kept"),
    (f"Dreamt about {S} again.", "a dream"),
    # not cues: the same words in practical writing
    ("They would have the forms by Friday.", None),
    ("The solicitor would have to sign it first.", None),
    (f"{S}'s 40th anniversary party, the hall is booked.", None),
    (f"Paid {S}'s council tax, £142.", None),
    (f"{S} sent the drill back.", None),
]


@pytest.mark.parametrize("masked, kind", CUES)
def test_holding_cues(masked, kind):
    cue = holding_cue(masked)
    assert (cue is None) if kind is None else (cue is not None and cue.endswith(f"({kind})"))


MUM = DeferenceSubject("Mum", ("my mother", "mom"))
PEARL = DeferenceSubject("Nana Pearl", ("nana", "pearl"))


def embed(text: str, span_sets):
    return get_embedder().embed_spans(text, span_sets)


#: Short, understated lines written for this test: the detector's scores alone would release them.
@pytest.mark.parametrize(
    "text, subject",
    [
        ("Mum would have loved this.", MUM),
        ("Pearl would've loved this garden.", PEARL),
        ("mum would have laughed at the new kitchen", MUM),
    ],
)
def test_a_line_that_speaks_of_the_subject_as_gone_is_withheld_whatever_the_scores(text, subject):
    (a,) = assess_chunk(text, (subject,), embed=embed)
    assert a.score is not None and a.score < 0.295 and a.lexical_score < 0.055  # the release cut's side
    assert (a.outcome, a.source) == ("withheld", "inferred")
    assert "speaks of them as gone or missed: '" in a.why and "would" in a.why


def test_a_practical_mention_with_no_cue_is_still_released():
    (a,) = assess_chunk(
        "Mum's scone recipe: 225g self-raising flour, 55g butter, 150ml milk. Bake 12 min at 220C.", (MUM,), embed=embed
    )
    assert (a.outcome, a.source) == ("released", "inferred")


def test_a_decision_still_releases_a_held_line():
    (a,) = assess_chunk("Mum would have loved this.", (MUM,), dismissed=("Mum",), embed=embed)
    assert (a.outcome, a.source) == ("released", "dismissed")


DAD = DeferenceSubject("Dad", ("my dad",), since=date(2024, 11, 14))
#: (chunk text, note date, refers to Dad by its date)
ANNIVERSARIES = [
    ("left standup early, it's the anniversary. OOO after lunch", date(2025, 11, 14), True),
    ("a year today. quiet day, long walk.", date(2025, 11, 15), True),  # the day after
    ("left standup early, it's the anniversary", date(2025, 11, 20), False),  # another day
    ("groceries: milk, eggs, coffee", date(2025, 11, 14), False),  # the day, but nothing of a date coming round
    ("it's the anniversary", date(2024, 11, 14), False),  # the day itself, not an anniversary
    ("it's the anniversary", None, False),  # undated
]


@pytest.mark.parametrize("text, note_date, refers", ANNIVERSARIES)
def test_a_chunk_written_on_the_anniversary_refers_to_the_subject(text, note_date, refers):
    # by its date alone; "the anniversary" on another day is still words of a loss (test_rules_care_unnamed.py)
    refs = anniversary_references(text, (DAD,), note_date)
    assert bool(refs) is refers
    if refers:
        (a,) = assess_chunk(text, (DAD,), note_date=note_date)
        assert a.withheld and a.reference.startswith("written on the anniversary of 2024-11-14")


def test_a_chunk_about_one_subject_is_not_given_another_by_its_date():
    tom = DeferenceSubject("Grandad Tom", ("grandad",))
    care = assess_chunk(
        "He would have hated the new fence.",
        (tom, DAD),
        note_refs={"Grandad Tom": "an earlier chunk names him"},
        note_date=date(2025, 11, 14),
    )
    assert [a.subject for a in care] == ["Grandad Tom"]
