"""The care detector with its vector evidence (real MiniLM span vectors, one forward pass per chunk shared
with the index through the embedding cache) and the fallback without it."""

from __future__ import annotations

import numpy as np
import pytest

from lucasrag.embedding import get_embedder
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.detector import assess_chunk, read_as_charged
from lucasrag_assets.rules.care.model import shipped_model
from lucasrag_assets.rules.care.vectors import embedding_model_id, vector_warning

TOM = DeferenceSubject("Grandad Tom", ("grandad", "grandpa tom"))
MAYA = DeferenceSubject("Maya", ("maya r",))
SUBJECTS = (TOM, MAYA)


def embed(text: str, span_sets):
    return get_embedder().embed_spans(text, span_sets)


OUTCOMES = [
    # withheld: written for this test, in no corpus family
    pytest.param("Can't believe grandad is gone.", "Grandad Tom", True, id="name-for-pronoun"),
    pytest.param(
        "Grandad loved the allotment. The shed still has his gloves on the nail. I can't believe he's gone.",
        "Grandad Tom",
        True,
        id="pronoun-later-sentence",
        # care-lr-6 scores it 0.768 against its 0.771 cut: the weights picked leaving a batch of writers out
        # lean less on the lexical evidence ("can't believe he's gone"), which care-lr-5 withheld it by
        marks=pytest.mark.xfail(strict=True, reason="care-lr-6 misses it by 0.003 (0.768 against the 0.771 cut)"),
    ),
    pytest.param(
        "Kept grandad's flat cap on the peg by the door. Haven't moved it since March.",
        "Grandad Tom",
        True,
        id="kept-object-understatement",
    ),
    pytest.param(
        "maya\n\nyour toothbrush\nstill in the glass\nI brush my teeth downstairs",
        "Maya",
        True,
        id="poem-lowercase",
    ),
    # neutral
    pytest.param(
        "Grandad Tom's lamb stew\n\n- 1 kg lamb shoulder\n- 2 onions\n\nBrown the lamb, 3 hours.",
        "Grandad Tom",
        False,
        id="recipe",
    ),
    pytest.param(
        "Invoice 118 to Maya for the logo work: £240, paid by bank transfer on the 4th.",
        "Maya",
        False,
        id="paperwork",
    ),
    # a living person present in the writer's life (care-lr-6's neutral prototypes of plans and shared time)
    pytest.param(
        "Having dinner with grandad tonight, he told me all about his new allotment plot. We are meeting again on "
        "Saturday.",
        "Grandad Tom",
        False,
        id="living-person-plans-together",
    ),
    pytest.param(
        "Maya rang this morning and we laughed about the kids; meeting up for coffee on Saturday.",
        "Maya",
        False,
        id="living-person-a-call-this-morning",
    ),
    pytest.param(
        "Pairing with Maya Chen from the platform team. Maya found the race condition in ten minutes.",
        None,
        False,
        id="same-name-colleague",
    ),
]


#: A lower-case name that looks like the everyday word is still read: grief stays withheld (the look-alike net).
LOOK_ALIKES = [
    pytest.param(
        "Found rose old cardigan in the wardrobe and sat on the floor crying.", DeferenceSubject("Rose"), id="cry"
    ),
    pytest.param("Dad's bill from the hospice arrived. I couldn't open it.", DeferenceSubject("Bill"), id="hospice"),
    pytest.param("Cleared out the shed, found dawn old scarf.", DeferenceSubject("Dawn"), id="kept-object"),
]


@pytest.mark.parametrize("text, subject", LOOK_ALIKES)
def test_a_lower_case_name_word_read_as_grief_stays_withheld(text, subject):
    (a,) = assess_chunk(text, (subject,), embed=embed)
    assert (a.outcome, a.source) == ("withheld", "inferred") and a.why.startswith("seems not the subject (a common")


@pytest.mark.parametrize("text, subject, withheld", OUTCOMES)
def test_outcomes_with_vector_evidence(text, subject, withheld):
    care = assess_chunk(text, SUBJECTS, embed=embed)
    held = read_as_charged(care)
    assert (subject in held) is withheld if subject else held == ()
    for a in (
        a for a in care if a.source == "inferred"
    ):  # every inferred pair explains itself, the vector evidence included
        assert a.mention and a.lexical_score is not None and a.vector_score is not None and a.nearest
        assert a.vector_view == "span"
        assert a.score is not None and 0.0 <= a.score <= 1.0
        if a.withheld:  # both scores the release needs, as the person reads them
            assert f"(score {a.score:.2f}, lexical {a.lexical_score:.2f})" in a.why


def test_vector_evidence_finds_a_poem_the_lexical_evidence_misses():
    text = "the shed door, grandad\nswollen shut with rain\nI leave it"
    (with_vectors,) = assess_chunk(text, SUBJECTS, embed=embed)
    (lexical,) = assess_chunk(text, SUBJECTS)
    assert lexical.inferred == "neutral" and lexical.vector_score is None and lexical.score == lexical.lexical_score
    assert with_vectors.inferred != "neutral" and with_vectors.lexical_score == lexical.lexical_score
    assert lexical.withheld and with_vectors.withheld  # neither is confidently neutral: both withheld
    assert "vector similarity" in with_vectors.nearest


def test_weights_name_the_embedding_model_and_another_model_falls_back_with_a_warning():
    vector = shipped_model().vector
    assert vector is not None and vector.embedding_model == embedding_model_id(get_embedder())
    assert vector_warning(vector, vector.embedding_model) is None
    warning = vector_warning(vector, "bge-small-en-v1.5")
    assert "bge-small-en-v1.5" in warning and vector.embedding_model in warning and "lexical" in warning


def test_a_vector_of_another_dimension_is_not_used():
    seven = np.ones(7) / 7**0.5
    (a,) = assess_chunk(
        "Can't believe grandad is gone.", SUBJECTS, embed=lambda t, sets: (seven, [seven for _ in sets])
    )
    assert a.vector_score is None and a.withheld  # the lexical evidence still decides


def test_the_detectors_forward_pass_is_the_index_embedding_of_the_chunk(tmp_path):
    """No extra embedding call: the pass that gives the span vectors stores the chunk's passage vector,
    which is what the index embeds next (a cache hit); a re-ingest runs the model on nothing."""
    text = "Grandad loved the allotment. The shed still has his gloves on the nail. I can't believe he's gone."
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    stats = get_embedder(cache.model).stats
    before = stats.texts
    care = assess_chunk(text, SUBJECTS, embed=cache.embed_spans)
    (indexed,) = cache.embed([text])  # the index step
    assert stats.texts - before == 1 and cache.misses == 1 and cache.hits == 1
    assert assess_chunk(text, SUBJECTS, embed=cache.embed_spans) == care  # re-ingest: from the cache
    assert stats.texts - before == 1
    # The stored vector is the model's own embedding of the text (checked last: it runs the model once more).
    assert float(indexed @ get_embedder().embed([text])[0]) > 0.9999
    cache.close()


def test_sentences_past_the_models_window_fall_back_to_the_chunk_vector_and_say_so():
    filler = " ".join(f"The {w} meeting moved to room {i}." for i, w in enumerate(["budget", "design"] * 40))
    text = filler + "\n\nCan't believe grandad is gone. I still set his place."
    pooled, (span,) = get_embedder().embed_spans(text, [[(len(filler) + 2, len(text))]])
    assert span is None and pooled.shape == (384,)
    (a,) = assess_chunk(text, SUBJECTS, embed=embed)
    assert a.vector_view == "chunk" and a.vector_score is not None


def test_a_text_routing_embedded_already_is_not_run_again_and_the_chunk_vector_stands_in(tmp_path):
    text = "Kept grandad's flat cap on the peg by the door. Haven't moved it since March."
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    cache.embed([text])  # routing: a short note whose one chunk is its routing text
    stats = get_embedder(cache.model).stats
    before = stats.texts
    (a,) = assess_chunk(text, SUBJECTS, embed=cache.embed_spans)
    assert stats.texts == before and a.vector_view == "chunk" and a.vector_score is not None
    cache.close()


def test_a_words_look_alike_needs_a_clearer_neutral_reading_than_a_namesake():
    """Below the neutral reading (0.775) but not below the word cut (0.6): a word's look-alike stays withheld."""
    (a,) = assess_chunk("No hope of a refund from the airline.", (DeferenceSubject("Hope"),), embed=embed)
    assert a.inferred == "neutral" and a.score >= 0.6 and (a.outcome, a.source) == ("withheld", "inferred")
    assert a.why.endswith("and a word's or a time's look-alike is released only below 0.6")
    (b,) = assess_chunk("Paid the gas bill online, reference 4471.", (DeferenceSubject("Bill"),), embed=embed)
    assert (b.outcome, b.source) == ("released", "resolution") and b.score < 0.6
