"""What ages (rules/ageing.py) and the band it gives (rules/banding.py): time-bound notes age by their
date, timeless ones stay present, ``band:`` overrides both, a recent ``updated:`` keeps an entry present."""

import datetime as dt

import pytest

from lucasrag_assets.rules.ageing import Ageing, note_ageing, text_kind
from lucasrag_assets.rules.banding import BandDecision, decide_band
from lucasrag_assets.rules.dates import is_stamp, note_date, updated_date

KINDS = [
    # (path, kinds, tags, source, text) → kind, a word of the evidence
    # time-bound, each kind of entry
    pytest.param("Daily/2023-09-12.md", (), (), None, "", "time-bound", "Daily", id="daily-folder"),
    pytest.param("Journal/Lisbon.md", (), (), None, "", "time-bound", "Journal", id="journal-folder"),
    pytest.param("diary/x.md", (), (), None, "", "time-bound", "diary", id="diary-folder"),
    pytest.param("Notes/Sync.md", ("Meetings",), (), None, "", "time-bound", "Meetings", id="meeting-kind"),
    pytest.param("Notes/Japan.md", ("Trips",), (), None, "", "time-bound", "Trips", id="trip-kind"),
    pytest.param("x.md", (), ("journal",), None, "", "time-bound", "journal", id="journal-tag"),
    pytest.param("x.md", (), ("type/weekly-review",), None, "", "time-bound", "weekly review", id="weekly-review"),
    pytest.param("x.md", (), ("1:1",), None, "", "time-bound", "1:1", id="one-to-one"),
    pytest.param("x.md", ("Job Interview",), (), None, "", "time-bound", "interview", id="interview-kind"),
    pytest.param("x.md", ("Events",), (), None, "", "time-bound", "Events", id="event-kind"),
    pytest.param("x.md", (), ("now",), None, "", "time-bound", "now", id="now-page"),
    pytest.param("x/2023-09-12.md", (), (), None, "", "time-bound", "daily note", id="bare-date-name"),
    pytest.param("x/2023-09-12 0930.md", (), (), None, "", "time-bound", "daily note", id="date-and-time-name"),
    pytest.param("Notes/2023-09-12 Sync with Ana.md", (), (), None, "", "time-bound", "starts with", id="dated-name"),
    pytest.param("x/20230912 standup.md", (), (), None, "", "time-bound", "starts with", id="compact-dated-name"),
    # a dated title whose text is a recipe: the text speaks before the date prefix
    pytest.param(
        "personal/2013-04-04 bread pudding.md",
        (),
        (),
        None,
        "## Ingredients\n- milk\n## Method\n1. Warm the milk.\n2. Bake.\nServes four.",
        "timeless",
        "numbered steps",
        id="dated-recipe-by-its-text",
    ),
    pytest.param(
        "x/2023-09-12.md",
        (),
        (),
        None,
        "## Summary\nYou can. For example.",
        "time-bound",
        "daily",
        id="a-daily-note-stays-one",
    ),
    # timeless, each kind of reference
    pytest.param("References/Kyoto.md", (), (), None, "", "timeless", "References", id="references-folder"),
    pytest.param("Clippings/Buy wisely.md", (), (), None, "", "timeless", "Clippings", id="clippings-folder"),
    pytest.param("x.md", ("Recipes",), (), None, "", "timeless", "Recipes", id="recipe-kind"),
    pytest.param("x.md", ("Books",), (), None, "", "timeless", "Books", id="book-kind"),
    pytest.param("x.md", ("Movies", "Sci-fi"), (), None, "", "timeless", "Movies", id="movie-kind-plural-ies"),
    pytest.param("x.md", ("Podcast episodes",), (), None, "", "timeless", "Podcast", id="podcast-episode"),
    pytest.param("x.md", (), ("evergreen",), None, "", "timeless", "evergreen", id="evergreen-tag"),
    pytest.param("x.md", (), ("0🌲",), None, "", "timeless", "garden stage", id="garden-emoji"),
    pytest.param("x.md", (), ("how-to",), None, "", "timeless", "how-to", id="how-to-tag"),
    pytest.param("Concepts/Spaced repetition.md", (), (), None, "", "timeless", "Concepts", id="concepts-folder"),
    pytest.param("tech/k8s-upgrade.md", (), ("kubernetes", "runbook"), None, "", "timeless", "runbook", id="runbook"),
    pytest.param("x.md", (), (), "https://a.example/post", "", "timeless", "clipping", id="web-source"),
    # order: the kind beats the folder, the folder beats the file name, time-bound beats timeless
    pytest.param("Clippings/x.md", ("Meetings",), (), None, "", "time-bound", "Meetings", id="kind-beats-folder"),
    pytest.param("Daily/Recipes.md", (), ("recipe",), None, "", "timeless", "recipe", id="tag-beats-folder"),
    pytest.param("References/2023-01-02 x.md", (), (), None, "", "timeless", "References", id="folder-beats-name"),
    pytest.param("x.md", (), ("journal", "books"), None, "", "time-bound", "journal", id="reading-diary"),
    # not words that merely contain a name, nor names that are too broad
    pytest.param("x.md", (), ("status/seedling",), None, "", "timeless", "seedling", id="status-namespace"),
    pytest.param("x.md", (), ("changelog", "holiday"), None, "", "unknown", "", id="no-partial-words"),
    pytest.param("x.md", ("Holiday",), (), None, "", "unknown", "", id="a-genre-is-not-a-trip"),
    pytest.param("Notes/Product usage analysis.md", (), (), None, "", "unknown", "", id="nothing-speaks"),
]


@pytest.mark.parametrize("path, kinds, tags, source, text, kind, evidence", KINDS)
def test_note_ageing(path, kinds, tags, source, text, kind, evidence):
    ageing = note_ageing(path, kinds=kinds, tags=tags, source=source, text=text)
    assert ageing.kind == kind
    assert evidence in ageing.evidence


DIARY = "Today I went to the market with Ana. We talked about the move. Tired this evening."
CONCEPT = (
    "Spaced repetition is a technique for remembering. You can review cards at growing intervals; "
    "for example, one day, then three, then a week.\n\n## See also\n- Active recall"
)
MEETING = "Attendees: Ana, Bo\nWe agreed to ship on Friday. Next week: the review."
TEXTS = [
    pytest.param(DIARY, "time-bound", id="diary-entry"),
    pytest.param(MEETING, "time-bound", id="meeting-record"),
    pytest.param(CONCEPT, "timeless", id="concept-note"),
    pytest.param("## Ingredients\n- flour\n## Method\nYou should rest the dough.", "timeless", id="recipe"),
    pytest.param("1. Preheat.\n2. Mix.\nMakes 12.", "timeless", id="steps-and-yield"),
    pytest.param("Today.", None, id="one-cue-is-not-enough"),
    pytest.param("Thoughts on ambition and craft.", None, id="no-cues"),
]


@pytest.mark.parametrize("text, kind", TEXTS)
def test_text_kind(text, kind):
    found = text_kind(text)
    assert (found[0] if found else None) == kind


CUTOFF = dt.date(2023, 12, 5)
OLD, NEW = dt.date(2021, 3, 1), dt.date(2025, 1, 1)
TIME_BOUND = Ageing("time-bound", "its folder 'Daily' (daily)")
TIMELESS = Ageing("timeless", "its kind 'Recipes' (recipe)")
UNKNOWN = Ageing("unknown", "")

BANDS = [
    # (declared, date, date source, updated, ageing, text) → band, rule
    pytest.param(None, OLD, "filename", None, TIME_BOUND, "", "archival", "date", id="old-entry-ages"),
    pytest.param(None, NEW, "filename", None, TIME_BOUND, "", "present", "date", id="new-entry-present"),
    pytest.param(None, OLD, "frontmatter:created", None, TIME_BOUND, "", "archival", "date", id="entry-by-created"),
    pytest.param(None, OLD, "frontmatter:date", NEW, TIME_BOUND, "", "present", "date", id="recently-updated-entry"),
    pytest.param(None, OLD, "frontmatter:date", OLD, TIME_BOUND, "", "archival", "date", id="long-ago-updated-entry"),
    pytest.param(None, OLD, "frontmatter:created", None, TIMELESS, "", "present", "timeless", id="old-recipe-present"),
    pytest.param(None, OLD, "frontmatter:date", None, TIMELESS, "", "present", "timeless", id="dated-recipe-present"),
    pytest.param(None, None, None, None, TIMELESS, "growing up back then", "present", "timeless", id="timeless-cues"),
    pytest.param("archival", NEW, "filename", None, TIMELESS, "", "archival", "frontmatter", id="band-archives-recipe"),
    pytest.param("present", OLD, "filename", None, TIME_BOUND, "", "present", "frontmatter", id="band-keeps-entry"),
    # nothing says what the note is: a date that names its moment ages it, a creation stamp does not
    pytest.param(None, OLD, "frontmatter:date", None, UNKNOWN, "", "archival", "date", id="unknown-date-ages"),
    pytest.param(None, OLD, "folder", None, UNKNOWN, "", "archival", "date", id="unknown-folder-date-ages"),
    pytest.param(None, OLD, "frontmatter:created", None, UNKNOWN, "", "present", "default", id="created-stamp"),
    pytest.param(None, OLD, "zettel-id", None, UNKNOWN, "", "present", "default", id="zettel-id-stamp"),
    pytest.param(None, OLD, "frontmatter:modified", None, UNKNOWN, "", "present", "default", id="modified-stamp"),
    pytest.param(
        None, OLD, "frontmatter:created", None, UNKNOWN, "As a kid, back then.", "archival", "content", id="stamp-cues"
    ),
    pytest.param(None, None, None, None, TIME_BOUND, "", "present", "default", id="undated-entry"),
]


@pytest.mark.parametrize("declared, date, source, updated, ageing, text, band, rule", BANDS)
def test_band_by_what_ages(declared, date, source, updated, ageing, text, band, rule):
    decision = decide_band(
        declared_band=declared,
        note_date=date,
        text=text,
        cutoff=CUTOFF,
        ageing=ageing,
        date_source=source,
        updated=updated,
    )
    assert decision == BandDecision(band, rule)
    assert decision.reason  # every band says why


def test_the_reason_names_the_evidence_and_the_cutoff():
    decision = decide_band(
        declared_band=None, note_date=OLD, text="", cutoff=CUTOFF, ageing=TIME_BOUND, date_source="filename"
    )
    assert (
        decision.reason
        == "time-bound (its folder 'Daily' (daily)), dated 2021-03-01: before the archive cutoff 2023-12-05"
    )
    updated = decide_band(
        declared_band=None,
        note_date=OLD,
        text="",
        cutoff=CUTOFF,
        ageing=TIME_BOUND,
        date_source="filename",
        updated=NEW,
    )
    assert "updated 2025-01-01" in updated.reason


@pytest.mark.parametrize(
    "source, stamp",
    [
        ("frontmatter:created", True),
        ("frontmatter:Date_Created", True),
        ("frontmatter:published", True),
        ("frontmatter:updated", True),
        ("zettel-id", True),
        ("frontmatter:date", False),
        ("frontmatter:start", False),
        ("filename", False),
        ("folder", False),
        (None, False),
    ],
)
def test_is_stamp(source, stamp):
    assert is_stamp(source) is stamp


@pytest.mark.parametrize(
    "meta, expected",
    [
        ({"updated": "2024-05-06"}, dt.date(2024, 5, 6)),
        ({"modified": dt.date(2022, 1, 2), "updated": "2024-05-06"}, dt.date(2024, 5, 6)),
        ({"Last_Modified": "2023-02-03T10:00"}, dt.date(2023, 2, 3)),
        ({"updated": "sometime"}, None),
        ({"created": "2024-05-06"}, None),
        ({}, None),
    ],
)
def test_updated_date(meta, expected):
    assert updated_date(meta) == expected


@pytest.mark.parametrize(
    "meta, path, date, source",
    [
        ({"updated": "2026-05-01"}, "journal/2019-06-01 the flat.md", dt.date(2019, 6, 1), "filename"),
        ({"modified": "2026-05-01"}, "2019/06/note.md", dt.date(2019, 6, 1), "folder"),
        ({"updated": "2026-05-01"}, "notes/the flat.md", dt.date(2026, 5, 1), "frontmatter:updated"),
        ({"created": "2018-01-01", "updated": "2026-05-01"}, "x.md", dt.date(2018, 1, 1), "frontmatter:created"),
    ],
)
def test_an_edit_date_dates_a_note_only_when_nothing_else_does(meta, path, date, source):
    reading = note_date(meta, path)
    assert (reading.date, reading.source) == (date, source)
