"""Care: a chunk that names no subject and still refers to one — by the words of a loss, withheld for the subject
the vault names nearest in time (rules/care/unnamed.py)."""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl
import pytest

from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.detector import assess_chunk
from lucasrag_assets.rules.care.mentions import whole_chunk
from lucasrag_assets.rules.care.unnamed import (
    is_poem,
    loss_cue,
    nearest_subject,
    nearest_subjects,
    unnamed_references,
)

#: (chunk text, the cue's kind or None). Written for these rules, not taken from a test vault.
LOSS = [
    ("- would have been 30 wks today. the app still sends its monday message", "an age or a day they did not reach"),
    ("Would've turned sixty this year. Cake anyway.", "an age or a day they did not reach"),
    ("Today would have been her birthday.", "an age or a day they did not reach"),
    ("would have been our 10th anniversary. long walk, early night", "a day that would have been theirs"),
    ("- t: in late, it's the anniversary. skipped the retro", "a date coming round"),
    ("First Christmas without her. Kept busy.", "a time without them"),
    ("first summer you're not here and the tomatoes came up anyway", "a time without them"),
    ("his reading glasses are still on the shelf. i cant bring myself to move them", "something kept"),
    ("Can't throw it out, the old brown coat.", "something kept"),
    ("I still can't delete her number.", "something kept"),
    ("the scan pictures are in the drawer. neither of us will mention it", "something kept"),
    ("We still keep his mug on the hook.", "something of theirs kept"),
    ("8 weeks. no heartbeat. home by four.", "a loss"),
    ("The miscarriage was a year ago on Sunday.", "a loss"),
    ("Hard week. Since she died the house is too quiet.", "a death"),
    ("notes after class:\n- two years today. made it to lunch", "a date coming round"),
    ("first bonfire night on my own in nine years", "a time without them"),
    ("- [ ] pick up the ashes from Dunne's, Thursday", "a loss"),
    # everyday writing: no loss
    ("Booked the anniversary dinner at Lupa for Friday.", None),
    ("The build would have been 3x faster with the cache.", None),
    ("Would have been nice to finish the report today.", None),
    ("First spring planting: peas, broad beans, radish.", None),
    ("Can't delete the branch until the PR merges.", None),
    ("Neither of us could make the Thursday meeting.", None),
    ("Raj still has his old laptop from onboarding.", None),
    ("Can't give it a proper review today, tomorrow.", None),
    ("Anniversary edition of the album arrived.", None),
    ("A year today since I joined the team, and still learning.", None),
    ("Watching the Ashes at the pub, England collapsed.", None),
    ("first trip on my own! Porto for three days", None),
    # a loss that points at someone the text names just before: theirs, not a subject's
    ("Dad finally put Biscuit's basket in the loft. It's almost a year since he died.", None),
    ("Last week my grandma passed away and it's been really hard.", None),
    ("Rang Aoife. First Christmas without him, she said, and it was the worst.", None),
]


@pytest.mark.parametrize("text, kind", LOSS)
def test_words_of_a_loss(text, kind):
    cue = loss_cue(text)
    assert (cue is None) if kind is None else (cue is not None and cue.endswith(f"({kind})")), cue


SUBJECTS = (DeferenceSubject("Dad", ("pop",)), DeferenceSubject("Nora"), DeferenceSubject("the baby", ("june",)))
D = date.fromisoformat
DATES = {"Dad": [D("2025-01-20"), D("2025-04-02")], "Nora": [D("2025-03-28")], "the baby": [D("2026-02-15")]}


@pytest.mark.parametrize(
    "note_date, nearest",
    [
        (D("2025-01-01"), "Dad"),  # before every date: the first
        (D("2025-03-30"), "Nora"),  # between Dad's two dates, Nora's is nearer
        (D("2026-03-10"), "the baby"),  # after every date
        (D("2025-03-15"), "Nora"),  # 13 days to Nora, 18 to Dad
        (None, None),  # an undated note
    ],
)
def test_the_subject_named_nearest_in_time(note_date, nearest):
    assert nearest_subject(note_date, DATES) == nearest


def test_many_notes_at_once_agree_with_one_at_a_time():
    notes = pl.DataFrame(
        {"path": [f"{i}.md" for i in range(40)], "date": [D("2024-12-01") + timedelta(days=17 * i) for i in range(40)]}
    )
    at_once = nearest_subjects(notes, DATES)
    assert at_once == {p: nearest_subject(d, DATES) for p, d in notes.iter_rows()}
    assert nearest_subjects(notes, {"Dad": []}) == {} and nearest_subjects(notes.clear(), DATES) == {}


def test_no_dated_subject_is_nearest():
    assert nearest_subject(D("2025-03-15"), {"Dad": [], "Nora": []}) is None


def test_a_loss_that_names_no_one_is_withheld_for_the_subject_named_nearby():
    text = "- wfh\n- the ultrasound photo is still on the fridge. neither of us will take it down\n- run 4mi"
    (a,) = assess_chunk(text, SUBJECTS, note_date=D("2026-03-10"), named_nearby="the baby")
    assert (a.subject, a.outcome) == ("the baby", "withheld")
    assert a.reference.startswith("names no one but speaks of a loss, 'neither of us will take' (something kept)")


def test_the_person_sees_the_sentence_and_the_words_hold_it():
    text = "- [x] pay condominio q4\n- [ ] pick up the ashes from Dunne's, Thursday\n- [x] haircut Sat 11h"
    (a,) = assess_chunk(text, SUBJECTS, note_date=D("2025-10-02"), named_nearby="Dad")
    assert a.sentence == "- [ ] pick up the ashes from Dunne's, Thursday"
    assert a.holding == "'pick up the ashes' (a loss)" and a.withheld and a.pending


def test_a_whole_chunk_reference_is_focused_on_the_words_only_when_there_are_some():
    text = "- wfh\n- no heartbeat at the scan\n- run 4mi"
    assert whole_chunk(text, SUBJECTS[0], "x", (10, 22)).focus_sentences == ("- no heartbeat at the scan",)
    assert whole_chunk(text, SUBJECTS[0], "x").focus_sentences == whole_chunk(text, SUBJECTS[0], "x").sentences


def test_with_no_subject_known_nearby_it_is_withheld_for_each():
    refs, _ = unnamed_references("No heartbeat at the scan.", SUBJECTS, D("2026-02-03"), None)
    assert sorted(refs) == ["Dad", "Nora", "the baby"]
    assert all("withheld for each" in why for why in refs.values())


@pytest.mark.parametrize(
    "text",
    [
        "- slept till 9\n- laundry\n- groceries: leeks, eggs, coffee",  # no loss
        "Nora would have been 40 today.",  # names a subject: resolution decides, for Nora alone
    ],
)
def test_a_chunk_without_a_loss_or_that_names_someone_is_not_given_to_the_nearby_subject(text):
    care = assess_chunk(text, SUBJECTS, note_date=D("2026-03-10"), named_nearby="the baby")
    assert "the baby" not in {a.subject for a in care}


@pytest.mark.parametrize(
    "path, tags, poem",
    [
        ("poems/arroios.md", (), True),
        ("writing/lyrics/Rogue River.md", (), True),
        ("journal/2025-05-18.md", ("poem",), True),
        ("notes/kettle.md", ("creative/songwriting",), True),
        ("journal/2025-05-18.md", ("diary",), False),
        ("poems.md", (), False),  # a file named so: its folder is not
        ("recipes/poem-cake.md", (), False),
    ],
)
def test_a_poem_by_its_tags_or_folders(path, tags, poem):
    assert is_poem(path, tags) is poem


POEM = "the window that stuck in summer\nyou'd thump the frame twice, left side, never right"


def test_a_poem_that_speaks_to_someone_it_does_not_name_is_withheld_for_the_subject_named_nearby():
    (a,) = assess_chunk(POEM, SUBJECTS, note_date=D("2025-05-18"), named_nearby="Nora", poem=True)
    assert (a.subject, a.outcome) == ("Nora", "withheld")
    assert a.reference.startswith("names no one but speaks to someone, 'you'd' (a poem to someone it does not name)")


@pytest.mark.parametrize(
    "text, poem",
    [
        (POEM, False),  # the same words outside a poem: a diary's "you" is anyone
        ("the window that stuck in summer\nthe frame thumped twice, left side", True),  # a poem to no one
    ],
)
def test_the_second_person_counts_only_in_a_poem(text, poem):
    assert assess_chunk(text, SUBJECTS, note_date=D("2025-05-18"), named_nearby="Nora", poem=poem) == []


def test_an_anniversary_of_a_since_date_comes_first():
    dad = DeferenceSubject("Dad", since=D("2024-11-14"))
    refs, _ = unnamed_references("left early, it's the anniversary", (dad, SUBJECTS[1]), D("2025-11-14"), "Nora")
    assert list(refs) == ["Dad"] and refs["Dad"].startswith("written on the anniversary of 2024-11-14")
