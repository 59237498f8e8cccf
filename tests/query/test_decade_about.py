"""A question naming a decade ranks the notes *about* it, not only those dated in it: a diary entry of 2024
that recounts 1994 fits "the 90s" as well as a note written then."""

from __future__ import annotations

import datetime as dt

import pytest

from lucasrag_query import query
from lucasrag_query.temporal import detect_temporal, mentions_decade

NOW = dt.date(2026, 6, 1)


@pytest.mark.parametrize(
    ("question", "text", "about"),
    [
        ("what was life like in the 90s?", "In 1994 we moved to Haxby.", True),
        ("what was life like in the 90s?", "The nineties were loud.", True),
        ("what was life like in the 90s?", "We had the 1990s to ourselves.", True),
        ("what was life like in the 90s?", "In 2004 I left for Leeds.", False),
        ("what was life like in the 90s?", "Nothing dated here.", False),
        ("what did I do in 2013?", "In 2013 I lived on Hyde Park Road.", False),  # a year is not a decade
        ("where was I in the 2000s?", "By 2007 the band had split.", True),
    ],
)
def test_what_is_about_a_decade(question, text, about):
    assert mentions_decade(text, detect_temporal(question, now=NOW).periods, NOW) is about


NOTES = {
    "Daybook/2024-03-01.md": "---\nworkspace: personal\n---\nFound the box of photos from 1994 in the loft: the "
    "caravan at Filey, the dog on the beach, mum's blue Rover. We spent every summer there.\n",
    **{
        f"Daybook/2025-0{m}-1{m}.md": f"---\nworkspace: personal\n---\nA quiet week; the photos of the summer "
        f"beach trip came back from the printer, week {m}.\n"
        for m in range(1, 7)
    },
    "Daybook/2025-08-02.md": "---\nworkspace: personal\n---\nCleared the loft and kept the box of old photos.\n",
}


@pytest.mark.slow
def test_the_note_about_the_decade_ranks_first(tmp_path, notes_vault, settings_for, ingest_at):
    settings = settings_for(notes_vault(tmp_path / "vault", NOTES), tmp_path / "data")
    ingest_at(settings, tmp_path / "dagster")
    result = query("photos of summers in the 90s", settings=settings, top_k=3)
    assert result.results[0].path == "Daybook/2024-03-01.md"
