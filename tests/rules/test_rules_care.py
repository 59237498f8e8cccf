"""The care detector: mention resolution, outcomes with evidence, decisions (rules/care)."""

from __future__ import annotations

import pytest

from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.decisions import with_charged
from lucasrag_assets.rules.care.detector import assess_chunk, vault_examples, withheld_subjects
from lucasrag_assets.rules.care.mentions import resolve

TOM = DeferenceSubject("Grandad Tom", ("grandad", "grandpa tom"))
MAYA = DeferenceSubject("Maya", ("maya r",))
SUBJECTS = (TOM, MAYA)

MENTIONS = [
    pytest.param("Grandad's chair is empty.", TOM, ("Grandad's",), id="possessive"),
    pytest.param("grandad\u2019s watch.", TOM, ("grandad\u2019s",), id="typographic-possessive-lowercase"),
    pytest.param("## Grandad\n\nThe hospital rang at six.", TOM, ("Grandad",), id="heading"),
    pytest.param(
        "Maya rang. We talked about the flat. Later she cried.", MAYA, ("Maya", "she"), id="pronoun-later-sentence"
    ),
    pytest.param("Pairing with Maya Chen today. Maya found the bug.", MAYA, (), id="namesake-full-name"),
    pytest.param("Tomato soup with Tom.", TOM, None, id="no-mention"),
    pytest.param("Mayan ruins.", MAYA, None, id="name-inside-a-word"),
    pytest.param("Wrote 'happy birthday Maya' and didn't send it.", MAYA, ("Maya",), id="name-in-quotes"),
    pytest.param("Maya'll be there.", MAYA, None, id="contraction-is-not-a-mention"),
]


@pytest.mark.parametrize("text, subject, mentions", MENTIONS)
def test_mentions(text, subject, mentions):
    context = resolve(text, subject)
    assert (None if context is None else context.mentions) == mentions


def test_pronoun_sentences_are_about_the_subject():
    text = "Grandad loved the garden. The shed leaked. The fence fell. Now I can't believe he's gone."
    context = resolve(text, TOM)
    assert "Now I can't believe he's gone." in context.sentences
    assert context.sentences[0] == "Grandad loved the garden."


def test_heading_section_is_about_the_subject():
    text = "## Grandad\n\nThe ward was quiet.\nThe nurse brought tea.\nWe waited.\n\n## Work\n\nDeploy on Friday."
    context = resolve(text, TOM)
    assert "We waited." in context.sentences and "Deploy on Friday." not in context.sentences


LONG = " ".join(f"Line {i} of the minutes about the budget and the rota." for i in range(6))


@pytest.mark.parametrize(
    "text, about, not_about",
    [
        pytest.param(
            LONG + "\n\nfor grandad\n\nthe gate still sticks\nthe way you said\nyou would fix it\nI leave it",
            "I leave it",
            "Line 0 of the minutes about the budget and the rota.",
            id="title-line-of-a-poem",
        ),
        pytest.param(
            "Maya rang. I let it ring. Then I sat on the stairs. The kettle went cold. I went to bed.",
            "I went to bed.",
            None,
            id="short-chunk-by-words",
        ),
    ],
)
def test_title_lines_and_short_chunks_are_about_the_subject(text, about, not_about):
    context = resolve(text, TOM if "grandad" in text else MAYA)
    assert about in context.sentences and (not_about is None or not_about not in context.sentences)
    for sentence, (start, end) in zip(context.sentences, context.spans):  # offsets point into the chunk
        assert text[start:end] == sentence


OUTCOMES = [
    # withheld (charged or uncertain)
    pytest.param("Can't believe grandad is gone. Still.", "Grandad Tom", True, id="name-for-pronoun"),
    pytest.param("Maya and I broke up tonight. I sat on the floor crying.", "Maya", True, id="breakup"),
    pytest.param(
        "Saw on Instagram that Maya got engaged. I don't know why I still look. "
        "Three years since the breakup and it still hurts.",
        "Maya",
        True,
        id="cue-two-sentences-on",
    ),
    pytest.param(
        "I still miss grandad. It's been thirteen years and the grief came back.", "Grandad Tom", True, id="grief"
    ),
    # neutral
    pytest.param(
        "Grandad Tom's lamb stew\n\n- 1 kg lamb shoulder\n- 2 onions\n\nBrown the lamb, 3 hours.",
        "Grandad Tom",
        False,
        id="recipe",
    ),
    pytest.param(
        "| grandad's pocket watch (silver, 1950s) | \u20ac900 |\n| bike | \u20ac700 |",
        "Grandad Tom",
        False,
        id="valuation",
    ),
    pytest.param(
        "Went fishing with grandad at the pond. He brought his flask of sweet tea and made a huge fuss "
        "when I caught two roach, like I'd won something.",
        "Grandad Tom",
        False,
        id="happy-memory",
    ),
    pytest.param(
        "Pairing with Maya Chen from the platform team. Maya found the race condition in ten minutes.",
        None,
        False,
        id="same-name-colleague",
    ),
]


@pytest.mark.parametrize("text, subject, withheld", OUTCOMES)
def test_outcomes(text, subject, withheld):
    care = assess_chunk(text, SUBJECTS)
    held = withheld_subjects(care)
    assert (subject in held) is withheld if subject else held == ()
    for a in care:  # every inferred pair explains itself
        assert a.source == "inferred" and a.mention and a.score is not None and a.nearest
        assert a.outcome in ("charged", "uncertain", "neutral") and 0.0 <= a.confidence <= 1.0


def test_declared_wins_and_dismissed_wins():
    text = "Maya and I broke up tonight. I cried for hours."
    (declared,) = assess_chunk("A note about soup.", SUBJECTS, declared=["maya r"])
    assert (declared.subject, declared.outcome, declared.source) == ("Maya", "charged", "declared")
    (dismissed,) = assess_chunk(text, SUBJECTS, dismissed={"Maya"})
    assert (dismissed.outcome, dismissed.source) == ("neutral", "dismissed")


def test_vault_examples_lift_a_resembling_chunk():
    marked = "Bad night. Maya's mug is still on the hook and I keep looking at it."
    examples = vault_examples([("journal/a.md", marked, ["Maya"])], SUBJECTS)
    assert [e.name for e in examples["Maya"]] == ["journal/a.md"]
    (a,) = assess_chunk(marked, SUBJECTS, vault_examples=examples)
    assert a.withheld and "journal/a.md" in a.nearest


FRONTMATTER = [
    pytest.param(b"body\n", [b"charged: [Maya]\n"], b"body\n", id="no-frontmatter"),
    pytest.param(b"---\ntitle: x\n---\nbody\n", [b"title: x\n", b"charged: [Maya]\n"], b"body\n", id="appended"),
    pytest.param(
        b"---\ncharged:\n  - Grandad Tom\nmood: low\n---\nbody \r\n",
        [b"charged: [Maya]\n", b"mood: low\n"],
        b"body \r\n",
        id="block-list-replaced",
    ),
]


@pytest.mark.parametrize("raw, header_lines, body", FRONTMATTER)
def test_with_charged_keeps_body_bytes(raw, header_lines, body):
    new = with_charged(raw, ["Maya"])
    assert new.endswith(b"---\n" + body) and all(line in new for line in header_lines)
