"""Neo4j Community 5.26 (the last Java-17 line), fetched from Maven Central and run by LucasRAG.

The distribution (jars from Maven Central, the compiled launcher) comes from
:mod:`lucasrag_harness.local_servers.neo4j_dist`.

Layout under ``data_dir``: ``neo4j.conf`` (written on every start), ``data/``,
``logs/`` (Neo4j's debug.log), ``neo4j.log`` (launcher stdout/stderr), ``neo4j.pid``.
Auth is on: user ``neo4j`` with the generated password in ``<data_dir>.password`` (0600, next to
the data dir; the launcher sets it before Bolt opens). Bolt listens on ``host`` only; HTTP is off.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from ._process import ServiceError, ServiceStatus, connect_host, log_tail, port_in_use, service_password
from .neo4j_dist import MAIN_CLASS, ensure_distribution, neo4j_version

JAVA_OPTS_ENV = "LUCASRAG_NEO4J_JAVA_OPTS"
PORT_SETTING = "LUCASRAG_NEO4J_PORT"
READY = "LUCASRAG_NEO4J_READY"
FAILED = "LUCASRAG_NEO4J_FAILED"

# From Neo4j's own conf (server.jvm.additional): netty and the page cache need these on Java 17.
JVM_FLAGS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-XX:+UseG1GC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Dfile.encoding=UTF-8",
    "-XX:+DisableExplicitGC",
    "-XX:-OmitStackTraceInFastThrow",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dlog4j2.disable.jmx=true",
)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours counts as gone
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _default_signals() -> None:
    """Run in the child before exec: a signal ignored by the parent stays ignored
    across exec, and a JVM that starts with SIGTERM ignored never runs its
    shutdown hooks (some hosts, e.g. in-process Dagster runs, ignore it)."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


class Neo4jServer:
    """Neo4j Community with Bolt on ``host:bolt_port`` and data under ``data_dir``."""

    service = "Neo4j"

    def __init__(
        self,
        data_dir: Path,
        bolt_port: int,
        *,
        host: str = "127.0.0.1",
        version: str | None = None,
        heap: str = "512m",
        pagecache: str = "256m",
        start_timeout: float = 300.0,
        port_setting: str = PORT_SETTING,
        home: Path | None = None,
        password_file: Path | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.password_file = (
            Path(password_file) if password_file else self.data_dir.with_name(self.data_dir.name + ".password")
        )
        self.bolt_port = int(bolt_port)
        self.host = host
        self.version = version or neo4j_version()
        self.heap = heap
        self.pagecache = pagecache
        self.start_timeout = start_timeout
        self.port_setting = port_setting
        self.home = home
        self.logfile = self.data_dir / "neo4j.log"
        self.pidfile = self.data_dir / "neo4j.pid"
        self.conf = self.data_dir / "neo4j.conf"
        self._proc: subprocess.Popen | None = None
        self.timings: dict[str, float] = {}

    @property
    def port(self) -> int:
        return self.bolt_port

    @property
    def uri(self) -> str:
        host = connect_host(self.host)
        return f"bolt://{f'[{host}]' if ':' in host else host}:{self.bolt_port}"

    @property
    def user(self) -> str:
        return "neo4j"

    @property
    def password(self) -> str:
        return service_password(self.password_file)

    @property
    def auth(self) -> tuple[str, str]:
        return (self.user, self.password)

    # ---- process bookkeeping

    def pid(self) -> int | None:
        """The launcher's pid if it is alive and really ours (checked against /proc cmdline)."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
        if not _pid_alive(pid):
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        if MAIN_CLASS.encode() not in cmdline or str(self.data_dir).encode() not in cmdline:
            return None  # pid reused by something else
        return pid

    def status(self) -> ServiceStatus:
        pid = self.pid()
        address = f"{connect_host(self.host)}:{self.bolt_port}"
        detail = "running" if pid else ("stopped" if self.pidfile.exists() else "never started here")
        return ServiceStatus(self.service, pid is not None, pid, self.bolt_port, address, self.data_dir, detail)

    def is_running(self) -> bool:
        return self.pid() is not None

    def _configured_port(self) -> int | None:
        try:
            m = re.search(r"^server\.bolt\.listen_address=.*:(\d+)\s*$", self.conf.read_text(), re.M)
        except OSError:
            return None
        return int(m.group(1)) if m else None

    def _write_conf(self) -> None:
        listen = f"{self.host}:{self.bolt_port}" if ":" not in self.host else f"[{self.host}]:{self.bolt_port}"
        lines = {
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": listen,
            "server.bolt.advertised_address": f"{connect_host(self.host)}:{self.bolt_port}",
            "server.bolt.tls_level": "DISABLED",
            "dbms.security.auth_enabled": "true",
            "server.http.enabled": "false",
            "server.https.enabled": "false",
            "server.memory.pagecache.size": self.pagecache,
            "dbms.usage_report.enabled": "false",
            "db.tx_log.rotation.retention_policy": "1G size",
            # Netty waits a 5 s quiet period per event loop group on shutdown (twice): 10 s per stop.
            "internal.dbms.bolt.netty_server_shutdown_quiet_period": "0",
        }
        self.conf.write_text(
            "# written by lucasrag_harness.local_servers.neo4j on every start\n"
            + "".join(f"{k}={v}\n" for k, v in lines.items())
        )

    # ---- lifecycle

    def start(self) -> Neo4jServer:
        """Fetch if needed, launch, and wait for Bolt; a no-op when already running for this data dir."""
        if self.is_running():
            running_port = self._configured_port()
            if running_port not in (None, self.bolt_port):
                raise ServiceError(
                    f"{self.service} for {self.data_dir} is already running on Bolt port {running_port}, "
                    f"not {self.bolt_port} ({self.port_setting}); stop it first"
                )
            return self
        t_total = time.perf_counter()
        self._check_port()  # before a possibly long fetch, and again after it
        dist = ensure_distribution(self.version, home=self.home, timings=self.timings)
        self._check_port()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._write_conf()
        auth = self.auth  # creates the password file on first start
        jvm = [f"-Xms{self.heap}", f"-Xmx{self.heap}", *JVM_FLAGS, *os.environ.get(JAVA_OPTS_ENV, "").split()]
        cmd = [
            str(dist.java),
            *jvm,
            "-cp",
            dist.classpath,
            MAIN_CLASS,
            str(self.data_dir),
            str(self.conf),
            str(self.password_file),
        ]
        offset = self.logfile.stat().st_size if self.logfile.exists() else 0
        t0 = time.perf_counter()
        with open(self.logfile, "ab") as out:
            out.write(
                f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting Neo4j {dist.version} on {self.uri}\n".encode()
            )
            out.flush()
            offset = out.tell()
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.data_dir,
                start_new_session=True,
                preexec_fn=_default_signals,
                umask=0o077,  # the store, its logs and transaction logs: readable by their owner only
            )
        self.pidfile.write_text(f"{self._proc.pid}\n")
        deadline = time.monotonic() + self.start_timeout
        while True:
            text = log_tail(self.logfile, lines=400, since=offset)
            if READY in text:
                break
            if self._proc.poll() is not None or FAILED in text:
                self._reap()
                raise ServiceError(self._failure(f"exited with code {self._proc.returncode}", offset))
            if time.monotonic() > deadline:
                self._terminate(timeout=30)
                raise ServiceError(self._failure(f"was not ready after {self.start_timeout:.0f} s", offset))
            time.sleep(0.2)
        self.timings["launch_s"] = time.perf_counter() - t0
        try:
            wait_for_bolt(self.uri, timeout=max(10.0, deadline - time.monotonic()), auth=auth)
        except ServiceError as exc:
            self._terminate(timeout=30)
            raise ServiceError(self._failure(f"printed its ready line but Bolt failed: {exc}", offset)) from exc
        self.timings["ready_s"] = time.perf_counter() - t0
        self.timings["start_total_s"] = time.perf_counter() - t_total
        return self

    def _check_port(self) -> None:
        if port_in_use(self.host, self.bolt_port):
            raise ServiceError(
                f"{self.service} cannot start: Bolt port {self.bolt_port} on {self.host} is already in use "
                f"(set {self.port_setting} to a free port)"
            )

    def _failure(self, what: str, offset: int) -> str:
        return (
            f"{self.service} on {self.host}:{self.bolt_port} ({self.port_setting}), data dir {self.data_dir}, "
            f"{what}.\n--- tail of {self.logfile} ---\n{log_tail(self.logfile, lines=40, since=offset)}\n"
            f"(Neo4j's own log: {self.data_dir / 'logs' / 'debug.log'})"
        )

    def _reap(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(Exception):
                self._proc.wait(timeout=5)

    def _terminate(self, timeout: float) -> bool:
        """SIGTERM (clean shutdown hook), wait; SIGKILL after ``timeout``. True when it exited on SIGTERM."""
        pid = self.pid() if self._proc is None or self._proc.poll() is not None else self._proc.pid
        if pid is None:
            return True
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        clean = self._wait_gone(pid, timeout)
        if not clean:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self._wait_gone(pid, 10)
        self._reap()
        self._proc = None
        return clean

    def _wait_gone(self, pid: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.pid == pid:
                if self._proc.poll() is not None:
                    return True
            elif not _pid_alive(pid):
                return True
            time.sleep(0.1)
        return False

    def stop(self, *, timeout: float = 60.0) -> None:
        """SIGTERM and wait for the clean shutdown; SIGKILL (and an error) after ``timeout`` seconds."""
        if self._proc is None and self.pid() is None:
            return
        t0 = time.perf_counter()
        clean = self._terminate(timeout)
        self.timings["stop_s"] = time.perf_counter() - t0
        if not clean:
            raise ServiceError(
                f"{self.service} on port {self.bolt_port} did not stop within {timeout:.0f} s "
                f"and was killed.\n--- tail of {self.logfile} ---\n{log_tail(self.logfile)}"
            )

    def __enter__(self) -> Neo4jServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"Neo4jServer(data_dir={str(self.data_dir)!r}, bolt_port={self.bolt_port}, host={self.host!r})"


def wait_for_bolt(uri: str, *, timeout: float = 30.0, auth: tuple[str, str] = ("neo4j", "")) -> None:
    """Until a Bolt session can run ``RETURN 1`` (raises :class:`ServiceError` after ``timeout``)."""
    import neo4j

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with neo4j.GraphDatabase.driver(uri, auth=auth, connection_timeout=5) as driver:
                driver.execute_query("RETURN 1", database_="neo4j")
                return
        except Exception as exc:  # ServiceUnavailable, SessionExpired, DatabaseUnavailable...
            last = exc
            time.sleep(0.5)
    raise ServiceError(f"no Bolt answer from {uri} within {timeout:.0f} s: {last}")
