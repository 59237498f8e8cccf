"""``lucasrag services start|stop|status`` and ``lucasrag migrate`` (the production profile's commands).

``start`` prints only ``export`` lines on stdout, so ``eval "$(lucasrag services start)"``
switches a shell to the production profile; progress and timings go to stderr.
An external PostgreSQL / Neo4j needs none of this: set ``LUCASRAG_PROFILE=production``,
``LUCASRAG_POSTGRES_DSN`` and ``LUCASRAG_NEO4J_URI`` (+ ``LUCASRAG_NEO4J_USER`` /
``LUCASRAG_NEO4J_PASSWORD``). Passwords are never printed (``mask_secrets``).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import typer
from rich.table import Table

from lucasrag.settings import mask_secrets
from lucasrag_cli._console import err, fail, out
from lucasrag_cli._console import settings as _settings

services_app = typer.Typer(
    help="The production profile's PostgreSQL (pgvector) and Neo4j, run locally by LucasRAG.", no_args_is_help=True
)


def _shell_word(value: str, secrets: dict[str, Path]) -> str:
    """``value`` as one shell word in which every secret is ``$(cat FILE)``: ``eval`` gets the password,
    the terminal (and any log of it) only the path of its 0600 file."""
    if not any(secret in value for secret in secrets):
        return shlex.quote(mask_secrets(value))
    pattern = re.compile("|".join(re.escape(secret) for secret in sorted(secrets, key=len, reverse=True)))
    parts, pos = [], 0
    for match in pattern.finditer(value):
        parts.append(_in_double_quotes(value[pos : match.start()]))
        parts.append(f"$(cat {shlex.quote(str(secrets[match.group()]))})")
        pos = match.end()
    parts.append(_in_double_quotes(value[pos:]))
    return '"' + "".join(parts) + '"'


def _in_double_quotes(text: str) -> str:
    return re.sub(r'([\\$`"])', r"\\\1", text)


@services_app.command("start")
def start(
    postgres: bool = typer.Option(True, "--postgres/--no-postgres", help="Start PostgreSQL (LUCASRAG_PG_PORT)."),
    neo4j: bool = typer.Option(True, "--neo4j/--no-neo4j", help="Start Neo4j (LUCASRAG_NEO4J_PORT)."),
    database: str = typer.Option("lucasrag", help="PostgreSQL database to create (with pgvector)."),
) -> None:
    """Start (or find running) the services under LUCASRAG_DATA/services; print the settings to export."""
    from lucasrag_assets.ingest import dagster_postgres_url
    from lucasrag_harness.local_servers import ServiceError, start_services

    settings = _settings()
    err.print(f"starting services under {settings.data / 'services'} …", highlight=False)
    try:
        running = start_services(settings, postgres=postgres, neo4j=neo4j, database=database)
    except ServiceError as exc:
        fail(str(exc))
    for name, seconds in running.timings.items():
        err.print(f"  {name.removesuffix('_s')} ready in {seconds:.1f}s", highlight=False)
    env = {"LUCASRAG_PROFILE": "production", **running.env()}
    if running.postgres_dsn:
        env["LUCASRAG_DAGSTER_PG_URL"] = dagster_postgres_url(running.postgres_dsn)
    for key, value in env.items():
        print(f"export {key}={_shell_word(value, running.secret_files())}")
    err.print('switch this shell with:  eval "$(lucasrag services start)"', highlight=False)


@services_app.command("stop")
def stop(
    postgres: bool = typer.Option(True, "--postgres/--no-postgres"),
    neo4j: bool = typer.Option(True, "--neo4j/--no-neo4j"),
) -> None:
    """Stop the services `start` started (found through LUCASRAG_DATA/services/state.json)."""
    from lucasrag_harness.local_servers import ServiceError, stop_services

    try:
        stop_services(_settings(), postgres=postgres, neo4j=neo4j)
    except ServiceError as exc:
        fail(str(exc))
    err.print("stopped", highlight=False)


def _reachable(check, *args, **kwargs) -> str:
    from lucasrag.services import ServiceError

    try:
        check(*args, timeout=2, **kwargs)
        return "yes"
    except ServiceError as exc:
        return f"no: {mask_secrets(str(exc))}"


@services_app.command("status")
def status(as_json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
    """The managed services (pid, address, data dir) and whether the configured addresses answer."""
    from lucasrag_harness.local_servers import require_neo4j, require_postgres, services_status

    settings = _settings()
    managed = services_status(settings)
    configured = {
        "profile": settings.profile,
        "postgres_dsn": mask_secrets(settings.postgres_dsn),
        "postgres_reachable": _reachable(require_postgres, settings.postgres_dsn) if settings.postgres_dsn else None,
        "neo4j_uri": mask_secrets(settings.neo4j_uri),
        "neo4j_reachable": (
            _reachable(require_neo4j, settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password))
            if settings.neo4j_uri
            else None
        ),
    }
    if as_json:
        print(json.dumps({"managed": {k: v.as_dict() for k, v in managed.items()}, "configured": configured}, indent=2))
        return
    table = Table(title="Managed services (LUCASRAG_DATA/services)")
    for column in ("service", "running", "pid", "address", "data dir", "detail"):
        table.add_column(column)
    for st in managed.values():
        table.add_row(
            st.service, "yes" if st.running else "no", str(st.pid or ""), st.address, str(st.data_dir), st.detail
        )
    out.print(table)
    for key, value in configured.items():
        out.print(f"{key}: {value if value is not None else '(not set)'}", highlight=False)
