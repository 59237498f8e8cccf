"""A query naming a year reaches that year's notes even when newer notes are closer in meaning."""

import pytest

from lucasrag.index import open_chunk_store
from lucasrag_query import query

pytestmark = pytest.mark.slow


def test_nearest_dated_stays_inside_the_period(ingested):
    import numpy as np

    from lucasrag.embedding import get_embedder

    store = open_chunk_store(ingested, "personal")
    try:
        vector = get_embedder().embed(["where did I live?"])[0]
        ids = store.nearest_dated(vector, [("2013-01-01", "2013-12-31")], 5)
        records = store.get(ids)
        assert ids and all(records[i].date.startswith("2013") for i in ids)
        assert (
            store.nearest_dated(vector, [], 5) == []
            and store.nearest_dated(np.zeros(384, np.float32), [("1900-01-01", "1900-12-31")], 5) == []
        )
    finally:
        store.close()


def test_year_query_puts_that_year_first(ingested):
    result = query("what happened in 2013?", settings=ingested, top_k=5)
    assert result.archival_open and result.results
    assert result.results[0].date and result.results[0].date.startswith("2013")


def test_a_day_opens_only_that_day(ingested):
    result = query("what did I write on 2 April 2013?", settings=ingested, top_k=10)
    assert result.archival_open and result.results[0].date == "2013-04-02"
    assert all(r.date == "2013-04-02" for r in result.results if r.band == "archival")
    detail = result.to_dict()["temporal"]["details"][0]
    assert detail["kind"] == "date" and detail["period"] == {
        "start": "2013-04-02",
        "end": "2013-04-02",
        "precision": "day",
    }


def test_a_season_keeps_the_rest_of_the_archive_out_and_counts_it(ingested):
    result = query("what did I write in the summer of 2006?", settings=ingested, top_k=10)
    archival = [r for r in result.results if r.band == "archival"]
    assert archival and all("2006-06-01" <= r.date <= "2006-08-31" for r in archival)
    hint = [h for h in result.hints if h.kind == "archive"]
    assert hint and hint[0].withheld >= 1 and "outside the period" in hint[0].message


def test_present_tense_question_about_last_year_opens_no_older_note(ingested):
    result = query("what did I say about the boiler last year?", settings=ingested, top_k=10)
    assert result.to_dict()["temporal"]["archive"] == "periods"
    assert all(r.band != "archival" for r in result.results)


def test_false_alarm_keeps_the_archive_closed(ingested):
    result = query("what did my ex-colleague say about the natural history museum?", settings=ingested, top_k=10)
    assert not result.archival_open and all(r.band != "archival" for r in result.results)


def test_band_counts_bound_the_over_fetch(ingested):
    from lucasrag_query._fetch import eligible_count
    from lucasrag_query.temporal import detect_temporal

    store = open_chunk_store(ingested, "personal")
    try:
        counts = store.band_counts()
        assert sum(counts.values()) == store.counts()[1] and counts.get("archival", 0) > 0
        in_2013 = store.band_counts([("2013-01-01", "2013-12-31")])
        assert 0 < sum(in_2013.values()) < sum(counts.values())
        present = sum(n for b, n in counts.items() if b != "archival")
        now = ingested.now
        assert eligible_count(store, detect_temporal("where do I live?", now=now)) == present
        assert eligible_count(store, detect_temporal("back then", now=now)) == sum(counts.values())
        assert eligible_count(store, detect_temporal("in 2013", now=now)) == present + in_2013.get("archival", 0)
    finally:
        store.close()


def test_a_decade_reaches_the_undated_childhood_memories_of_a_writer_born_in_it(ingested):
    """The sample's writer was born in 1990 (personal/facts.md); "Growing up" names no year."""
    from lucasrag.life import read_life

    assert read_life(ingested).born == 1990
    results = query("what was I doing in the 90s?", settings=ingested, top_k=5).results
    placed = {r.path: r.why.get("placed") for r in results}
    assert "personal/growing up.md" in placed and "personal/summers at the caravan.md" in placed
    assert "born 14 May 1990" in placed["personal/growing up.md"]  # the result says how it was placed
    memories = ("personal/growing up.md", "personal/summers at the caravan.md")
    assert all(why is None for path, why in placed.items() if path not in memories)  # the others by their dates
    later = query("what did I do in 2019?", settings=ingested, top_k=10).results
    assert all(r.path != "personal/growing up.md" for r in later)  # 2019 is not the writer's childhood
