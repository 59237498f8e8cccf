"""The sample vault on each profile: a pytest plugin (``pytest_plugins`` in tests/conftest.py).

A behavioural check written once runs on the embedded profile and on the production one
(PostgreSQL + pgvector, Neo4j, Dagster on PostgreSQL) by asking for a profile-parametrised
fixture instead of ``ingested`` / ``fresh_vault``:

* ``profile_ingested``: the sample vault ingested (read-only users);
* ``profile_fresh_vault``: a private copy of the sample vault with nothing indexed yet (tests that change it);
* ``profile``: the parameter itself, ``"embedded"`` or ``"production"``, for a module's own fixture
  (tests/query/test_graph.py's ``graph_index``).

The ``production`` parameter carries the ``production`` mark. ``profile`` is function-scoped so that
pytest keeps each file's test order (it regroups tests only for higher-scoped parameters): the
session has one Neo4j database (Community edition), so the tests that write a graph clear it first
and must run after the read-only ones of their module.

Cost control: the embedded sample-vault ingest (session fixture ``ingested``) fills an embedding
cache; the production ingests start from a copy of it, so nothing is embedded twice (model time
dominates an ingest on two cores).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lucasrag.settings import Settings

PROFILES = ["embedded", pytest.param("production", marks=pytest.mark.production)]


@pytest.fixture(scope="session")
def warm_copy(production_settings, copy_vault):
    """``warm_copy(source, root)``: a copy of the sample vault and of ``source``'s data folder
    (indexes, embedding cache) under ``root``, as production Settings on a fresh database."""

    def copy(source: Settings, root: Path) -> Settings:
        shutil.copytree(source.data, root / "data")
        return production_settings(copy_vault(root / "vault"), root / "data")

    return copy


@pytest.fixture(scope="module")
def production_ingested(ingested, tmp_path_factory, neo4j_server, warm_copy, clean_neo4j):
    """``(settings, MigrationSummary)``: the sample vault on the production profile, through ``lucasrag
    migrate --to production`` — the ordinary ingest on a copy of the vault, its vectors from the embedded
    index (nothing re-embedded). Module scope: every module that asks clears Neo4j and migrates anew."""
    from lucasrag_assets.migrate import migrate

    root = tmp_path_factory.mktemp("production")
    settings = warm_copy(ingested, root)
    clean_neo4j(neo4j_server)
    mp = pytest.MonkeyPatch()  # a module fixture: the function-scoped monkeypatch is not available
    mp.setenv("DAGSTER_HOME", str(root / "dagster"))
    mp.delenv("LUCASRAG_DAGSTER_PG_URL", raising=False)
    try:
        summary = migrate(settings)
    finally:
        mp.undo()
    return settings, summary


@pytest.fixture(params=PROFILES)
def profile(request) -> str:
    """Each profile in turn: ``"embedded"``, then ``"production"`` (marked ``production``)."""
    return request.param


@pytest.fixture
def profile_ingested(profile, request) -> Settings:
    """The ingested sample vault on each profile (read-only)."""
    if profile == "embedded":
        return request.getfixturevalue("ingested")
    return request.getfixturevalue("production_ingested")[0]


@pytest.fixture
def profile_fresh_vault(profile, request, tmp_path) -> Settings:
    """A private copy of the sample vault, nothing indexed yet, on each profile. Embedded: an empty
    data folder (a cold embedding cache). Production: a fresh database, Neo4j cleared, and the session
    ingest's embedding cache (no index), so the first ingest embeds nothing."""
    if profile == "embedded":
        return request.getfixturevalue("fresh_vault")
    ingested = request.getfixturevalue("ingested")
    neo4j_server = request.getfixturevalue("neo4j_server")
    request.getfixturevalue("clean_neo4j")(neo4j_server)
    settings = request.getfixturevalue("warm_copy")(ingested, tmp_path)
    shutil.rmtree(settings.data / "indexes")  # only the cache is wanted
    return settings
