"""One "today": the sample vault reads the same on the real date as on the tests' fixed NOW.

The demo, the tests and ``scripts/dagster-ui`` share one data folder story: an ingest on one day, then the
UI's sensor ingesting again on the real date. The sample vault's present notes declare ``band: present``,
so that second ingest — today or years from now — changes no band, no index and no answer.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil

import pytest

from lucasrag.catalog import read_catalog
from lucasrag.index.stores import open_chunk_store
from lucasrag.vocabulary import WORKSPACES
from lucasrag_query import query

pytestmark = pytest.mark.slow
DAYS = {"today": dt.date.today(), "in ten years": dt.date.today() + dt.timedelta(days=3653)}


@pytest.fixture(scope="module", params=list(DAYS))
def reingested(request, ingested, tmp_path_factory, ingest_at):
    """The session's ingest (at the fixed NOW) ingested again on another day, in the same data folder."""
    root = tmp_path_factory.mktemp("reingested")
    shutil.copytree(ingested.data, root / "data")
    settings = dataclasses.replace(ingested, data=root / "data", now=DAYS[request.param])
    summary = ingest_at(settings, root / "dagster")
    return settings, summary


def test_bands_on_that_day_match_the_truth_file(reingested, truth):
    settings, _ = reingested
    catalog = {row["path"]: row for row in read_catalog(settings).to_dicts()}
    indexed = {p: t for p, t in truth["notes"].items() if t["status"] == "indexed"}
    assert {p: catalog[p]["band"] for p in indexed} == {p: t["band"] for p, t in indexed.items()}
    chunk_bands: dict[str, set[str]] = {}
    for ws in WORKSPACES:
        store = open_chunk_store(settings, ws)
        try:
            for record in store.all_records():
                chunk_bands.setdefault(record.path, set()).add(record.band)
        finally:
            store.close()
    assert chunk_bands == {p: {t["band"]} for p, t in indexed.items()}


def test_the_second_ingest_changes_no_index(reingested):
    _, summary = reingested
    changed = {
        ws: (meta.get("documents_added", 0), meta.get("documents_removed", 0))
        for ws, meta in summary.index_metadata.items()
        if meta.get("documents_added", 0) or meta.get("documents_removed", 0)
    }
    assert not changed


def test_every_sample_question_reads_the_same(reingested, ingested, truth):
    settings, _ = reingested
    for fact in truth["facts"]:
        args = {"workspaces": fact.get("workspaces"), "bridge": fact.get("bridge") or ()}
        fixed_day, that_day = (
            query(fact["query"], settings=ingested, **args),
            query(fact["query"], settings=settings, **args),
        )
        assert [(r.path, r.band) for r in that_day.results] == [(r.path, r.band) for r in fixed_day.results], fact
        assert [h.to_dict() for h in that_day.hints] == [h.to_dict() for h in fixed_day.hints], fact
