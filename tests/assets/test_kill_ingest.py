"""``kill -9`` of ``lucasrag ingest`` at a seeded random moment, then a normal ingest: the indexes equal a
clean build of the same vault and the vault's bytes are unchanged.

Each seed draws a delay inside the span a clean ingest of the vault takes here (counted from the moment
the ingest holds the data folder's lock, so the kill lands in the Dagster run, not in the imports) and
SIGKILLs the CLI subprocess; the Dagster instance then says which step was running (scan, routing,
chunks, an index step — embedding, index write, graph write — or the catalogue). Seed 0 kills a first
ingest; the others kill the re-ingest of an edited vault (a note changed, one deleted, one added), where a
dead run has already removed rows the next one must not lose track of.

"Equal" is read from the stores themselves, not through LucasRAG's adapter: every LucasRAG chunk row
(id, band, date, charged, hash, fingerprint), every key of every LightRAG store (JSON files on the
embedded profile; the ``lightrag_*`` tables by workspace and Neo4j's nodes and edges by label in
production) and the graph counts — so a duplicate, a lost or an orphaned row anywhere fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lucasrag.index._lightrag._sqlite_file import stored_keys
from lucasrag.settings import ENV_VARS, SECRET_FIELDS, Settings
from lucasrag.vocabulary import WORKSPACES

pytestmark = pytest.mark.slow

SEEDS = (0, 1, 2)
NOTES = (
    "admin/2019-08-12 manchester council tax.md",
    "admin/lease/2024-01-28 lisbon lease.md",
    "inbox/ideas.md",
    "journal/2012-10-06 grandad's funeral.md",
    "journal/2024-02-20 arrived in lisbon.md",
    "personal/recipes/grandad tom's lamb stew.md",
    "tech/postgres-vacuum-notes.md",
    "tech/nginx-cheatsheet.md",
    "tech/homelab.md",
    "writing/haiku for lisbon.md",
    "writing/poems/rain on hyde park road.md",
    ".lucasrag/deference.yaml",
)


def small_vault(sample: Path, dest: Path) -> Path:
    for rel in NOTES:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(sample / rel, dest / rel)
    return dest


def edit_vault(vault: Path) -> None:
    """One note changed, one deleted, one added (what the re-ingest that is killed has to do)."""
    with (vault / "tech/postgres-vacuum-notes.md").open("a", encoding="utf-8") as fh:
        fh.write("\n\nUpdate: autovacuum_naptime is 15s since the zebra-migration incident.\n")
    (vault / "tech/nginx-cheatsheet.md").unlink()
    (vault / "journal/2026-05-01 tram 28.md").write_text(
        "---\ndate: 2026-05-01\nworkspace: personal\n---\nRode tram 28 to Graça with Ellie; coffee at the miradouro.\n"
    )


def vault_bytes(vault: Path) -> dict[str, str]:
    return {
        str(p.relative_to(vault)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(vault.rglob("*"))
        if p.is_file()
    }


# --------------------------------------------------------------------------- what is stored, read raw


def _lucasrag_rows(settings: Settings) -> dict:
    from lucasrag.index import open_chunk_store

    out = {}
    for ws in WORKSPACES:
        store = open_chunk_store(settings, ws)
        try:
            records = sorted(store.all_records(), key=lambda r: r.chunk_id)
            fingerprints = store.doc_fingerprints()
            vectors = store.vectors([r.chunk_id for r in records])
        finally:
            store.close()
        ids = [r.chunk_id for r in records]
        assert len(ids) == len(set(ids)), f"{ws}: duplicate chunk rows"
        assert {r.doc_id for r in records} <= set(fingerprints), f"{ws}: chunk rows of an unrecorded document"
        out[ws] = {
            "records": records,
            "fingerprints": fingerprints,
            "vectors": [round(float(x), 4) for x in vectors.sum(axis=1)] if len(ids) else [],
        }
    return out


def _lightrag_files(settings: Settings) -> dict:
    """Every key of every LightRAG store per workspace: lightrag.sqlite's key-value, vector and graph rows
    (nodes, edges) and the document-status JSON file."""
    out = {}
    for ws in WORKSPACES:
        folder = settings.workspace_dir(ws)
        stores: dict = stored_keys(folder)
        for path in sorted(folder.glob("*.json")):
            keys = list(json.loads(path.read_text()))
            assert len(keys) == len(set(keys)), f"{ws}/{path.name}: duplicate keys"
            stores[path.name] = sorted(keys)
        out[ws] = stores
    assert any(out.values()), "no LightRAG store found"
    return out


def _lightrag_servers(settings: Settings) -> dict:
    """Every id of every ``lightrag_*`` table per workspace, and each workspace's Neo4j nodes and edges."""
    import neo4j
    import psycopg

    out: dict = {ws: {} for ws in WORKSPACES}
    with psycopg.connect(settings.postgres_dsn, autocommit=True) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.columns WHERE table_name LIKE 'lightrag_%%'"
                " AND column_name = 'workspace' ORDER BY table_name"
            )
        ]
        for table in tables:
            for ws in WORKSPACES:
                ids = [r[0] for r in conn.execute(f"SELECT id FROM {table} WHERE workspace = %s", (ws,))]
                assert len(ids) == len(set(ids)), f"{ws}/{table}: duplicate ids"
                out[ws][table] = sorted(ids)
    with neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password)) as d:
        for ws in WORKSPACES:
            nodes, _, _ = d.execute_query(f"MATCH (n:`{ws}`) RETURN n.entity_id AS id", database_="neo4j")
            edges, _, _ = d.execute_query(
                f"MATCH (a:`{ws}`)-[r]-(b:`{ws}`) WHERE a.entity_id < b.entity_id RETURN a.entity_id AS a, b.entity_id AS b",
                database_="neo4j",
            )
            out[ws]["neo4j"] = (sorted(r["id"] for r in nodes), sorted((r["a"], r["b"]) for r in edges))
    return out


def stored(settings: Settings) -> dict:
    from lucasrag.index import read_graph_counts

    lightrag = _lightrag_servers(settings) if settings.profile == "production" else _lightrag_files(settings)
    graph_counts = {ws: read_graph_counts(settings, ws) for ws in WORKSPACES}
    return {"lucasrag": _lucasrag_rows(settings), "lightrag": lightrag, "graph_counts": graph_counts}


def assert_same(healed: dict, clean: dict) -> None:
    for part in clean:
        for ws in WORKSPACES:
            assert healed[part][ws] == clean[part][ws], f"{part}/{ws} differs from the clean build"


# --------------------------------------------------------------------------- the killed run


def _cli_env(settings: Settings, dagster_home: Path, repo: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUCASRAG_")}
    for name, var in ENV_VARS.items():
        value = getattr(settings, name)
        if value is None or (name in SECRET_FIELDS and value == ""):
            continue
        env[var] = (
            value.isoformat() if name == "now" else ("1" if value is True else "0" if value is False else str(value))
        )
    env.update(DAGSTER_HOME=str(dagster_home), PYTHONPATH=str(repo), COLUMNS="120")
    return env


def _step_stats(instance) -> tuple[str | None, dict]:
    runs = instance.get_runs(limit=1)
    if not runs:
        return None, {}
    return runs[0].run_id, {s.step_key: s for s in instance.get_run_step_stats(runs[0].run_id)}


def kill_ingest_in_step(settings: Settings, step: str, delay: float, dagster_home: Path, repo: Path, monkeypatch):
    """Start ``lucasrag ingest``, SIGKILL it ``delay`` seconds after Dagster starts ``step``; returns the
    step(s) that had started and not finished when it died (read from the run's event log)."""
    from lucasrag_assets.ingest import open_instance

    monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
    with open_instance(settings) as instance:  # created here, before the CLI opens it too
        proc = subprocess.Popen(
            [sys.executable, "-c", "from lucasrag_cli import app; app()", "ingest"],
            env=_cli_env(settings, dagster_home, repo),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 600
            while step not in _step_stats(instance)[1]:
                assert proc.poll() is None, f"the ingest ended before {step} started: {proc.stderr.read()[-2000:]}"
                assert time.monotonic() < deadline, f"{step} never started"
                time.sleep(0.05)
            time.sleep(delay)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait()
        # The delay is drawn over the step's duration in a warm in-process build; a fresh CLI process may run the
        # step faster than that, or the step was seen late: if the run ended first, nothing was killed.
        if proc.returncode == 0:
            return "after the run had ended (the signal came late)"
        assert proc.returncode == -signal.SIGKILL
        _, stats = _step_stats(instance)
    live = [key for key, s in stats.items() if s.end_time is None]
    return ", ".join(live) or f"between steps ({len(stats)} done)"


def check_kill_and_heal(profile_settings, tmp_path, repo, monkeypatch, reset_servers=lambda: None) -> list[str]:
    """Clean builds of the first and the edited vault, then per seed a killed ingest and a healing one.

    Seed 0 kills the first ingest inside any of its steps; the others kill the re-ingest of the edited
    vault inside the index step of a workspace whose documents changed. The moment inside the step is
    uniform over the duration that step took in the clean build."""
    from lucasrag_assets.ingest import run_ingest

    sample = repo / "vault"
    clean: dict[str, dict] = {}
    steps: dict[str, dict[str, float]] = {}
    for state in ("first", "edited"):
        vault = small_vault(sample, tmp_path / f"clean-{state}" / "vault")
        if state == "edited":
            edit_vault(vault)
        settings = profile_settings(vault, tmp_path / f"clean-{state}" / "data")
        reset_servers()
        monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / f"clean-{state}" / "dagster"))
        steps[state] = run_ingest(settings).step_seconds
        clean[state] = stored(settings)
    report = []
    for seed in SEEDS:
        rng = random.Random(seed)
        state = "first" if seed == 0 else "edited"
        root = tmp_path / f"seed{seed}"
        vault = small_vault(sample, root / "vault")
        settings = profile_settings(vault, root / "data")
        reset_servers()
        monkeypatch.setenv("DAGSTER_HOME", str(root / "dagster"))
        if state == "edited":
            run_ingest(settings)
            edit_vault(vault)
            step = rng.choice(["technical_index", "personal_index"])
        else:
            step = rng.choice(sorted(steps[state]))
        delay = rng.uniform(0.0, steps[state][step])
        before = vault_bytes(vault)
        where = kill_ingest_in_step(settings, step, delay, root / "killed-dagster", repo, monkeypatch)
        monkeypatch.setenv("DAGSTER_HOME", str(root / "dagster"))
        run_ingest(settings)
        assert vault_bytes(vault) == before, "the vault changed"
        assert_same(stored(settings), clean[state])
        report.append(f"seed {seed} ({state} ingest): killed {delay:.2f}s after {step} started, during {where}; healed")
    print("\n" + "\n".join(report))
    return report


def test_kill_9_at_random_points_heals_to_a_clean_build(tmp_path, repo, monkeypatch, settings_for):
    check_kill_and_heal(settings_for, tmp_path, repo, monkeypatch)


@pytest.mark.production
def test_kill_9_at_random_points_heals_to_a_clean_build_in_production(
    tmp_path, repo, monkeypatch, production_settings, neo4j_server, clean_neo4j
):
    # Neo4j is shared by every data folder of the session (workspace labels): each build starts empty.
    check_kill_and_heal(production_settings, tmp_path, repo, monkeypatch, lambda: clean_neo4j(neo4j_server))


# --------------------------------------------------------------------------- orphan rows


class LockWhenIndexing:
    """A ``Progress`` that, once ``workspace``'s index step has written its first batch into LightRAG, takes the
    write lock of that workspace's chunk store from another connection (as a second program would): the step
    flushes LightRAG and then cannot commit its chunk store, the state a run killed between the two leaves."""

    def __init__(self, settings: Settings, workspace: str) -> None:
        self.stage, self.path = f"index {workspace}", settings.workspace_dir(workspace) / "chunks.sqlite"
        self.holder = None

    def update(self, stage: str, done: int, total: int) -> None:
        if stage == self.stage and self.holder is None:
            import sqlite3

            self.holder = sqlite3.connect(self.path, isolation_level=None)
            self.holder.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        if self.holder is not None:
            self.holder.rollback()
            self.holder.close()


def test_a_note_written_by_a_stopped_run_then_deleted_leaves_no_orphan_rows(tmp_path, repo, settings_for):
    """A note added, written into LightRAG by a run that stopped before its chunk store's transaction, then
    deleted from the vault before the next ingest: the next ingest removes it from LightRAG (the run's
    intent record in the chunk store names it), so the stores equal a clean build's."""
    from lucasrag_assets.ingest import IngestFailed, run_ingest
    from lucasrag_assets.rules.chunking import doc_id

    vault = small_vault(repo / "vault", tmp_path / "vault")
    settings = settings_for(vault, tmp_path / "data")
    run_ingest(settings)
    added = vault / "tech/orphan zebra rack.md"
    added.write_text("---\nworkspace: technical\n---\nA zebra-striped rack for the homelab, bought and returned.\n")
    fault = LockWhenIndexing(settings, "technical")
    try:
        with pytest.raises(IngestFailed, match="technical index is locked") as info:
            run_ingest(settings, fault)
    finally:
        fault.release()
    assert info.value.workspaces == ("technical",)
    full_docs = stored_keys(settings.workspace_dir("technical"))["kv:full_docs"]
    assert doc_id("tech/orphan zebra rack.md") in full_docs  # the fault landed after LightRAG's flush

    added.unlink()
    before = vault_bytes(vault)
    run_ingest(settings)
    assert vault_bytes(vault) == before
    clean = settings_for(small_vault(repo / "vault", tmp_path / "clean-vault"), tmp_path / "clean")
    run_ingest(clean)
    assert_same(stored(settings), stored(clean))


# --------------------------------------------------------------------------- two runs' steps alternating


def test_an_older_run_s_later_steps_after_a_newer_run_end_in_the_newer_state(tmp_path, repo, settings_for, monkeypatch):
    """With the multiprocess executor each step holds the data folder's lock for itself, so two daemon runs'
    steps may alternate. The worst case, stepped through in process: run A scans, routes and chunks the
    vault; the vault is edited (a note changed, one deleted, one added) and run B ingests it whole; then A's
    index and catalogue steps run. They read B's outputs (a step loads its inputs from the data folder under
    the lock), so the stores end equal to a clean build of the edited vault: nothing of A's older scan
    (the deleted note) comes back."""
    from dagster import AssetKey

    from lucasrag_assets.definitions import build_definitions
    from lucasrag_assets.ingest import open_instance, run_ingest
    from lucasrag_assets.resources import LucasragSettings

    vault = small_vault(repo / "vault", tmp_path / "vault")
    settings = settings_for(vault, tmp_path / "data")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    run_ingest(settings)
    job = build_definitions(LucasragSettings.from_settings(settings)).resolve_job_def("ingest")
    first_half = [AssetKey(k) for k in ("vault_notes", "routed_documents", "quarantine", "banded_chunks")]
    second_half = [AssetKey(f"{ws}_index") for ws in WORKSPACES] + [AssetKey("note_catalog")]
    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    with open_instance(settings) as instance:
        assert job.execute_in_process(instance=instance, asset_selection=first_half, run_config=quiet).success  # A
        edit_vault(vault)
        run_ingest(settings)  # run B, whole, between A's steps
        assert job.execute_in_process(instance=instance, asset_selection=second_half, run_config=quiet).success
    clean = settings_for(tmp_path / "clean-vault", tmp_path / "clean")
    shutil.copytree(vault, clean.vault)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "clean-dagster"))
    run_ingest(clean)
    assert_same(stored(settings), stored(clean))


# --------------------------------------------------------------------------- killed between two store saves

KILL_AT_SAVE = """
import os, sys
from lucasrag.index._lightrag._sqlite_doc_status import SqliteDocStatusStorage
from lucasrag.index._lightrag._sqlite_graph import SqliteGraphStorage
from lucasrag.index._lightrag._sqlite_kv import SqliteKVStorage
from lucasrag.index._lightrag._sqlite_vectors import SqliteVectorStorage

kill_at, seen = int(os.environ["KILL_AT_SAVE"]), [0]

def counted(cls):
    save = cls.index_done_callback
    async def index_done_callback(self):
        if self.workspace == "technical":
            seen[0] += 1
            if seen[0] == kill_at:
                os._exit(137)  # as kill -9: nothing after this point is saved
        return await save(self)
    cls.index_done_callback = index_done_callback

for cls in (SqliteKVStorage, SqliteDocStatusStorage, SqliteVectorStorage, SqliteGraphStorage):
    counted(cls)
sys.argv = ["lucasrag", "ingest"]
from lucasrag_cli import app
app()
"""


def test_a_run_killed_between_any_two_store_saves_heals_to_a_clean_build(tmp_path, repo, monkeypatch, settings_for):
    """The embedded stores are files saved one after another; a kill between two saves leaves some with the
    run's changes and some without. For EVERY point in technical's save sequence of the edited-vault ingest
    (which deletes a note with entities, changes one and adds one), the next ingest equals a clean build."""
    from lucasrag_assets.ingest import run_ingest

    clean_vault = small_vault(repo / "vault", tmp_path / "clean" / "vault")
    edit_vault(clean_vault)
    clean = settings_for(clean_vault, tmp_path / "clean" / "data")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "clean" / "dagster"))
    run_ingest(clean)
    want = stored(clean)

    vault = small_vault(repo / "vault", tmp_path / "vault")
    base = settings_for(vault, tmp_path / "base")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "base-dagster"))
    run_ingest(base)
    edit_vault(vault)
    before = vault_bytes(vault)
    killed_at = []
    for kill_at in range(1, 40):
        root = tmp_path / f"kill{kill_at}"
        shutil.copytree(base.data, root / "data")
        settings = settings_for(vault, root / "data")
        env = {**_cli_env(settings, root / "killed-dagster", repo), "KILL_AT_SAVE": str(kill_at)}
        (root / "killed-dagster").mkdir()
        proc = subprocess.run([sys.executable, "-c", KILL_AT_SAVE], env=env, capture_output=True, text=True)
        if proc.returncode == 0:
            break  # past the last save: every point was tried
        assert proc.returncode == 137, proc.stderr[-2000:]
        killed_at.append(kill_at)
        monkeypatch.setenv("DAGSTER_HOME", str(root / "dagster"))
        run_ingest(settings)
        assert vault_bytes(vault) == before, "the vault changed"
        assert_same(stored(settings), want)
    assert len(killed_at) >= 10, f"technical saved its stores only {len(killed_at)} times"
    print(f"\nkilled before save {killed_at[0]}..{killed_at[-1]} of technical's stores; each healed")
