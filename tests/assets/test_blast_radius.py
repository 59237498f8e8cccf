"""Blast radius of a fault in one workspace's index step (embedded profile).

Another program holds the write lock of the personal workspace's ``chunks.sqlite`` (a database browser with
an open transaction, a backup tool) while an ingest runs on a vault with a change in every workspace. The
personal step fails, naming the workspace, the file and the lock; every other workspace's step still runs
to the end (Dagster's executor goes on with the steps that do not depend on a failed one) and its change
is searchable; the personal workspace keeps its last complete state, stores and answers; the steps that
need every workspace (the catalogue) are reported as not run. Once the lock is gone the next plain ingest
heals: the indexes equal a clean build of the same vault. Both executors: in process (``lucasrag ingest``) and
multiprocess (every step a process of its own, as the code location runs under the daemon).
"""

from __future__ import annotations

import sqlite3

import pytest

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.ingest import IngestFailed, run_ingest

pytestmark = pytest.mark.slow

NOTES = {
    "tech/vacuum.md": "---\nworkspace: technical\n---\nPostgres vacuum tuning on the zebra cluster.\n",
    "journal/2026-05-01.md": "---\nworkspace: personal\n---\nRode tram 28 to Graça with Ellie; zebra crossing.\n",
    "admin/lease.md": "---\nworkspace: administrative\n---\nLisbon lease on zebra street; rent due on the first.\n",
    "writing/haiku.md": "---\nworkspace: creative\n---\nZebra crossing light / trams hum down the hill\n",
}
ADDED = {  # one new line per workspace, each a word no note had before
    "tech/vacuum.md": "autovacuum naptime is now fifteen seconds: quokka.",
    "journal/2026-05-01.md": "Ellie brought pastéis de nata: wombat.",
    "admin/lease.md": "The deposit is two months of rent: platypus.",
    "writing/haiku.md": "evening folds its wings: numbat",
}
WORKSPACE_OF = {
    "tech/vacuum.md": "technical",
    "journal/2026-05-01.md": "personal",
    "admin/lease.md": "administrative",
    "writing/haiku.md": "creative",
}


def _texts(records: dict[str, list[tuple]], workspace: str) -> str:
    return " ".join(text for *_, text in records[workspace])


def _lightrag_bytes(settings) -> dict[str, bytes]:
    """The bytes of personal's LightRAG files: its rows (lightrag.sqlite), document status and graph."""
    folder = settings.workspace_dir("personal")
    files = [*folder.glob("*.json"), *folder.glob("*.graphml"), folder / "lightrag.sqlite"]
    return {p.name: p.read_bytes() for p in files}


@pytest.mark.parametrize("multiprocess", [False, True], ids=["in-process", "multiprocess"])
def test_a_failed_workspace_step_leaves_the_others_to_complete(
    notes_vault, tmp_path, settings_for, index_records, multiprocess
):
    from lucasrag_query import query

    vault = notes_vault(tmp_path / "vault", NOTES)
    settings = settings_for(vault, tmp_path / "data")
    run_ingest(settings)
    before = index_records(settings)
    lightrag_before = _lightrag_bytes(settings)
    for rel, line in ADDED.items():
        (vault / rel).write_text(NOTES[rel] + "\n" + line + "\n")

    holder = sqlite3.connect(settings.workspace_dir("personal") / "chunks.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock: readers go on, every writer waits and gives up
    try:
        with pytest.raises(IngestFailed) as info:
            run_ingest(settings, multiprocess=multiprocess)
    finally:
        holder.rollback()
        holder.close()
    failed = info.value
    print(f"\n{failed}")
    assert failed.workspaces == ("personal",), failed.failed
    assert "chunks.sqlite" in failed.failed[0].message and "locked" in failed.failed[0].message, failed.failed
    assert set(failed.updated) == set(WORKSPACES) - {"personal"}
    assert "note_catalog" in failed.not_run

    during = index_records(settings)
    for rel, line in ADDED.items():
        ws = WORKSPACE_OF[rel]
        assert (line in _texts(during, ws)) == (ws != "personal"), ws
    assert during["personal"] == before["personal"]  # its last complete state, LightRAG's files included
    assert _lightrag_bytes(settings) == lightrag_before
    for rel, line in ADDED.items():
        word = line.rstrip(".").split()[-1]
        found = " ".join(r.text for r in query(word, settings=settings).results)
        assert (word in found) == (WORKSPACE_OF[rel] != "personal"), (word, found)
    assert "zebra crossing" in " ".join(r.text for r in query("tram Graça Ellie", settings=settings).results).lower()

    run_ingest(settings)  # the lock is gone: heals
    healed = index_records(settings)
    clean = settings_for(vault, tmp_path / "clean")
    run_ingest(clean)
    assert healed == index_records(clean)
