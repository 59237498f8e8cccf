"""Runs the production profile's services (PostgreSQL + pgvector, Neo4j) itself: ``lucasrag services``, test fixtures.

Ports come from ``LUCASRAG_PG_PORT`` (default 54329) and ``LUCASRAG_NEO4J_PORT``
(default 7697); data lives under ``$LUCASRAG_DATA/services/{postgres,neo4j}`` and
``$LUCASRAG_DATA/services/state.json`` records what was started (pids, ports,
addresses) so ``status`` can report from another process. Both servers authenticate with a
generated password kept 0600 in ``$LUCASRAG_DATA/services/{postgres,neo4j}.password`` (never in
the state file, never printed) and listen on ``LUCASRAG_SERVICES_HOST`` (default 127.0.0.1) only.

Typical use::

    from lucasrag_harness.local_servers import start_services, stop_services, services_status
    running = start_services()          # or start_services(settings)
    running.env()                       # LUCASRAG_POSTGRES_DSN / LUCASRAG_NEO4J_URI / LUCASRAG_NEO4J_PASSWORD
    lightrag_env(running.postgres_dsn, running.neo4j_uri)  # POSTGRES_* / NEO4J_* for LightRAG
    stop_services()
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from lucasrag.data_folder import open_data_folder, write_private
from lucasrag.services import NEO4J_PORT_ENV, PG_PORT_ENV, ServiceError, lightrag_env, require_neo4j, require_postgres
from lucasrag.settings import mask_secrets

from ._process import ServiceStatus
from .neo4j import Neo4jServer
from .neo4j_dist import ensure_distribution
from .postgres import PostgresServer

__all__ = [
    "DEFAULT_DATABASE",
    "DEFAULT_NEO4J_PORT",
    "DEFAULT_PG_PORT",
    "Neo4jServer",
    "PostgresServer",
    "RunningServices",
    "ServiceError",
    "ServiceStatus",
    "ensure_distribution",
    "free_port",
    "lightrag_env",
    "read_state",
    "require_neo4j",
    "require_postgres",
    "service_paths",
    "services_status",
    "start_services",
    "stop_services",
]

HOST_ENV = "LUCASRAG_SERVICES_HOST"
DEFAULT_PG_PORT = 54329
DEFAULT_NEO4J_PORT = 7697
DEFAULT_DATABASE = "lucasrag"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (the OS picks it; racy by nature, fine for tests)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _port(name: str, default: int) -> int:
    raw = os.environ.get(name) or ""
    if not raw:
        return default
    try:
        port = int(raw)
    except ValueError:
        raise ServiceError(f"{name}={raw!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise ServiceError(f"{name}={raw!r} is not a port number (1-65535)")
    return port


def _data_root(settings_like=None) -> Path:
    """``settings_like``: a Settings (anything with ``.data``), a path, or None (``LUCASRAG_DATA``)."""
    if settings_like is None:
        from lucasrag.settings import Settings

        return Settings.from_env().data
    data = getattr(settings_like, "data", settings_like)
    return Path(data).expanduser().resolve()


@dataclass(frozen=True)
class ServicePaths:
    root: Path
    host: str
    pg_port: int
    neo4j_port: int

    @property
    def postgres_dir(self) -> Path:
        return self.root / "postgres"

    @property
    def neo4j_dir(self) -> Path:
        return self.root / "neo4j"

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    def postgres(self) -> PostgresServer:
        return PostgresServer(self.postgres_dir, self.pg_port, host=self.host)

    def neo4j(self) -> Neo4jServer:
        return Neo4jServer(self.neo4j_dir, self.neo4j_port, host=self.host)


def service_paths(settings_like=None) -> ServicePaths:
    return ServicePaths(
        root=_data_root(settings_like) / "services",
        host=os.environ.get(HOST_ENV) or "127.0.0.1",
        pg_port=_port(PG_PORT_ENV, DEFAULT_PG_PORT),
        neo4j_port=_port(NEO4J_PORT_ENV, DEFAULT_NEO4J_PORT),
    )


@dataclass
class RunningServices:
    postgres: PostgresServer | None = None
    neo4j: Neo4jServer | None = None
    postgres_dsn: str | None = None  # DSN of the application database (pgvector enabled)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def neo4j_uri(self) -> str | None:
        return self.neo4j.uri if self.neo4j else None

    def env(self) -> dict[str, str]:
        """The LucasRAG settings that point at these services (secrets included: never print them)."""
        env = {}
        if self.postgres_dsn:
            env["LUCASRAG_POSTGRES_DSN"] = self.postgres_dsn
        if self.neo4j:
            env["LUCASRAG_NEO4J_URI"] = self.neo4j.uri
            env["LUCASRAG_NEO4J_USER"] = self.neo4j.user
            env["LUCASRAG_NEO4J_PASSWORD"] = self.neo4j.password
        return env

    def secret_files(self) -> dict[str, Path]:
        """Each password in :meth:`env` and the 0600 file it is kept in (``services start`` prints ``$(cat FILE)``)."""
        files = {}
        if self.postgres:
            files[self.postgres.password] = self.postgres.password_file
        if self.neo4j:
            files[self.neo4j.password] = self.neo4j.password_file
        return files


def _write_state(paths: ServicePaths, running: RunningServices, *, drop: tuple[str, ...] = ()) -> None:
    """Update the entries of the services in ``running`` (others are kept), remove those in ``drop``."""
    state = read_state(paths.root.parent)
    for name in drop:
        state.pop(name, None)
    state["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    if running.postgres:
        st = running.postgres.status()
        state["postgres"] = {
            "pid": st.pid,
            "port": running.postgres.port,
            "host": running.postgres.host,
            "dsn": mask_secrets(running.postgres_dsn or running.postgres.dsn),
            "data_dir": str(running.postgres.data_dir),
        }
    if running.neo4j:
        state["neo4j"] = {
            "pid": running.neo4j.pid(),
            "port": running.neo4j.bolt_port,
            "host": running.neo4j.host,
            "uri": running.neo4j.uri,
            "data_dir": str(running.neo4j.data_dir),
        }
    write_private(paths.state_file, json.dumps(state, indent=2) + "\n")


def read_state(settings_like=None) -> dict:
    try:
        return json.loads(service_paths(settings_like).state_file.read_text())
    except (OSError, ValueError):
        return {}


def _servers_from_state(paths: ServicePaths) -> tuple[PostgresServer, Neo4jServer]:
    """The servers as last started (state file ports win over the current env, so stop finds them)."""
    state = read_state(paths.root.parent)
    pg, neo = paths.postgres(), paths.neo4j()
    if "postgres" in state:
        pg = PostgresServer(
            Path(state["postgres"]["data_dir"]),
            state["postgres"]["port"],
            host=state["postgres"].get("host", paths.host),
        )
    if "neo4j" in state:
        neo = Neo4jServer(
            Path(state["neo4j"]["data_dir"]), state["neo4j"]["port"], host=state["neo4j"].get("host", paths.host)
        )
    return pg, neo


def start_services(
    settings_like=None, *, postgres: bool = True, neo4j: bool = True, database: str = DEFAULT_DATABASE
) -> RunningServices:
    """Start (or find running) PostgreSQL and/or Neo4j; creates ``database`` with pgvector.

    Idempotent: a service already running from the same data dir on the same port is reused.
    """
    paths = service_paths(settings_like)
    open_data_folder(paths.root.parent)
    running = RunningServices()
    try:
        if postgres:
            t0 = time.perf_counter()
            running.postgres = paths.postgres().start()
            running.postgres_dsn = running.postgres.ensure_database(database)
            running.timings["postgres_s"] = time.perf_counter() - t0
        if neo4j:
            t0 = time.perf_counter()
            running.neo4j = paths.neo4j().start()
            running.timings["neo4j_s"] = time.perf_counter() - t0
    finally:
        if running.postgres or running.neo4j:
            _write_state(paths, running)
    return running


def stop_services(settings_like=None, *, postgres: bool = True, neo4j: bool = True) -> None:
    """Stop what :func:`start_services` started (found via the state file, else the env ports)."""
    paths = service_paths(settings_like)
    pg, neo = _servers_from_state(paths)
    errors, stopped = [], []
    for name, wanted, server in (("neo4j", neo4j, neo), ("postgres", postgres, pg)):
        if not wanted:
            continue
        try:
            server.stop()
            stopped.append(name)
        except ServiceError as exc:
            errors.append(str(exc))
    if paths.state_file.exists():
        _write_state(paths, RunningServices(), drop=tuple(stopped))
    if errors:
        raise ServiceError("\n".join(errors))


def services_status(settings_like=None) -> dict[str, ServiceStatus]:
    """Live status of both services (pids from pg_ctl / the Neo4j pid file)."""
    pg, neo = _servers_from_state(service_paths(settings_like))
    return {"postgres": pg.status(), "neo4j": neo.status()}
