"""How the product reaches its services (PostgreSQL + pgvector, Neo4j) on the production profile.

The core needs only this: the error type, reachability checks that name the service and the
setting, and the environment LightRAG's storages read. Running the servers themselves
(``lucasrag services start``, the test fixtures) is harness: :mod:`lucasrag_harness.local_servers`.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from lucasrag.dsn import lightrag_settings, where

__all__ = [
    "NEO4J_PORT_ENV",
    "PG_PORT_ENV",
    "ServiceError",
    "can_connect",
    "lightrag_env",
    "require_neo4j",
    "require_postgres",
]

PG_PORT_ENV = "LUCASRAG_PG_PORT"
NEO4J_PORT_ENV = "LUCASRAG_NEO4J_PORT"


class ServiceError(RuntimeError):
    """A managed service could not be started, stopped or reached; the message says which and why."""


def can_connect(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


# --------------------------------------------------------------------------- reachability with clear errors


def require_postgres(dsn: str | None, *, setting: str = "LUCASRAG_POSTGRES_DSN", timeout: float = 5.0) -> None:
    """Raise :class:`ServiceError` naming the service and the setting unless ``dsn`` answers ``SELECT 1``."""
    import psycopg

    if not dsn:
        raise ServiceError(f"PostgreSQL is not configured: set {setting} (or run `lucasrag services start`)")
    try:
        with psycopg.connect(dsn, connect_timeout=max(1, int(timeout))) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        addr = where(dsn)
        raise ServiceError(
            f"PostgreSQL is not reachable at {addr} ({setting}); start it with `lucasrag services start` "
            f"(port setting {PG_PORT_ENV}) or fix {setting}. Cause: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc!r}"
        ) from exc


def require_neo4j(
    uri: str | None, *, setting: str = "LUCASRAG_NEO4J_URI", auth: tuple[str, str] = ("neo4j", ""), timeout: float = 5.0
) -> None:
    """Raise :class:`ServiceError` naming the service and the setting unless ``uri`` answers over Bolt."""
    import neo4j

    if not uri:
        raise ServiceError(f"Neo4j is not configured: set {setting} (or run `lucasrag services start`)")
    parts = urlsplit(uri)
    if parts.hostname and parts.port and not can_connect(parts.hostname, parts.port, timeout=timeout):
        raise ServiceError(
            f"Neo4j is not reachable at {parts.hostname}:{parts.port} ({setting}): connection refused; start it "
            f"with `lucasrag services start` (port setting {NEO4J_PORT_ENV}) or fix {setting}"
        )
    try:
        with neo4j.GraphDatabase.driver(uri, auth=auth, connection_timeout=timeout) as driver:
            driver.execute_query("RETURN 1", database_="neo4j")
    except Exception as exc:
        raise ServiceError(f"Neo4j at {uri} ({setting}) does not answer Bolt queries: {exc}") from exc


def lightrag_env(
    postgres_dsn: str | None, neo4j_uri: str | None, *, neo4j_user: str = "neo4j", neo4j_password: str = ""
) -> dict[str, str]:
    """The environment variables LightRAG 1.5.7's PG*/Neo4JStorage read, for these services.

    LightRAG has no DSN setting: host/port/user/password/database are separate variables.
    It reads POSTGRES_PASSWORD and NEO4J_PASSWORD unconditionally, so a trust-auth / auth-disabled
    server still needs a (any) value.
    """
    env: dict[str, str] = {}
    if postgres_dsn:
        pg = lightrag_settings(postgres_dsn)
        env.update(
            POSTGRES_HOST=str(pg["host"]),
            POSTGRES_PORT=str(pg["port"]),
            POSTGRES_USER=str(pg["user"]),
            POSTGRES_PASSWORD=str(pg["password"]),
            POSTGRES_DATABASE=str(pg["database"]),
        )
    if neo4j_uri:
        env.update(
            NEO4J_URI=neo4j_uri,
            NEO4J_USERNAME=neo4j_user,
            NEO4J_PASSWORD=neo4j_password or "unused",
            NEO4J_DATABASE="neo4j",
        )
    return env
