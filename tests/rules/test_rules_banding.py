import datetime as dt
import re

import pytest

from lucasrag.vocabulary import BANDS
from lucasrag_assets.rules.banding import (
    CONTENT_CUES,
    BandDecision,
    content_evidence,
    decide_band,
    explain_cues,
    infer_band,
)

CUTOFF = dt.date(2022, 6, 1)
OLD, NEW = dt.date(2010, 1, 1), dt.date(2024, 1, 1)
CHILDHOOD = "When I was a kid we lived by the sea. Back then the summers were long."
PRESENT = "Currently I run every morning."

DECISIONS = [
    # declared band wins over everything
    pytest.param("present", OLD, CHILDHOOD, BandDecision("present", "frontmatter"), id="fm-present-beats-old-date"),
    pytest.param("archival", NEW, PRESENT, BandDecision("archival", "frontmatter"), id="fm-archival-beats-new-date"),
    pytest.param("present", None, CHILDHOOD, BandDecision("present", "frontmatter"), id="fm-beats-content"),
    # date next
    pytest.param(None, OLD, PRESENT, BandDecision("archival", "date"), id="old-date-beats-content"),
    pytest.param(None, NEW, CHILDHOOD, BandDecision("present", "date"), id="new-date-beats-content"),
    pytest.param(None, CUTOFF, "", BandDecision("present", "date"), id="cutoff-day-is-present"),
    pytest.param(None, CUTOFF - dt.timedelta(days=1), "", BandDecision("archival", "date"), id="day-before-cutoff"),
    # content next
    pytest.param(None, None, CHILDHOOD, BandDecision("archival", "content"), id="content-archival"),
    pytest.param(None, None, PRESENT, BandDecision("present", "content"), id="content-present"),
    pytest.param(
        None,
        None,
        "Growing up, back then. These days I cook.",
        BandDecision("archival", "content"),
        id="content-2-vs-1",
    ),
    pytest.param(
        None, None, "Back then, I know. Right now though.", BandDecision("present", "default"), id="content-tie"
    ),
    # default last
    pytest.param(None, None, "Shopping list: eggs, milk.", BandDecision("present", "default"), id="no-cues"),
    pytest.param(None, None, "", BandDecision("present", "default"), id="empty"),
]


@pytest.mark.parametrize("declared, date, text, expected", DECISIONS)
def test_decide_band(declared, date, text, expected):
    assert decide_band(declared_band=declared, note_date=date, text=text, cutoff=CUTOFF) == expected


def test_unknown_declared_band_raises():
    with pytest.raises(ValueError, match="expected one of present, archival"):
        decide_band(declared_band="old", note_date=None, text="", cutoff=CUTOFF)


SINGLE_CUES = [  # each cue fires on its own, but one phrase alone bands nothing archival
    pytest.param("when I was a kid", "archival", id="when-i-was-a-kid"),
    pytest.param("WHEN I WAS 12 I broke my arm", "archival", id="when-i-was-12-caps"),
    pytest.param("Growing up in Leeds", "archival", id="growing-up"),
    pytest.param("In those days bread was cheap", "archival", id="in-those-days"),
    pytest.param("As a teenager I skated", "archival", id="as-a-teenager"),
    pytest.param("We used to live on Elm Street", "archival", id="used-to-live"),
    pytest.param("That was twenty years ago", "archival", id="years-ago"),
    pytest.param("At school we played conkers", "archival", id="at-school-we"),
    pytest.param("back in 1998", "archival", id="back-in-year"),
    pytest.param("When we were little the beck froze", "archival", id="when-we-were-little"),
    pytest.param("As kids we built dens", "archival", id="as-kids"),
    pytest.param("My childhood smelt of coal smoke", "archival", id="my-childhood"),
    pytest.param("The walk to primary school", "archival", id="primary-school"),
    pytest.param("We lived in Haxby", "archival", id="we-lived-in"),
    pytest.param("these days", "present", id="these-days"),
    pytest.param("nowadays", "present", id="nowadays"),
    pytest.param("this week I started", "present", id="this-week"),
    pytest.param("I'm busy right now", "present", id="right-now"),
]


@pytest.mark.parametrize("text, band", SINGLE_CUES)
def test_each_cue_fires_but_one_archival_phrase_is_not_enough(text, band):
    assert [c.split(":")[0] for c in explain_cues(text)] == [band]
    assert infer_band(text) == (band if band == "present" else None)


INFER = [
    pytest.param("the currentlyish word", None, id="word-boundary"),
    pytest.param("overgrowing upwards", None, id="no-partial-phrase"),
    pytest.param("Back then. Nowadays. Years ago.", "archival", id="count-2-1"),
    pytest.param("Back then. Nowadays. Currently.", "present", id="count-1-2"),
    pytest.param("Growing up. Growing up again. Growing up!", None, id="same-cue-thrice-is-one"),
    pytest.param("As a kid, back then, we had a dog.", "archival", id="two-independent-cues"),
]


@pytest.mark.parametrize("text, band", INFER)
def test_infer_band(text, band):
    assert infer_band(text) == band


MIN_EVIDENCE = [  # both directions, with the cutoff (past years count only before its year)
    pytest.param(
        "Lamb stew. My gran made this when I was growing up. Brown the meat, add stock, simmer 2 hours.",
        None,
        id="recipe-clipping-one-phrase-stays-present",
    ),
    pytest.param("Growing up in Leeds in 1994 we had a coal fire.", "archival", id="one-cue-and-a-past-year"),
    pytest.param("Growing up in Leeds, planning 2024.", None, id="one-cue-and-a-recent-year"),
    pytest.param("The 1994 edition, £1994 price.", None, id="a-year-alone-is-no-cue"),
    pytest.param("As a kid in Leeds. Back then we walked.", "archival", id="two-cues-no-year"),
]


TITLES_AND_FOLDERS = [  # (text, title, folders, band): a title about the past decides; a memories folder is one cue
    pytest.param("Haxby meant the beck and the rec.", "Growing up", (), "archival", id="title-decides"),
    pytest.param("Happy times.", "Summers as a kid", (), "archival", id="title-decides-even-a-line"),
    pytest.param("These days I cook. Currently busy.", "When I was a kid", (), "archival", id="title-beats-present"),
    pytest.param("Brown the meat, add stock.", "Lamb stew", (), None, id="plain-title-no-evidence"),
    pytest.param("Growing up in Haxby.", "Haxby", ("personal", "memories"), "archival", id="memory-folder-and-a-cue"),
    pytest.param("The beck and the rec.", "Haxby", ("personal", "memories"), None, id="memory-folder-alone"),
    pytest.param("Growing up in Haxby.", "Haxby", ("personal",), None, id="ordinary-folder-and-a-cue"),
    pytest.param("Growing up, parenting notes.", "Parenting", (), None, id="cue-in-text-not-title"),
]


@pytest.mark.parametrize("text, title, folders, band", TITLES_AND_FOLDERS)
def test_title_and_folder_evidence(text, title, folders, band):
    assert content_evidence(text, CUTOFF, title=title, folders=folders).band == band
    decision = decide_band(declared_band=None, note_date=None, text=text, cutoff=CUTOFF, title=title, folders=folders)
    assert decision.band == (band or "present")
    if band == "archival" and title != "Haxby":
        assert decision.reason.startswith("its content: its title:")


@pytest.mark.parametrize("text, band", MIN_EVIDENCE)
def test_minimum_evidence(text, band):
    assert infer_band(text, CUTOFF) == band
    decision = decide_band(declared_band=None, note_date=None, text=text, cutoff=CUTOFF)
    assert decision == (BandDecision("archival", "content") if band else BandDecision("present", "default"))


def test_evidence_is_inspectable():
    ev = content_evidence("Growing up in 1994, back then, these days.", CUTOFF)
    assert ev.archival_cues == ("childhood memory: 'growing up'", "looking back: 'back then'")
    assert ev.present_cues == ("present tense marker: 'these days'",)
    assert ev.past_years == (1994,) and ev.band == "archival"


EXPLAIN = [
    pytest.param(
        "Growing up, it rained. Currently dry.",
        ["archival: 'Growing up' (childhood memory)", "present: 'Currently' (present tense marker)"],
        id="in-text-order",
    ),
    pytest.param("years ago and years ago", ["archival: 'years ago' (distant past)"] * 2, id="each-occurrence"),
    pytest.param("nothing here", [], id="none"),
]


@pytest.mark.parametrize("text, expected", EXPLAIN)
def test_explain_cues(text, expected):
    assert explain_cues(text) == expected


@pytest.mark.parametrize("rx, band, why", CONTENT_CUES, ids=[c[0] for c in CONTENT_CUES])
def test_cue_table_is_well_formed(rx, band, why):
    re.compile(rx)
    assert band in BANDS and why
