"""The writer's birth year (lucasrag.life): what counts as evidence, what is someone else's, and what an
undated childhood memory is then about."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from lucasrag.life import Life, find_life, is_about_the_writer, is_childhood_memory, read_life, write_life
from lucasrag.settings import Settings

NOW = dt.date(2026, 6, 1)
FACTS = ("Facts about me", "facts", "about-me")

LIVES = [  # (notes as (path, text, names), born or None)
    pytest.param([("j.md", "I was born in 1990, in York.", ())], 1990, id="first-person"),
    pytest.param([("j.md", "I was born on 14 May 1988 at home.", ())], 1988, id="first-person-full-date"),
    pytest.param(
        [("personal/facts.md", "- **Name:** Lucas Hale, born 14 May 1990 in York.", FACTS)], 1990, id="about-me-line"
    ),
    pytest.param([("me.md", "Lisbon.", ("Me", "me", "born: 1987-03-02"))], 1987, id="about-me-property"),
    pytest.param([("j.md", "Sam was born in 2019, a month early.", ())], None, id="someone-else-s-birth"),
    pytest.param([("notes/baby.md", "Born 2021, weighed 3 kg.", ("Baby", "baby"))], None, id="born-outside-about-me"),
    pytest.param([("j.md", "I was born in 2031.", ())], None, id="a-future-year-is-no-birth"),
    pytest.param(
        [("a.md", "I was born in 1990.", ()), ("b.md", "I was born in 1991.", ())], None, id="two-years-no-guess"
    ),
    pytest.param(
        [("a.md", "I was born in 1990.", ()), ("personal/facts.md", "Ellie, born 1993.", FACTS)],
        1990,
        id="first-person-beats-about-me",
    ),
    pytest.param([("a.md", "Nothing about birthdays.", FACTS)], None, id="nothing-said"),
]


@pytest.mark.parametrize("notes, born", LIVES)
def test_find_life(notes, born):
    life = find_life(notes, NOW)
    assert (life.born if life else None) == born
    if life:
        assert life.evidence.startswith(notes[0][0] + ": ")


@pytest.mark.parametrize(
    "names, about",
    [
        (("About me",), True),
        (("facts about me",), True),
        (("x", "about-me"), True),
        (("x", "people/me"), True),
        (("Profile",), True),
        (("About my mother",), False),
        (("meetings",), False),
    ],
)
def test_is_about_the_writer(names, about):
    assert is_about_the_writer(names) is about


@pytest.mark.parametrize(
    "text, childhood",
    [
        ("Growing up in Haxby meant the beck.", True),
        ("When I was a kid we lived in Haxby.", True),
        ("As kids we built dens.", True),
        ("The walk to primary school.", True),
        ("My childhood smelt of coal smoke.", True),
        ("Back then the summers were long.", False),  # the past, not said to be childhood
        ("Picked Sam up from school.", False),
    ],
)
def test_is_childhood_memory(text, childhood):
    assert is_childhood_memory(text) is childhood


def test_the_banding_cues_for_childhood_are_childhood_memories():
    """One meaning of "childhood" on both sides: every phrase a banding cue calls a childhood memory is one."""
    from lucasrag_assets.rules.banding import CONTENT_CUES

    phrases = ["when I was a kid", "as a kid", "when we were little", "as kids", "growing up", "my childhood"]
    rows = [re.compile(rx, re.I) for rx, _, why in CONTENT_CUES if why == "childhood memory"]
    assert all(any(r.search(p) for r in rows) for p in phrases)
    assert all(is_childhood_memory(p) for p in phrases)


def test_childhood_span_and_the_file(tmp_path):
    life = Life(1990, "personal/facts.md: 'born 14 May 1990'")
    assert life.childhood == (dt.date(1990, 1, 1), dt.date(2007, 12, 31))
    settings = Settings(vault=tmp_path, data=tmp_path / "data", now=NOW)
    assert read_life(settings) is None
    write_life(settings, life)
    assert read_life(settings) == life
    write_life(settings, None)
    assert read_life(settings) is None
