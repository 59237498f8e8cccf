"""Care evidence in lists, bullets and message threads (``care-lr-5``): the focus lines of a pair (only the
lines naming the subject or referring back), the register rewrites training fits on, and the detector's
outcomes on a grief line among neutral ones. Texts written for this test, in no corpus family."""

from __future__ import annotations

import random

import pytest

from lucasrag.embedding import get_embedder
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.detector import assess_chunk, read_as_charged
from lucasrag_assets.rules.care.mentions import resolve
from lucasrag_assets.rules.care.model import shipped_model
from lucasrag_assets.rules.care.vectors import raise_by_focus
from lucasrag_harness.care_training.augment import CHORES, KINDS, rewrite

TOM = DeferenceSubject("Grandad Tom", ("grandad", "grandpa tom"))
MUM = DeferenceSubject("Mum", ("my mother", "mam"))
SUBJECTS = (TOM, MUM)


def embed(text: str, span_sets):
    return get_embedder().embed_spans(text, span_sets)


@pytest.mark.parametrize(
    "text, subject, focus",
    [
        pytest.param(
            "- coffee filters\n- stamps\n- grandad's tobacco tin, still on the shelf\n- kitchen foil",
            TOM,
            ("- grandad's tobacco tin, still on the shelf",),
            id="shopping-list-item",
        ),
        pytest.param(
            "Mon\n* swim\n* Mum's birthday tomorrow, first one without her\n* tax return",
            MUM,
            ("* Mum's birthday tomorrow, first one without her",),
            id="bullet",
        ),
        pytest.param(
            "[08:12] Ali: train's delayed\n[08:13] me: saw mum's handwriting on a jar today\n[08:14] Ali: oh love",
            MUM,
            ("[08:13] me: saw mum's handwriting on a jar today",),
            id="message-line",
        ),
        pytest.param(
            "Grandad fixed the fence in May. He used the old green paint. The shed needs doing too.",
            TOM,
            ("Grandad fixed the fence in May.", "He used the old green paint."),
            id="prose-name-and-pronoun",
        ),
    ],
)
def test_the_focus_is_the_lines_naming_the_subject(text, subject, focus):
    context = resolve(text, subject)
    assert context.focus_sentences == focus
    assert tuple(text[a:b] for a, b in context.focus_spans) == focus
    assert set(context.focus_sentences) <= set(context.sentences)  # the context holds its focus


@pytest.mark.parametrize(
    "z_context, z_focus, weight, expected",
    [(-2.0, 1.0, 1.0, 1.0), (-2.0, 1.0, 0.5, -0.5), (-2.0, 1.0, 0.0, -2.0), (1.0, -3.0, 1.0, 1.0)],
)
def test_the_focus_only_ever_raises_a_score(z_context, z_focus, weight, expected):
    assert raise_by_focus(z_context, z_focus, weight) == pytest.approx(expected)


@pytest.mark.parametrize("kind", KINDS)
def test_a_rewrite_keeps_the_sentences_and_the_mention(kind):
    text = "Cleared grandad's shed today. Found his flask. Sat in there a while."
    out = rewrite(text, kind, random.Random(3), ["Cleared grandad's shed today.", "Found his flask."])
    assert "grandad" in out.lower() and "flask" in out.lower()
    assert resolve(out, TOM) is not None
    if kind == "among_chores":
        assert sum(line.removeprefix("- ") in CHORES for line in out.splitlines()) >= 3
    assert out == rewrite(text, kind, random.Random(3), ["Cleared grandad's shed today.", "Found his flask."])


def test_an_unknown_rewrite_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="among_chores"):
        rewrite("text", "shouting", random.Random(0))


def test_shipped_weights_use_the_focus():
    model = shipped_model()
    assert model.version == "care-lr-6" and model.vector is not None and model.vector.focus_weight > 0


OUTCOMES = [
    pytest.param(
        "- coffee filters\n- stamps\n- grandad's tobacco tin, still on the shelf, can't bin it\n- kitchen foil",
        "Grandad Tom",
        True,
        id="grief-line-in-a-shopping-list",
    ),
    pytest.param(
        "Mon\n* swim\n* Mum's birthday tomorrow, first one without her\n* tax return",
        "Mum",
        True,
        id="grief-bullet",
        # a known miss of care-lr-5 and care-lr-6 (care-lr-5: 0.39 against its 0.76 cut): "first one without her" carries the
        # loss in four everyday words; strict, so the day it is caught the mark must go
        marks=pytest.mark.xfail(strict=True, reason="care-lr-5 and care-lr-6 miss a loss told in four everyday words"),
    ),
    pytest.param(
        "[08:12] Ali: train's delayed\n[08:13] me: found mum's handwriting on a jar today. had to sit down\n"
        "[08:14] Ali: oh love",
        "Mum",
        True,
        id="grief-message-line",
    ),
    pytest.param(
        "- coffee filters\n- stamps\n- ring grandad about Sunday lunch\n- kitchen foil",
        "Grandad Tom",
        False,
        id="neutral-list-item",
    ),
    pytest.param(
        "Mon\n* swim\n* drop the spare key at Mum's\n* tax return",
        "Mum",
        False,
        id="neutral-bullet",
    ),
    pytest.param(
        "[08:12] Ali: train's delayed\n[08:13] me: mum says she'll bring the trifle\n[08:14] Ali: yes!!",
        "Mum",
        False,
        id="neutral-message-line",
    ),
]


@pytest.mark.parametrize("text, subject, withheld", OUTCOMES)
def test_outcomes_of_a_line_among_neutral_ones(text, subject, withheld):
    found = assess_chunk(text, SUBJECTS, embed=embed)
    assert (subject in read_as_charged(found)) is withheld, [a.to_dict() for a in found]
