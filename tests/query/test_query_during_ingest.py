"""Queries during an ingest answer from the last complete state of each workspace, never a half-written one.

A long-lived query process (as an MCP server is) asks the same question over and over while
``lucasrag ingest`` re-indexes an edited vault in another process (one note changed, one deleted, one
added). Every answer must be made of chunks exactly as one complete build stored them — the build before
the ingest or the one after — and the changed note must be found in every answer (in its old or its new
wording: never missing because the ingest had removed the old rows and not yet written the new). No query
fails. How it holds: the chunk store, where every result's text, band and care marks come from, changes
in one transaction per workspace at the end of its sync (``lucasrag/index/sync.py``); see
docs/reliability.md, "Queries during an ingest".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from lucasrag.index import open_chunk_store
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.ingest import run_ingest

pytestmark = pytest.mark.slow

NOTES = {
    "tech/quokka.md": "---\nworkspace: technical\n---\nThe quokka cluster runs Postgres 16; vacuum nightly.\n",
    "tech/nginx.md": "---\nworkspace: technical\n---\nnginx on the quokka cluster terminates TLS for the API.\n",
    "journal/2026-05-01.md": "---\nworkspace: personal\n---\nSaw a quokka at the zoo with Ellie; tram 28 home.\n",
    "admin/lease.md": "---\nworkspace: administrative\n---\nLisbon lease: rent due on the first, quokka street.\n",
}

QUERIES = """
import json, sys, time
from pathlib import Path
from lucasrag_query import query

stop = Path(sys.argv[1])
while True:
    last = stop.exists()
    try:
        result = query("quokka cluster", top_k=10)
        print(json.dumps({"ids": [[r.chunk_id, r.path, r.text] for r in result.results]}), flush=True)
    except Exception as exc:
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
    if last:
        break
"""


def _texts(settings) -> dict[str, tuple[str, str]]:
    out = {}
    for ws in WORKSPACES:
        store = open_chunk_store(settings, ws)
        try:
            out |= {r.chunk_id: (r.path, r.text) for r in store.all_records()}
        finally:
            store.close()
    return out


def test_queries_during_an_ingest_see_a_complete_state(notes_vault, tmp_path, settings_for, repo, monkeypatch):
    vault = notes_vault(tmp_path / "vault", NOTES)
    settings = settings_for(vault, tmp_path / "data")
    run_ingest(settings)
    before = _texts(settings)

    (vault / "tech/quokka.md").write_text(NOTES["tech/quokka.md"] + "\nUpgraded the quokka cluster to Postgres 17.\n")
    (vault / "tech/nginx.md").unlink()
    (vault / "tech/caddy.md").write_text("---\nworkspace: technical\n---\nCaddy replaced nginx on quokka.\n")

    env = {
        **os.environ,
        "PYTHONPATH": str(repo),
        "LUCASRAG_VAULT": str(vault),
        "LUCASRAG_DATA": str(settings.data),
        "LUCASRAG_NOW": settings.now.isoformat(),
        "DAGSTER_HOME": str(tmp_path / "dagster"),
    }
    stop = tmp_path / "stop"
    queries = subprocess.Popen(
        [sys.executable, "-c", QUERIES, str(stop)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        first = queries.stdout.readline()  # the query process is up and answering before the ingest starts
        started = time.monotonic()
        ingest = subprocess.run(
            [sys.executable, "-c", "from lucasrag_cli import app; app()", "ingest"],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        ingest_seconds = time.monotonic() - started
        assert ingest.returncode == 0, ingest.stderr[-3000:]
        stop.touch()
        out, err = queries.communicate(timeout=300)
    finally:
        queries.kill()
    answers = [json.loads(line) for line in [first, *out.splitlines()] if line.strip()]
    after = _texts(settings)
    errors = [a["error"] for a in answers if "error" in a]
    assert not errors, errors
    assert len(answers) >= 3, (answers, err[-2000:])
    for answer in answers:
        for chunk_id, path, text in answer["ids"]:
            assert before.get(chunk_id) == (path, text) or after.get(chunk_id) == (path, text), (chunk_id, path)
        assert "tech/quokka.md" in {path for _, path, _ in answer["ids"]}, answer  # old or new, never missing
    final = {path for _, path, _ in answers[-1]["ids"]}
    assert "tech/nginx.md" not in final and "tech/caddy.md" in final
    print(f"\n{len(answers)} queries answered during a {ingest_seconds:.1f}s ingest, none from a half-written state")
