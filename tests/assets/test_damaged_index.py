"""Damaged files in the data folder (truncated as a full disk or a crash of the file system leaves them):
a workspace's chunk store (SQLite) or one of its LightRAG stores (JSON), and the embedding cache.

Detected and reported with the fix (``lucasrag ingest --rebuild WORKSPACE``) naming the file; the other
workspaces still answer (and a plain ingest still updates them); the rebuild gives back what was indexed; a damaged embedding cache is moved
aside and computed again (it holds nothing the model cannot recompute)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.ingest import IngestFailed, run_ingest

pytestmark = pytest.mark.slow

NOTES = {
    "tech/vacuum.md": "---\nworkspace: technical\n---\nPostgres vacuum tuning: autovacuum_naptime 15s on the zebra cluster.\n",
    "journal/2026-05-01.md": "---\nworkspace: personal\n---\nRode tram 28 to Graça with Ellie; coffee at the zebra miradouro.\n",
    "admin/lease.md": "---\nworkspace: administrative\n---\nLisbon lease: zebra street, rent due on the first, deposit two months.\n",
    "writing/haiku.md": "---\nworkspace: creative\n---\nZebra crossing light / trams hum down the Lisbon hill / evening folds its wings\n",
}


def _truncate(path):
    os.truncate(path, max(1, path.stat().st_size // 2))


def cli_query(settings, repo, *workspaces):
    """``lucasrag query zebra --json`` in a process of its own (as a query reads the files an ingest left)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(repo),
        "LUCASRAG_VAULT": str(settings.vault),
        "LUCASRAG_DATA": str(settings.data),
        "LUCASRAG_NOW": settings.now.isoformat(),
    }
    args = [a for ws in workspaces for a in ("--workspace", ws)]
    proc = subprocess.run(
        [sys.executable, "-c", "from lucasrag_cli import app; app()", "query", "zebra", "--json", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc.returncode, json.loads(proc.stdout) if proc.returncode == 0 else " ".join(proc.stderr.split())


def test_a_damaged_workspace_is_named_the_others_answer_and_rebuild_heals(
    notes_vault, tmp_path, settings_for, repo, index_records
):
    vault = notes_vault(tmp_path / "vault", NOTES)
    settings = settings_for(vault, tmp_path / "data")
    run_ingest(settings)
    before = index_records(settings)
    assert all(before.values())

    _truncate(settings.workspace_dir("personal") / "chunks.sqlite")
    _truncate(settings.workspace_dir("technical") / "lightrag.sqlite")
    _truncate(settings.data / "embeddings.sqlite")

    rc, result = cli_query(settings, repo)
    assert rc == 0, result
    assert {r["workspace"] for r in result["results"]} == {"administrative", "creative"}
    damaged = {h["message"] for h in result["hints"] if h["kind"] == "damaged"}
    assert any("personal index is damaged" in m and "chunks.sqlite" in m for m in damaged), damaged
    assert any("technical index is damaged" in m and "lightrag.sqlite" in m for m in damaged), damaged
    assert all("`lucasrag ingest --rebuild " in m for m in damaged)
    rc, message = cli_query(settings, repo, "personal")  # nothing left to answer from: a clear error
    assert rc == 1 and "the personal index is damaged" in message and "--rebuild personal" in message, message

    with pytest.raises(IngestFailed) as info:
        run_ingest(settings)  # a plain ingest names each damaged workspace and how to fix it; the others run
    # personal's chunk store is read by every sync; technical's LightRAG files only when a technical note changed
    assert info.value.workspaces == ("personal",), info.value.failed
    failure = info.value.failed[0]
    assert failure.error == "IndexDamaged" and "lucasrag ingest --rebuild personal" in failure.message
    assert {"administrative", "creative"} <= set(info.value.updated)

    (vault / "tech/new.md").write_text("---\nworkspace: technical\n---\nA new note about zebra-striped racks.\n")
    run_ingest(settings, rebuild=["personal", "technical"])
    assert (settings.data / "embeddings.sqlite.damaged").exists()  # moved aside, vectors computed again
    with sqlite3.connect(settings.data / "embeddings.sqlite") as cache:
        assert cache.execute("SELECT count(*) FROM model_vectors").fetchone()[0] >= len(NOTES) + 1
    after = index_records(settings)
    assert after["personal"] == before["personal"]
    assert after["administrative"] == before["administrative"] and after["creative"] == before["creative"]
    assert set(before["technical"]) < set(after["technical"])
    rc, result = cli_query(settings, repo)
    assert rc == 0, result
    assert {r["workspace"] for r in result["results"]} == set(WORKSPACES)
    assert not [h for h in result["hints"] if h["kind"] == "damaged"]
