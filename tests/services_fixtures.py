"""Session-scoped PostgreSQL and Neo4j for tests: a pytest plugin (``pytest_plugins`` in tests/conftest.py).

Fixtures: ``postgres_server``, ``neo4j_server``, ``clean_neo4j`` (empties the session's Neo4j)
``production_settings`` (Settings on a fresh database of the session's servers) and ``server_tmp``
(a private temp dir for a test that starts a PostgreSQL of its own).

Each fixture starts its own server on a free port in a temporary directory and
stops it at the end of the session, unless an external one is named. Managed servers run as
``lucasrag services start`` runs them: password authentication (PostgreSQL scram-sha-256, Neo4j
auth on), 127.0.0.1 only; the DSN / ``Neo4jService.auth`` carry the generated passwords.

* ``LUCASRAG_TEST_POSTGRES_DSN`` — a DSN of a server with pgvector available
  (the fixture creates the ``lucasrag_test`` database with the extension on it);
* ``LUCASRAG_TEST_NEO4J_URI`` — a Bolt URI (``LUCASRAG_TEST_NEO4J_USER`` /
  ``LUCASRAG_TEST_NEO4J_PASSWORD`` for its credentials).

Neo4j's first start on a machine fetches ~125 MB of jars with Maven (≈1 min);
later sessions reuse ``~/.cache/lucasrag/neo4j-<version>`` (``LUCASRAG_NEO4J_HOME``).
Start-up on 2 cores: PostgreSQL ≈2 s (initdb included), Neo4j ≈15–30 s.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lucasrag_harness.local_servers import Neo4jServer, PostgresServer, ServiceError, free_port, lightrag_env
from lucasrag_harness.local_servers.postgres import ensure_database

TEST_DATABASE = "lucasrag_test"


@dataclass
class PostgresService:
    """What tests need: ``dsn`` (database ``lucasrag_test`` with pgvector) and, when managed, ``server``."""

    dsn: str
    admin_dsn: str
    server: PostgresServer | None = None  # None for an external server

    @property
    def managed(self) -> bool:
        return self.server is not None

    def lightrag_env(self) -> dict[str, str]:
        return lightrag_env(self.dsn, None)


@dataclass
class Neo4jService:
    uri: str
    user: str = "neo4j"
    password: str = field(default="", repr=False)
    server: Neo4jServer | None = None

    @property
    def managed(self) -> bool:
        return self.server is not None

    @property
    def auth(self) -> tuple[str, str]:
        return (self.user, self.password)

    def lightrag_env(self) -> dict[str, str]:
        return lightrag_env(None, self.uri, neo4j_user=self.user, neo4j_password=self.password)


def _private_dir(kind: str) -> Path:
    """A temp dir of our own, not pytest's basetemp: concurrent pytest sessions of the same user
    rotate /tmp/pytest-of-USER (keeping 3) and can delete a live server's data dir; it also keeps
    the PostgreSQL socket path short."""
    return Path(tempfile.mkdtemp(prefix=f"lucasrag-test-{kind}-"))


@pytest.fixture
def server_tmp():
    """A private temp dir for a test that starts its own PostgreSQL: as root the server's user must
    traverse it, and pytest's basetemp parent (/tmp/pytest-of-root) is put back to 0700 by every
    pytest session that starts on the machine meanwhile."""
    root = _private_dir("own")
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> PostgresService:
    external = os.environ.get("LUCASRAG_TEST_POSTGRES_DSN")
    if external:
        yield PostgresService(dsn=ensure_database(external, TEST_DATABASE), admin_dsn=external)
        return
    root = _private_dir("pg")
    server = PostgresServer(root / "postgres", free_port())
    try:
        try:
            server.start()
        except ServiceError as exc:
            pytest.fail(f"could not start the test PostgreSQL: {exc}", pytrace=False)
        yield PostgresService(dsn=server.ensure_database(TEST_DATABASE), admin_dsn=server.dsn, server=server)
    finally:
        _close_query_indexes()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def _close_query_indexes() -> None:
    """Close the indexes ``query()`` kept open, before their servers stop: a pool left
    open would otherwise log reconnection failures after the session's summary."""
    from lucasrag_query import _loop
    from lucasrag_query._indexes import close_all

    try:
        _loop.run(close_all())
    except Exception as exc:  # a server already gone: nothing left to close cleanly
        warnings.warn(f"closing the query indexes at teardown: {exc}", stacklevel=1)


@pytest.fixture(scope="session")
def neo4j_server() -> Neo4jService:
    external = os.environ.get("LUCASRAG_TEST_NEO4J_URI")
    if external:
        yield Neo4jService(
            uri=external,
            user=os.environ.get("LUCASRAG_TEST_NEO4J_USER", "neo4j"),
            password=os.environ.get("LUCASRAG_TEST_NEO4J_PASSWORD", ""),
        )
        return
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Neo4j needs a Java 17+ JDK (or set LUCASRAG_TEST_NEO4J_URI)")
    root = _private_dir("neo4j")
    server = Neo4jServer(root / "neo4j", free_port())
    try:
        try:
            server.start()
        except ServiceError as exc:
            pytest.fail(f"could not start the test Neo4j: {exc}", pytrace=False)
        yield Neo4jService(uri=server.uri, user=server.user, password=server.password, server=server)
    finally:
        _close_query_indexes()
        try:
            server.stop()
        except ServiceError as exc:  # killed after the timeout; the clean stop is tested on its own server
            warnings.warn(f"the session's test Neo4j did not stop cleanly: {exc}", stacklevel=1)
        shutil.rmtree(root, ignore_errors=True)


def _clean_neo4j(service: Neo4jService) -> None:
    """Delete every node (tests share one session database)."""
    import neo4j

    with neo4j.GraphDatabase.driver(service.uri, auth=service.auth) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n", database_="neo4j")


@pytest.fixture(scope="session")
def clean_neo4j():
    """``clean_neo4j(neo4j_server)``: delete every node of the session's Neo4j."""
    return _clean_neo4j


@pytest.fixture(scope="session")
def production_settings(postgres_server, neo4j_server, settings_for):
    """``production_settings(vault, data, **overrides)``: production-profile Settings on a database
    of its own (pgvector enabled; tests never see each other's rows) and the session's Neo4j."""

    def make(vault: Path, data: Path, **overrides):
        return settings_for(
            vault,
            data,
            profile="production",
            postgres_dsn=ensure_database(postgres_server.admin_dsn, f"lucasrag_t{uuid.uuid4().hex[:12]}"),
            neo4j_uri=neo4j_server.uri,
            neo4j_user=neo4j_server.user,
            neo4j_password=neo4j_server.password,
            **overrides,
        )

    return make
