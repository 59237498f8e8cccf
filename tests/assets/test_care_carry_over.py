"""A long entry is cut into chunks by length: a later chunk that goes on about a deference subject by pronoun
("He would have hated …") is withheld like the chunk that names him, end to end (ingest → query)."""

from __future__ import annotations

import json

import polars as pl
import pytest

from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.io_manager import asset_value_path
from lucasrag_query import query

pytestmark = pytest.mark.slow

FIRST = (  # three paragraphs: the note's first two lines do not name him (those would cover every chunk)
    "Drove out to the cemetery this morning because it was the first warm Saturday in weeks.\n\n"
    "The car park was half full, families with flowers wrapped in brown paper, an old man with a folding chair "
    "who sat by a grave and read the paper aloud. I brought nothing, which felt wrong. There is a bench by the "
    "wall with a brass plaque for a woman who loved this place, and I sat on it and watched the crows.\n\n"
    "Grandad's stone is more weathered than I remembered, and somebody has planted a row of small box hedges "
    "along the path that were not there last spring. I stood there for a long time, then walked the long way "
    "round past the allotments and the old railway line."
)
SECOND = (
    "He would have hated the new fence, the green mesh one the council put up along the back. He hated "
    "anything that looked temporary. I cried in the car with the engine running and the radio on the "
    "shipping forecast, and then I drove home the slow way through Marlowfield, past the garage where the "
    "pumps have been taken out and the bakery that still puts its day-old loaves on a trolley by the door. "
    "The light was going orange over the quarry and the road was empty apart from a tractor that I followed "
    "for two miles at twenty, which I did not mind at all. At home I made tea and did not drink it, and sat "
    "at the kitchen table with the window open listening to the neighbours' children on the trampoline. "
    "Later the rain came in from the west, heavy for ten minutes and then nothing, and the gutters ran over "
    "the back step the way they always do when the leaves have not been cleared since the autumn."
)
THIRD = "His flat cap is still on the hook in the hall. I moved it to dust and put it straight back."


def test_a_later_chunk_that_goes_on_by_pronoun_is_withheld(fresh_vault):
    settings = fresh_vault
    note = settings.vault / "journal" / "2026-03-14.md"
    note.write_text(f"---\ndate: 2026-03-14\n---\n\n{FIRST}\n\n{SECOND}\n\n{THIRD}\n", encoding="utf-8")
    run_ingest(settings)

    chunks = pl.read_parquet(asset_value_path(settings.data, ["banded_chunks"])).filter(
        pl.col("path") == "journal/2026-03-14.md"
    )
    assert chunks.height == 3, "the entry must span three chunks for this test to mean anything"
    for word in ("new fence", "flat cap"):  # the second chunk goes on from the first, the third from the second
        later = chunks.filter(pl.col("text").str.contains(word))
        assert "Grandad" not in later["text"][0]
        assert later["charged"][0].to_list() == ["Grandad Tom"]
        (care,) = json.loads(later["care"][0])
        assert care["reference"].startswith('an earlier chunk names "Grandad\'s"') and care["outcome"] == "withheld"

    result = query("the new fence the council put up by the shipping forecast", settings=settings)
    assert not any("new fence" in r.text for r in result.results)
    assert any(h.subject == "Grandad Tom" and h.kind == "deference" for h in result.hints), result.hints
    bridged = query(
        "the new fence the council put up by the shipping forecast", bridge=["Grandad Tom"], settings=settings
    )
    assert any("new fence" in r.text for r in bridged.results)
