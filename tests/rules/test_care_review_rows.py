"""Care review rows and batch selection (rules/care/review): pure, table-driven."""

from __future__ import annotations

import pytest

from lucasrag_assets.rules.care.review import namesakes_released, review_rows, select, since_suggestions


def pair(subject, outcome="withheld", source="inferred", score=0.5):
    return {"subject": subject, "outcome": outcome, "source": source, "why": "w", "score": score}


PAIRS = [
    ("journal/a.md", pair("Maya", score=0.9)),
    ("journal/a.md", pair("Maya", score=0.2)),  # another chunk of the same note: the note is as charged as its most
    ("journal/2019/b.md", pair("Maya", score=0.05)),
    ("recipes/c.md", pair("Grandad Tom", score=0.02)),
    ("recipes/d.md", pair("Grandad Tom", "released", "inferred", 0.01)),  # released: not pending
    ("journal/e.md", pair("Grandad Tom", "withheld", "declared", None)),  # decided: not pending
]


def test_pending_rows_group_by_subject_most_likely_neutral_first():
    rows = review_rows(PAIRS)
    assert [(r["subject"], r["path"], r["neutral"]) for r in rows] == [
        ("Grandad Tom", "recipes/c.md", 0.98),
        ("Maya", "journal/2019/b.md", 0.95),
        ("Maya", "journal/a.md", 0.1),
    ]
    assert len(review_rows(PAIRS, every=True)) == 5


def test_a_pair_held_by_words_of_loss_is_listed_last_and_no_neutral_batch_picks_it():
    held = {**pair("Dad", score=0.09), "holding": "'Dad would have loved' (what they would have done)"}
    rows = review_rows([("journal/bridge.md", held), ("recipes/chilli.md", pair("Dad", score=0.4))])
    assert [(r["path"], r["neutral"]) for r in rows] == [("recipes/chilli.md", 0.6), ("journal/bridge.md", 0.0)]
    assert [r["path"] for r in select(rows, neutral_above=0.5)] == ["recipes/chilli.md"]
    assert [r["path"] for r in select(rows, neutral_below=0.5)] == ["journal/bridge.md"]


TAGS = {"recipes/c.md": ("food",), "journal/a.md": ("diary", "#Maya"), "journal/2019/b.md": ()}
SELECTIONS = [
    pytest.param({"folder": "journal"}, ["journal/2019/b.md", "journal/a.md"], id="folder"),
    pytest.param({"folder": "journal/2019/"}, ["journal/2019/b.md"], id="subfolder"),
    pytest.param({"folder": "journ"}, [], id="folder-is-not-a-prefix-of-a-name"),
    pytest.param({"tag": "#food"}, ["recipes/c.md"], id="tag"),
    pytest.param({"tag": "maya"}, ["journal/a.md"], id="tag-any-case"),
    pytest.param({"neutral_above": 0.95}, ["recipes/c.md", "journal/2019/b.md"], id="neutral-above"),
    pytest.param({"neutral_below": 0.95}, ["journal/a.md"], id="neutral-below"),
    pytest.param({"neutral_above": 0.5, "neutral_below": 0.96}, ["journal/2019/b.md"], id="a-range"),
    pytest.param({"subject": "maya", "folder": "journal"}, ["journal/2019/b.md", "journal/a.md"], id="subject"),
    pytest.param({"paths": ["journal/a.md"]}, ["journal/a.md"], id="one-note"),
]


@pytest.mark.parametrize("criteria, paths", SELECTIONS)
def test_batch_selection(criteria, paths):
    chosen = select(review_rows(PAIRS), tags_of=TAGS.get, **criteria)
    assert [r["path"] for r in chosen] == paths


def test_a_since_date_is_suggested_from_the_earliest_charged_note():
    pairs = [
        ("journal/2006.md", {**pair("Tom", score=0.1), "inferred": "neutral"}),
        ("journal/2009.md", {**pair("Tom", score=0.6), "inferred": "uncertain"}),  # read as charged: stays
        ("journal/2012.md", {**pair("Tom", "withheld", "declared", None), "inferred": None}),
        ("journal/2020.md", {**pair("Tom", score=0.1), "inferred": "neutral"}),  # after: not released by since
        ("undated.md", {**pair("Tom", score=0.1), "inferred": "neutral"}),  # undated counts as after
        ("journal/2015.md", {**pair("Maya", score=0.95), "inferred": "charged"}),
    ]
    dates = {"journal/2006.md": "2006-08-19", "journal/2009.md": "2009-01-01", "journal/2012.md": "2012-10-06"}
    dates |= {"journal/2020.md": "2020-01-01", "undated.md": None, "journal/2015.md": "2015-01-01"}
    assert since_suggestions(pairs, dates) == {
        "Tom": {"since": "2009-01-01", "first_charged": "journal/2009.md", "releases": 1}
    }


def test_full_names_released_as_another_person_are_listed_for_a_look():
    def other(why):
        return {"subject": "Rob", "outcome": "released", "source": "resolution", "reference": f"not the subject: {why}"}

    pairs = [
        ("j/1.md", other("another person: Robert Hale")),
        ("j/2.md", other("another person: Robert Hale; another person: Rob Mensah, named at the note's head")),
        ("w/3.md", other("another person: Rob M.")),
        ("w/4.md", other("another person: Rob from finance")),  # a workplace, not a full name
        ("j/5.md", {**other("another person: Robert Hale"), "outcome": "withheld", "source": "inferred"}),
    ]
    assert namesakes_released(pairs) == {"Rob": [("Robert Hale", 2), ("Rob M.", 1), ("Rob Mensah", 1)]}
