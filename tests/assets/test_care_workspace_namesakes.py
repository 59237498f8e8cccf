"""A bare first name in technical notes that name a namesake in full is the namesake, end to end: released at ingest,
withheld again once the technical notes stop naming him (the chunk memo is keyed on it), and never in the diary."""

from __future__ import annotations

import json

import polars as pl
import pytest

from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.io_manager import asset_value_path

pytestmark = pytest.mark.slow

NOTES = {
    "work/1-1 okafor.md": "1-1 with Dan Okafor about the migration plan: consumers first.",
    "work/queue review.md": "Dan Okafor reviewed the queue PR; two comments, both fixed.",
    "work/merge.md": "Dan reviewed my PR and merged it after lunch.",
}
DIARY = "journal/2026-04-01.md"


def _dan(settings, path: str) -> dict:
    chunks = pl.read_parquet(asset_value_path(settings.data, ["banded_chunks"])).filter(pl.col("path") == path)
    return next(a for a in json.loads(chunks["care"][0]) if a["subject"] == "Dan")


def test_a_bare_name_in_work_notes_that_name_a_namesake_is_the_namesake(fresh_vault):
    settings = fresh_vault
    deference = settings.vault / ".lucasrag" / "deference.yaml"
    deference.write_text(deference.read_text() + "  - name: Dan\n    aliases: [daniel]\n")
    for path, body in NOTES.items():
        (settings.vault / path).parent.mkdir(parents=True, exist_ok=True)
        (settings.vault / path).write_text(f"---\ndate: 2026-04-02\nworkspace: technical\n---\n{body}\n")
    (settings.vault / DIARY).write_text("---\ndate: 2026-04-01\nworkspace: personal\n---\nDan texted. Didn't reply.\n")
    run_ingest(settings)

    merged = _dan(settings, "work/merge.md")
    assert (merged["outcome"], merged["source"]) == ("released", "resolution")
    assert "Dan Okafor, whom the technical notes name in full" in merged["why"]
    assert _dan(settings, DIARY)["outcome"] == "withheld"  # a personal note: the bare name is the subject

    (settings.vault / "work/queue review.md").unlink()  # one note naming him in full is not enough
    run_ingest(settings)
    merged = _dan(settings, "work/merge.md")
    assert (merged["outcome"], merged["source"]) == ("withheld", "inferred")
