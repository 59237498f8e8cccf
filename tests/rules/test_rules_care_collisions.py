"""Care: collisions met in writing the rules were not made on — a colleague by initial or team, a kinship word in
a compound noun or among other people (rules/care/collisions.py)."""

from __future__ import annotations

import pytest

from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.mentions import resolve

JONAS = DeferenceSubject("Jonas", ("jonas weber",))
DAD = DeferenceSubject("Dad", ("my father", "father"))
MUM = DeferenceSubject("Mum", ("my mother", "mom"))

#: (text, subject, refers to it, the collision's evidence when not)
COLLISIONS = [
    ("1:1 with Jonas K. about the migration tickets.", JONAS, False, "another person: Jonas K."),
    ("Jonas W. sent the invoice.", JONAS, True, None),  # W: the initial of the subject's own surname
    ("Standup: Jonas (backend) is blocked on staging.", JONAS, False, "another person: Jonas (backend)"),
    ("Ask Jonas on frontend about the build.", JONAS, False, "another person: Jonas on frontend"),
    ("Told Jonas I. was wrong.", JONAS, True, None),  # "I." is no initial
    ("Dad jokes at standup went down badly.", DAD, False, "a common word: Dad jokes"),
    ("Listening to dad rock on the drive.", DAD, False, "a common word: dad rock"),
    ("Bought mom jeans in the sale.", MUM, False, "a common word: mom jeans"),
    ("mum guilt again, missed sports day", MUM, False, "a common word: mum guilt"),
    ("the dad at the party kept talking about crypto", DAD, False, "anyone's relation, not yours: the dad at"),
    ("Chatted to the mum of twins from Ben's class.", MUM, False, "anyone's relation, not yours: the mum of"),
    ("Dad's jokes were the worst.", DAD, True, None),  # his jokes: the person
    ("the dad in the photo is mine", DAD, True, None),
    ("Mother's Day. Kept busy.", DeferenceSubject("Mum", ("mother",)), True, None),  # an occasion of theirs
]


@pytest.mark.parametrize("text, subject, refers, why", COLLISIONS)
def test_collisions(text, subject, refers, why):
    context = resolve(text, subject)
    assert context is not None
    assert bool(context.mentions) is refers
    if why:
        assert any(why in c for c in context.collisions)


#: (text, subject, the mention found, or None when the text does not refer to the subject)
PARENTS_DAYS = [
    ("Father's Day. Kept busy in the garden.", DAD, "Father's Day"),
    ("fathers day card for Tom", DAD, "fathers day"),
    ("Mothering Sunday. Didn't go out.", MUM, "Mothering Sunday"),
    ("Mother’s Day lunch booked.", MUM, "Mother’s Day"),
    ("Father's Day. Kept busy.", MUM, None),  # another parent's day
    ("Father's Day. Kept busy.", DeferenceSubject("Grandad Tom", ("grandad",)), None),
]


@pytest.mark.parametrize("text, subject, mention", PARENTS_DAYS)
def test_a_parents_day_refers_to_the_parent(text, subject, mention):
    context = resolve(text, subject)
    if mention is None:
        assert context is None
    else:
        assert context.mentions == (mention,) and context.reference == f"names a day that is theirs: {mention!r}"
