"""Care evidence for flat writing (``care-lr-4``): the flat-writing lexical features, the situation
prototypes shipped as vectors (real MiniLM vectors; no embedding call beyond the chunk's one pass), and
the detector's outcomes on flat writing, a neutral mention and a same-name colleague. Texts written for
this test, in no corpus family."""

from __future__ import annotations

import numpy as np
import pytest

from lucasrag.embedding import get_embedder
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.detector import assess_chunk, read_as_charged
from lucasrag_assets.rules.care.features import DENSE, FLAT_WORDS, HASH_DIM, featurise
from lucasrag_assets.rules.care.model import shipped_model
from lucasrag_assets.rules.care.prototypes import CHARGED_PROTOTYPES, MARGIN, NEUTRAL_PROTOTYPES, prototype_features

TOM = DeferenceSubject("Grandad Tom", ("grandad", "grandpa tom"))
MAYA = DeferenceSubject("Maya", ("maya r",))
SUBJECTS = (TOM, MAYA)


def embed(text: str, span_sets):
    return get_embedder().embed_spans(text, span_sets)


def flat(text: str) -> dict[str, float]:
    vec = featurise(text, rule_cue=False)
    return {c: float(vec[HASH_DIM + DENSE.index(f"flat_{c}")]) for c in FLAT_WORDS}


@pytest.mark.parametrize(
    "text, categories",
    [
        pytest.param("Haven't been down <subject>'s road since. Took the long way round.", {"avoidance"}, id="avoid"),
        pytest.param("Her cardigan is still in the wardrobe.", {"keeping"}, id="kept-thing"),
        pytest.param("The anniversary is in November.", {"dates"}, id="anniversary"),
        pytest.param("Typed a text to <subject>, deleted it. Unsent.", {"contact"}, id="unanswered"),
        pytest.param("Bought flour, eggs and two lemons for the cake.", set(), id="neutral-shopping"),
    ],
)
def test_flat_writing_features(text, categories):
    found = {c for c, v in flat(text).items() if v > 0}
    assert categories <= found and (categories or not found)


def test_a_stem_counts_in_every_flat_category_it_is_in():
    assert flat("still")["keeping"] > 0  # "still" is also persistence, an affect category: both count


def test_shipped_prototypes_are_the_module_texts_embedded_by_the_vector_model():
    vector = shipped_model().vector
    protos = vector.prototypes
    assert protos is not None and protos.charged_names == CHARGED_PROTOTYPES
    assert protos.charged.shape == (len(CHARGED_PROTOTYPES), vector.dim)
    assert protos.neutral.shape == (len(NEUTRAL_PROTOTYPES), vector.dim)
    fresh = get_embedder().embed([CHARGED_PROTOTYPES[0]])[0]
    assert float(fresh @ protos.charged[0]) > 0.99  # float16 in the weights file


@pytest.mark.parametrize(
    "text, charged_nearer",
    [
        pytest.param("Still can't bring myself to clear out his shed. His boots are by the door.", True, id="kept"),
        pytest.param("A year today since the funeral. Nobody at work knows.", True, id="anniversary"),
        pytest.param("Split the gas bill three ways: £41.20 each, due Friday.", False, id="bill"),
    ],
)
def test_prototype_margin_places_situations_not_words(text, charged_nearer):
    protos = shipped_model().vector.prototypes
    (vec,) = get_embedder().embed([text])
    margin = float(prototype_features(vec, protos.charged, protos.neutral) @ MARGIN)
    assert (margin > protos.mean) is charged_nearer


OUTCOMES = [
    # withheld
    pytest.param(
        "Can't believe grandad is gone. The garden looks the same.", "Grandad Tom", True, id="name-for-pronoun"
    ),
    pytest.param(
        "Walked the long way to the station so I wouldn't pass grandad's old flat. Third time this week.",
        "Grandad Tom",
        True,
        id="avoidance-of-a-place",
    ),
    pytest.param(
        "Maya's number is still in my phone. I haven't rung it in two years and I haven't deleted it.",
        "Maya",
        True,
        id="kept-number-unanswered",
    ),
    # neutral
    pytest.param(
        "Grandad Tom's allotment shed needs a new padlock: ordered one, £12, arrives Tuesday.",
        "Grandad Tom",
        False,
        id="neutral-mention",
    ),
    pytest.param(
        "1:1 with Maya Chen: she will take over the billing migration; Maya wants the design doc by Friday.",
        None,
        False,
        id="same-name-colleague",
    ),
]


@pytest.mark.parametrize("text, subject, withheld", OUTCOMES)
def test_outcomes_on_flat_writing(text, subject, withheld):
    care = assess_chunk(text, SUBJECTS, embed=embed)
    held = read_as_charged(care)
    assert (subject in held) is withheld if subject else held == ()
    for a in (a for a in care if a.source == "inferred"):  # the prototype it lies nearest is part of the evidence
        assert (
            a.prototype
            and "(similarity " in a.prototype
            and a.prototype.split(" (similarity")[0] in set(CHARGED_PROTOTYPES)
        )


def test_without_vectors_no_prototype_evidence_is_claimed():
    (a,) = assess_chunk("Can't believe grandad is gone.", SUBJECTS)
    assert a.prototype is None and a.vector_score is None


def test_the_combined_score_weighs_the_prototype_margin():
    vector = shipped_model().vector
    span = chunk = get_embedder().embed(["A year today since the funeral."])[0]
    with_protos = vector.probability(0.5, span, chunk)
    without = 1 / (1 + np.exp(-(vector.span_weight * (float(span @ vector.weights) + vector.bias))))
    assert with_protos != pytest.approx(without)
