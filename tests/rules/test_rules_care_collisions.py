"""Care: collisions met in writing the rules were not made on — a colleague by initial or team, someone else's
person ("Aoife's Declan"), a name-word in a compound anywhere ("olive oil"), a kinship word in a compound noun or
among other people (rules/care/collisions.py), a parent's day, and a namesake the work notes
name in full (rules/care/namesakes.py)."""

from __future__ import annotations

import pytest

from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.detector import assess_chunk
from lucasrag_assets.rules.care.mentions import resolve
from lucasrag_assets.rules.care.namesakes import workspace_namesakes

JONAS = DeferenceSubject("Jonas", ("jonas weber",))
DAD = DeferenceSubject("Dad", ("my father", "father"))
MUM = DeferenceSubject("Mum", ("my mother", "mom"))
DECLAN = DeferenceSubject("Declan", ("dec",))
LINDA = DeferenceSubject("Linda")
OLIVE = DeferenceSubject("Olive")

#: (text, subject, refers to it, the collision's evidence when not)
COLLISIONS = [
    ("1:1 with Jonas K. about the migration tickets.", JONAS, False, "another person: Jonas K."),
    ("Jonas W. sent the invoice.", JONAS, True, None),  # W: the initial of the subject's own surname
    ("Standup: Jonas (backend) is blocked on staging.", JONAS, False, "another person: Jonas (backend)"),
    ("Ask Jonas on frontend about the build.", JONAS, False, "another person: Jonas on frontend"),
    ("Told Jonas I. was wrong.", JONAS, True, None),  # "I." is no initial
    ("# Jonas Okafor", JONAS, False, "another person: Jonas Okafor"),  # a heading: a surname that is no word
    ("# Jonas Birthday Plans", JONAS, True, None),  # a heading in title case: an English word is a word
    ("Dad jokes at standup went down badly.", DAD, False, "a common word: Dad jokes"),
    ("Listening to dad rock on the drive.", DAD, False, "a common word: dad rock"),
    ("Bought mom jeans in the sale.", MUM, False, "a common word: mom jeans"),
    ("mum guilt again, missed sports day", MUM, False, "a common word: mum guilt"),
    ("the dad at the party kept talking about crypto", DAD, False, "anyone's relation, not yours: the dad at"),
    ("Chatted to the mum of twins from Ben's class.", MUM, False, "anyone's relation, not yours: the mum of"),
    ("Don't stress about the odd pip.", DeferenceSubject("Pip"), False, "a common word: the odd pip"),
    ("Dad's jokes were the worst.", DAD, True, None),  # his jokes: the person
    ("the dad in the photo is mine", DAD, True, None),
    ("Mother's Day. Kept busy.", DeferenceSubject("Mum", ("mother",)), True, None),  # an occasion of theirs
    # someone else's person: a possessive owner before the name
    ("- Aoife's Declan turned 7!!", DECLAN, False, "another person: Aoife's Declan"),
    ("- Aoife's Declan turned 7!!\n- Declan made a speech", DECLAN, False, "another person: Aoife's Declan"),
    ("fall supper: Ken's wife Linda running the kitchen", LINDA, False, "another person: Ken's wife Linda"),
    ("Mum's Declan is home for Christmas.", DECLAN, True, None),  # your relation's: your brother
    ("Declan's bike is still in the shed.", DECLAN, True, None),
    ("Can't do Friday, sorry. It's Declan's day on Friday.", DECLAN, True, None),  # "It's" owns nothing
    # a name-word in a compound, anywhere, and a list item's first word
    ("- 3 tbsp olive oil, 2 cloves garlic", OLIVE, False, "a common word: olive oil"),
    ("- Buck knife, sharpen.", DeferenceSubject("Darrell", ("buck",)), False, "a common word: Buck knife"),
    ("- Olive at the vet, 2 jabs", OLIVE, True, None),
    ("olive picking at her food again", OLIVE, True, None),  # not a compound of the table
    ("- playlist: 2000s pop punk (Paramore)", DeferenceSubject("Dad", ("pop",)), False, "a common word: pop punk"),
    ("called pop on sunday", DeferenceSubject("Dad", ("pop",)), True, None),
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


DANIEL = DeferenceSubject("Dan", ("daniel",))
OKAFOR = [
    ("technical", "1-1 with Dan Okafor: the migration plan."),
    ("technical", "Dan Okafor reviewed the queue PR."),
    ("technical", "Dan reviewed my PR."),
]
#: (the workspace's notes, subject, workspace → namesake evidence for the subject)
WORKSPACE_NAMESAKES = [
    pytest.param(OKAFOR, DANIEL, {"technical": "Dan Okafor, whom the technical notes name in full"}, id="two-notes"),
    pytest.param(OKAFOR[1:], DANIEL, {}, id="one-note-is-not-enough"),
    pytest.param(
        [("technical", "1:1 with Dan O. about the queue."), *OKAFOR[1:]],
        DANIEL,
        {"technical": "Dan Okafor, whom the technical notes name in full"},
        id="an-initial-and-a-surname-are-one-person",
    ),
    pytest.param([("administrative", t) for _, t in OKAFOR], DANIEL, {}, id="not-in-admin-notes"),
    pytest.param(
        [(ws, t) for _, t in OKAFOR for ws in ("personal", "creative")], DANIEL, {}, id="not-in-personal-notes"
    ),
    pytest.param(
        [*OKAFOR, ("technical", "Daniel Hart had a go at me.")],
        DeferenceSubject("Dan", ("daniel hart",)),
        {},
        id="the-subject-named-there-in-full",
    ),
    pytest.param(
        [*OKAFOR, ("technical", "Dan Smith joined."), ("technical", "Dan Smith left.")], DANIEL, {}, id="two-as-often"
    ),
    pytest.param([("technical", "Mum Smith, form A."), ("technical", "Mum Smith, form B.")], MUM, {}, id="kinship"),
]


@pytest.mark.parametrize("notes, subject, expected", WORKSPACE_NAMESAKES)
def test_a_namesake_the_work_notes_name_in_full(notes, subject, expected):
    found = workspace_namesakes(notes, (subject,))
    assert {ws: by[subject.name][0] for ws, by in found.items()} == expected


def test_a_bare_name_in_a_workspace_with_a_namesake_is_released_unless_read_as_charged():
    namesakes = workspace_namesakes(OKAFOR, (DANIEL,))["technical"]
    (a,) = assess_chunk("Dan reviewed my PR and merged it.", (DANIEL,), namesakes=namesakes)
    assert (a.outcome, a.source) == ("released", "resolution") and "whom the technical notes name in full" in a.why
    (b,) = assess_chunk("Dan rang the day of the funeral. I cried in the stairwell.", (DANIEL,), namesakes=namesakes)
    assert (b.outcome, b.source) == ("withheld", "inferred")


NORA = DeferenceSubject("Nora")
#: (text, refers to Nora by her initial)
INITIALS = [
    ("drove past the place where N and I had our first date", True),
    ("N's mum texted happy birthday", True),
    ("texted N about the keys", True),
    ("me and N at the coast, 2019", True),
    ("Plan N. Go.", False),
    ("N = 50 samples per arm", False),
    ("took the N train", False),
    ("N/A for now", False),
]


@pytest.mark.parametrize("text, refers", INITIALS)
def test_a_subject_written_by_its_initial(text, refers):
    context = resolve(text, NORA)
    assert (context is not None and context.reference.startswith("names it by its initial")) is refers


BABY = DeferenceSubject("the baby", ("june",))


@pytest.mark.parametrize(
    "text, refers",
    [
        ("envoy config push (part of the June infra migration window)", False),
        ("the Summer we lost her", True),
        ("the June she was due", True),
    ],
)
def test_the_month_before_a_noun_is_a_time(text, refers):
    subject = BABY if "June" in text else DeferenceSubject("Summer")
    context = resolve(text, subject)
    assert bool(context and context.mentions) is refers
