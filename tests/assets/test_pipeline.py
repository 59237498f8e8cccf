"""A full in-process materialisation of the sample vault, checked against its truth file."""

from __future__ import annotations

from typing import get_args

import pytest

from lucasrag.catalog import read_catalog
from lucasrag.index import open_chunk_store
from lucasrag.vocabulary import WORKSPACES, BandRule

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def catalog(ingested) -> dict[str, dict]:
    return {row["path"]: row for row in read_catalog(ingested).to_dicts()}


def test_every_vault_file_has_one_row(catalog, truth):
    assert set(catalog) == set(truth["notes"])


def test_ignored_files_never_appear(catalog):
    assert not [p for p in catalog if p.startswith(".") or "/." in p or not p.endswith(".md")]


def test_statuses_match_truth(catalog, truth):
    wrong = {
        p: (catalog[p]["status"], t["status"]) for p, t in truth["notes"].items() if catalog[p]["status"] != t["status"]
    }
    assert not wrong


def test_invalid_files_carry_reasons(catalog):
    invalid = {p: r["reason"] for p, r in catalog.items() if r["status"] == "invalid"}
    assert "binary" in invalid["inbox/binary.md"].lower()
    assert "utf-8" in invalid["inbox/latin1.md"].lower()
    assert "empty" in invalid["inbox/empty.md"].lower()
    assert (
        "frontmatter" in invalid["inbox/broken-frontmatter.md"].lower()
        or "yaml" in invalid["inbox/broken-frontmatter.md"].lower()
    )


def test_quarantined_notes_have_reason_and_suggestion(catalog):
    held = [r for r in catalog.values() if r["status"] == "quarantined"]
    assert held and all(r["reason"] and r["suggestion"] in WORKSPACES for r in held)


def test_routing_accuracy_on_sample_vault(catalog, truth):
    """Every indexed note lands in its true workspace (the router's measured accuracy; see docs/routing.md)."""
    indexed = {p: t for p, t in truth["notes"].items() if t["status"] == "indexed"}
    wrong = {
        p: (catalog[p]["workspace"], t["workspace"])
        for p, t in indexed.items()
        if catalog[p]["workspace"] != t["workspace"]
    }
    assert len(wrong) <= len(indexed) * 0.05, wrong


def test_bands_dates_and_charged_match_truth(catalog, truth):
    indexed = {p: t for p, t in truth["notes"].items() if t["status"] == "indexed"}
    assert {p: catalog[p]["band"] for p in indexed} == {p: t["band"] for p, t in indexed.items()}
    assert {p: catalog[p]["date"] for p in indexed} == {p: t["date"] for p, t in indexed.items()}
    assert {p: sorted(catalog[p]["charged"]) for p in indexed} == {p: sorted(t["charged"]) for p, t in indexed.items()}


def test_index_contents_match_catalog(ingested, catalog):
    for ws in WORKSPACES:
        store = open_chunk_store(ingested, ws)
        try:
            records = store.all_records()
        finally:
            store.close()
        expected = {p for p, r in catalog.items() if r["status"] == "indexed" and r["workspace"] == ws}
        assert {r.path for r in records} == expected
        assert all(r.workspace == ws and r.band_rule in get_args(BandRule) for r in records)


def test_each_workspace_has_its_own_folder(ingested):
    for ws in WORKSPACES:
        folder = ingested.workspace_dir(ws)
        assert (folder / "chunks.sqlite").is_file()
        assert (folder / "lightrag.sqlite").is_file()
