"""One note, one place in the list: a note's best passage stands for it, ``more`` counts its other matching
passages; ``chunks=True`` (CLI ``--chunks``, MCP ``chunks``) lists every passage in its own place."""

from __future__ import annotations

import pytest

from lucasrag_query import query

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("question", ["where do I live?", "grandad's pocket watch", "kubernetes cluster upgrade"])
def test_each_note_once_with_its_other_passages_counted(ingested, question):
    grouped = query(question, settings=ingested, top_k=25)
    paths = [r.path for r in grouped.results]
    assert len(paths) == len(set(paths))
    every = query(question, settings=ingested, top_k=200, chunks=True)
    assert all(r.more == 0 for r in every.results)
    # the best passage of each note leads, in the order of the passages' ranking
    first = list(dict.fromkeys(r.path for r in every.results))
    assert paths == first[: len(paths)]
    for r in grouped.results:
        assert r.chunk_id == next(c.chunk_id for c in every.results if c.path == r.path)


def test_more_counts_the_notes_other_matching_passages(ingested):
    every = query("how is grandad?", settings=ingested, top_k=200, chunks=True, bridge=["Grandad Tom"])
    grouped = query("how is grandad?", settings=ingested, top_k=200, bridge=["Grandad Tom"])
    counts = {}
    for r in every.results:
        counts[r.path] = counts.get(r.path, 0) + 1
    assert {r.path: r.more + 1 for r in grouped.results} == counts
    assert any(r.more for r in grouped.results)
