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
