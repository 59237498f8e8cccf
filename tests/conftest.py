"""Hermetic fixtures: every test runs against temporary data folders, a fixed
"now", and a copy of the sample vault (the repository's vault is never touched).

Tests get what they share from here as fixtures (``settings_for``, ``copy_vault``,
``repo``, ``truth``) rather than importing this module; the PostgreSQL/Neo4j session
fixtures are the plugin ``tests/services_fixtures.py``, the sample vault on each profile
(``profile_ingested``, ``profile_fresh_vault``) the plugin ``tests/profile_fixtures.py``.
No test module imports another (``tests/test_import_direction.py``)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
import yaml

from lucasrag.settings import Settings

# Session fixtures that start PostgreSQL (pgvector) and Neo4j for the production profile;
# the sample vault on each profile (checks written once, run on both);
# the MCP server as a subprocess and the SDK client (tests/mcp).
pytest_plugins = ["services_fixtures", "profile_fixtures", "mcp_fixtures", "ui_fixtures"]

REPO = Path(__file__).resolve().parents[1]
SAMPLE_VAULT = REPO / "vault"
TRUTH_FILE = Path(__file__).parent / "fixtures" / "sample_vault_truth.yaml"
NOW = dt.date(2026, 6, 1)

_ENV_KEYS = (
    "LUCASRAG_VAULT",
    "LUCASRAG_DATA",
    "LUCASRAG_NOW",
    "LUCASRAG_PROFILE",
    "LUCASRAG_RERANKER_URL",
    "DAGSTER_HOME",
    "WORKSPACE",
    "NEO4J_WORKSPACE",
    "POSTGRES_WORKSPACE",
    "LUCASRAG_POSTGRES_DSN",
    "LUCASRAG_NEO4J_URI",
    "LUCASRAG_NEO4J_USER",
    "LUCASRAG_NEO4J_PASSWORD",
    "LUCASRAG_DAGSTER_PG_URL",
    "LUCASRAG_PG_PORT",
    "LUCASRAG_NEO4J_PORT",
)


@pytest.fixture(autouse=True)
def _hermetic_env(monkeypatch, tmp_path_factory):
    """No setting leaks in from the developer's shell."""
    for key in _ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LUCASRAG_NOW", NOW.isoformat())
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path_factory.mktemp("dagster_home")))


@pytest.fixture(scope="session")
def truth() -> dict:
    return yaml.safe_load(TRUTH_FILE.read_text())


def copy_sample_vault(dest: Path) -> Path:
    shutil.copytree(SAMPLE_VAULT, dest, symlinks=True)
    return dest


def make_settings(vault: Path, data: Path, **overrides) -> Settings:
    return Settings(vault=vault, data=data, now=NOW, **overrides)


@pytest.fixture(scope="session")
def copy_vault():
    """``copy_vault(dest)``: a copy of the sample vault at ``dest`` (returned)."""
    return copy_sample_vault


def write_notes(vault: Path, notes: dict[str, str]) -> Path:
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    return vault


@pytest.fixture(scope="session")
def notes_vault():
    """``notes_vault(vault, {path: text})``: a vault of those notes at ``vault`` (returned)."""
    return write_notes


@pytest.fixture(scope="session")
def settings_for():
    """``settings_for(vault, data, **overrides)``: Settings at the tests' fixed "now"."""
    return make_settings


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def _index_records(settings: Settings) -> dict[str, list[tuple]]:
    from lucasrag.index import open_chunk_store
    from lucasrag.vocabulary import WORKSPACES

    out = {}
    for ws in WORKSPACES:
        store = open_chunk_store(settings, ws)
        try:
            out[ws] = sorted((r.chunk_id, r.band, r.charged, r.text) for r in store.all_records())
        finally:
            store.close()
    return out


@pytest.fixture(scope="session")
def index_records():
    """``index_records(settings)``: every workspace's chunk records as (chunk id, band, charged, text),
    sorted — what two builds of the same vault must agree on."""
    return _index_records


@pytest.fixture
def locomo_sample() -> dict:
    """A LoCoMo-shaped conversation (tests/fixtures/locomo_sample.json), a fresh copy per test:
    two sessions with turns, one date without turns, evidence ids to split, repair and skip, an
    adversarial question and the annotations that must never reach a vault (``LEAK``)."""
    return json.loads((Path(__file__).parent / "fixtures" / "locomo_sample.json").read_text())


def ingest_with_home(settings: Settings, dagster_home: Path):
    """``run_ingest(settings)`` on a Dagster instance of its own: for module- and session-scoped
    fixtures, which cannot use the function-scoped ``monkeypatch``."""
    from lucasrag_assets.ingest import run_ingest

    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSTER_HOME", str(dagster_home))
    mp.delenv("LUCASRAG_DAGSTER_PG_URL", raising=False)  # the instance's storage follows the settings only
    try:
        return run_ingest(settings)
    finally:
        mp.undo()


@pytest.fixture(scope="session")
def ingest_at():
    """``ingest_at(settings, dagster_home)``: see :func:`ingest_with_home`."""
    return ingest_with_home


@pytest.fixture(scope="session")
def ingested(tmp_path_factory) -> Settings:
    """The sample vault ingested once for the whole session (read-only users only)."""
    root = tmp_path_factory.mktemp("ingested")
    settings = make_settings(copy_sample_vault(root / "vault"), root / "data")
    ingest_with_home(settings, root / "dagster")
    return settings


@pytest.fixture
def fresh_vault(tmp_path) -> Settings:
    """A private copy of the sample vault and an empty data folder, for tests that change things."""
    return make_settings(copy_sample_vault(tmp_path / "vault"), tmp_path / "data")


# A real llama.cpp reranker (xllamacpp) serving a tiny rank-head GGUF built from the packaged MiniLM.
RERANK_THREADS = 1  # steadier timings on two shared cores


@pytest.fixture(scope="session")
def rank_model(request, tmp_path_factory):
    """Built once (≈1 s) and kept in pytest's cache dir between runs."""
    from lucasrag_harness.model_servers.reranker_model import ensure_rank_gguf

    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    folder = cache.mkdir("lucasrag-test-models") if cache else tmp_path_factory.mktemp("test-models")
    return ensure_rank_gguf(folder)


@pytest.fixture(scope="session")
def reranker_url(rank_model):
    from lucasrag_harness.model_servers.llama_server import serve_reranker

    with serve_reranker(rank_model, threads=RERANK_THREADS) as url:
        yield url


@pytest.fixture
def shell_env(ingested, tmp_path) -> dict[str, str]:
    """The environment of a person's shell for commands run through bash (README, demo): ``lucasrag`` on PATH
    runs this checkout's code, a private copy of the sample vault and of the session's data folder (so an
    ``ingest`` is incremental), and no LUCASRAG_NOW — "now" is the real date, as in a terminal."""
    import os
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "lucasrag"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lucasrag_cli "$@"\n')
    shim.chmod(0o755)
    shutil.copytree(ingested.data, tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if k != "LUCASRAG_NOW"}
    env.update(
        PATH=os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), env.get("PATH", "")]),
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p),
        LUCASRAG_VAULT=str(copy_sample_vault(tmp_path / "vault")),
        LUCASRAG_DATA=str(tmp_path / "data"),
        DAGSTER_HOME=str(tmp_path / "dagster"),
        VIRTUAL_ENV=sys.prefix,  # the tests' environment is the active one (scripts use it, not ./.venv)
    )
    return env
