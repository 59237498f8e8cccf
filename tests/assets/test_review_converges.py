"""Quarantine reviews converge: approving k notes lowers pending by k, and no unchanged indexed
note leaves the index or changes workspace because the router learned from the approvals or from new
notes — on the sample vault with every `workspace:` key stripped, so that the router decides everything."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from lucasrag.catalog import read_catalog
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.io_manager import asset_value_path
from lucasrag_assets.routing_decisions import approve_quarantined

pytestmark = pytest.mark.slow

NEW = {
    "inbox/garden plan.md": "Plant the garlic in October, the beans after the last frost; water the tomatoes daily.\n",
    "inbox/router notes.md": "Postgres vacuum settings and the nginx reload I keep forgetting: systemctl reload nginx.\n",
}


def _state(settings) -> dict[str, tuple[str, str | None]]:
    return {r["path"]: (r["status"], r["workspace"]) for r in read_catalog(settings).to_dicts()}


def test_approvals_and_new_notes_never_move_an_unchanged_note(fresh_vault):
    settings = fresh_vault
    for note in settings.vault.rglob("*.md"):
        raw = note.read_bytes()
        if raw.startswith(b"---"):
            note.write_bytes(re.sub(rb"^workspace[ \t]*:.*\r?\n", b"", raw, count=1, flags=re.MULTILINE))
    run_ingest(settings)
    before = _state(settings)
    pending = sorted(p for p, (status, _) in before.items() if status == "quarantined")
    assert len(pending) >= 3, pending
    approved = pending[:2]
    for path in approved:
        approve_quarantined(settings, path, "personal")
    for rel, text in NEW.items():
        (settings.vault / rel).write_text(text)
    run_ingest(settings)
    after = _state(settings)

    moved = {p: (before[p], after[p]) for p in before if before[p][0] == "indexed" and after[p] != before[p]}
    assert moved == {}, "an unchanged indexed note left the index or changed workspace"
    still = {p for p, (status, _) in after.items() if status == "quarantined" and p in before}
    assert still <= set(pending) - set(approved)
    assert len(still) <= len(pending) - len(approved)
    assert all(after[p] == ("indexed", "personal") for p in approved)
    kept = [r for r in read_catalog(settings).to_dicts() if (r.get("reason") or "").startswith("kept in")]
    assert kept == []  # a catalogue reason is for quarantined and invalid notes: a kept note reads as indexed


# The shared data folder sits beside the checkout (../shared), or where this machine keeps it.
KEPANO = next(
    (
        root / "data" / "vaults" / "kepano-obsidian"
        for root in (Path(__file__).resolve().parents[3] / "shared", Path("/work/shared"))
        if (root / "data" / "vaults" / "kepano-obsidian").is_dir()
    ),
    Path("/nonexistent"),
)


@pytest.mark.skipif(not KEPANO.is_dir(), reason="the shared MIT vault (kepano-obsidian) is not on this machine")
def test_an_approval_on_a_real_vault_moves_nothing_else(tmp_path, settings_for):
    """kepano-obsidian (MIT): approving "Product usage analysis" into administrative made the router move
    the unchanged "Buy wisely" from personal to administrative ("router learning") before notes kept their place."""
    vault = tmp_path / "vault"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".git"))
    settings = settings_for(vault, tmp_path / "data")
    run_ingest(settings)
    before = _state(settings)
    approve_quarantined(settings, "Notes/Product usage analysis.md", "administrative")
    run_ingest(settings)
    after = _state(settings)
    assert {p for p in before if after[p] != before[p]} == {"Notes/Product usage analysis.md"}
    reason = next(
        r["route_reason"]
        for r in pl.read_parquet(asset_value_path(settings.data, ["routed_documents"])).to_dicts()
        if r["path"] == "Clippings/Buy wisely.md"
    )
    assert reason.startswith(
        "kept in personal: unchanged since the last ingest; the router would now place it in administrative"
    ), reason
