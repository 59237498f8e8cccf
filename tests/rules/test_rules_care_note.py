"""Care at the level of a note: a note is one moment (a chunk read as charged withholds the note's other chunks
for that subject), and a meeting note's head reaches past its title heading (rules/care/moments, mentions)."""

from __future__ import annotations

import pytest

from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.detector import CareAssessment
from lucasrag_assets.rules.care.mentions import WHOLE_CHUNK_MENTION, note_namesakes
from lucasrag_assets.rules.care.moments import one_moment


def pair(subject, outcome, source, inferred=None, mention="Rob"):
    return CareAssessment(subject, outcome, source, "w", mention=mention, inferred=inferred)


CHARGED = pair("Rob", "withheld", "inferred", "charged")
#: (each chunk's assessments, each chunk's (outcome, source) for Rob afterwards; None: no pair)
MOMENTS = [
    pytest.param(
        [[], [CHARGED], []],
        [("withheld", "inferred"), ("withheld", "inferred"), ("withheld", "inferred")],
        id="every-chunk-of-a-charged-note",
    ),
    pytest.param(
        [[pair("Rob", "released", "inferred", "neutral")], [CHARGED]],
        [("withheld", "inferred"), ("withheld", "inferred")],
        id="over-the-detectors-release",
    ),
    pytest.param(
        [[pair("Rob", "released", "policy", "neutral")], [CHARGED]],
        [("withheld", "inferred"), ("withheld", "inferred")],
        id="over-a-since-release",
    ),
    pytest.param(
        [[pair("Rob", "released", "resolution", mention=None)], [CHARGED]],
        [("released", "resolution"), ("withheld", "inferred")],
        id="not-over-another-person",
    ),
    pytest.param(
        [[pair("Rob", "released", "dismissed")], [CHARGED]],
        [("released", "dismissed"), ("withheld", "inferred")],
        id="not-over-a-decision",
    ),
    pytest.param(
        [[], [pair("Rob", "withheld", "inferred", "neutral")]],
        [None, ("withheld", "inferred")],
        id="a-pending-neutral-reading-does-not-spread",
    ),
    pytest.param(
        [[], [pair("Rob", "withheld", "inferred", "charged", mention=None)]],
        [None, ("withheld", "inferred")],
        id="a-look-alike-read-as-charged-does-not-spread",
    ),
]


@pytest.mark.parametrize("chunks, after", MOMENTS)
def test_a_note_is_one_moment(chunks, after):
    got = [{a.subject: a for a in care}.get("Rob") for care in one_moment(chunks)]
    assert [None if a is None else (a.outcome, a.source) for a in got] == after
    added = [a for a, before in zip(got, chunks) if a is not None and not before]
    assert all(a.mention == WHOLE_CHUNK_MENTION and "chunk 2 of the note reads as charged" in a.why for a in added)


def test_a_meeting_notes_attendees_after_its_title_heading_are_its_head():
    rob = DeferenceSubject("Rob", ("robert",))
    first = "# q3-finance\n\n# Q3 finance check-in\n\nRob M., Priya, me\n\n- Rob confirmed the carry-forward."
    assert note_namesakes(("q3-finance",), first, (rob,)) == {"Rob": ("Rob M., named at the note's head",)}
