"""Neo4j Community 5.26 (the last Java-17 line), fetched from Maven Central and run by LucasRAG.

No PyPI/apt package ships a usable Neo4j. ``services/neo4j/pom.xml`` names the
Community jars; the first start runs ``mvn dependency:copy-dependencies`` into a
cache directory and compiles ``Neo4jLauncher.java`` (a small main around the
embedded ``DatabaseManagementService`` with the Bolt connector on). Maven's
local repository (``~/.m2``) is reused, so a fresh cache directory costs a copy,
not a download; a complete cache directory costs nothing.

Cache directory: ``$LUCASRAG_NEO4J_HOME`` or ``~/.cache/lucasrag/neo4j-<version>/``
(``lib/`` jars, ``classes/`` launcher, ``.lucasrag-ready`` stamp).
Version: ``$LUCASRAG_NEO4J_VERSION`` (default :data:`NEO4J_VERSION`).

Layout under ``data_dir``: ``neo4j.conf`` (written on every start), ``data/``,
``logs/`` (Neo4j's debug.log), ``neo4j.log`` (launcher stdout/stderr), ``neo4j.pid``.
Auth is disabled (any credentials are accepted); HTTP is off.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .postgres import ServiceError, ServiceStatus, connect_host, log_tail, port_in_use

NEO4J_VERSION = "5.26.30"
VERSION_ENV = "LUCASRAG_NEO4J_VERSION"
HOME_ENV = "LUCASRAG_NEO4J_HOME"
JAVA_OPTS_ENV = "LUCASRAG_NEO4J_JAVA_OPTS"
PORT_SETTING = "LUCASRAG_NEO4J_PORT"
READY = "LUCASRAG_NEO4J_READY"
FAILED = "LUCASRAG_NEO4J_FAILED"
MAIN_CLASS = "lucasrag.Neo4jLauncher"

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


def sources_dir() -> Path:
    """``services/neo4j`` of the repository (pom.xml + launcher source)."""
    override = os.environ.get("LUCASRAG_NEO4J_SOURCES")
    candidates = [Path(override)] if override else []
    candidates.append(Path(__file__).resolve().parents[2] / "services" / "neo4j")
    for c in candidates:
        if (c / "pom.xml").is_file():
            return c
    raise ServiceError(
        f"Neo4j build files not found (looked for pom.xml in {', '.join(map(str, candidates))}); "
        "run from a LucasRAG checkout or set LUCASRAG_NEO4J_SOURCES"
    )


def neo4j_version() -> str:
    return os.environ.get(VERSION_ENV) or NEO4J_VERSION


def default_home(version: str | None = None) -> Path:
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser().resolve()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return (cache / "lucasrag" / f"neo4j-{version or neo4j_version()}").resolve()


def find_java() -> tuple[Path, Path]:
    """(java, javac) of a JDK ≥ 17: ``$JAVA_HOME`` first, then PATH."""
    homes = []
    if os.environ.get("JAVA_HOME"):
        homes.append(Path(os.environ["JAVA_HOME"]) / "bin")
    java = shutil.which("java")
    if java:
        homes.append(Path(java).resolve().parent)
    for bin_dir in homes:
        if (bin_dir / "java").is_file() and (bin_dir / "javac").is_file():
            out = subprocess.run([str(bin_dir / "java"), "-version"], capture_output=True, text=True).stderr
            m = re.search(r'version "(\d+)', out)
            if m and int(m.group(1)) >= 17:
                return bin_dir / "java", bin_dir / "javac"
    raise ServiceError("Neo4j needs a Java 17+ JDK (java and javac): set JAVA_HOME or install openjdk-17-jdk-headless")


@dataclass(frozen=True)
class Neo4jDistribution:
    version: str
    home: Path
    java: Path

    @property
    def classpath(self) -> str:
        return f"{self.home / 'classes'}{os.pathsep}{self.home / 'lib' / '*'}"


def ensure_distribution(version: str | None = None, *, home: Path | None = None,
                        timings: dict | None = None) -> Neo4jDistribution:
    """Fetch the Neo4j jars (Maven) and compile the launcher into ``home`` unless already there."""
    version = version or neo4j_version()
    home = Path(home).resolve() if home else default_home(version)
    src = sources_dir()
    launcher = src / "src" / "main" / "java" / "lucasrag" / "Neo4jLauncher.java"
    digest = hashlib.sha256((src / "pom.xml").read_bytes() + launcher.read_bytes()).hexdigest()[:16]
    stamp = home / ".lucasrag-ready"
    wanted = {"version": version, "sources": digest}
    java, javac = find_java()

    def ready() -> bool:
        try:
            return json.loads(stamp.read_text()) == wanted and (home / "classes" / "lucasrag" / "Neo4jLauncher.class").is_file()
        except (OSError, ValueError):
            return False

    if ready():
        return Neo4jDistribution(version, home, java)
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one fetch at a time (parallel test sessions)
        if ready():
            return Neo4jDistribution(version, home, java)
        lib = home / "lib"
        lib_stamp = lib / ".version"
        if not (lib_stamp.is_file() and lib_stamp.read_text() == wanted["sources"] + version):
            mvn = shutil.which("mvn")
            if mvn is None:
                raise ServiceError("Neo4j's jars come from Maven Central: install Maven (mvn) or set "
                                   f"{HOME_ENV} to a prepared directory")
            tmp = home / "lib.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            t0 = time.perf_counter()
            proc = subprocess.run(
                [mvn, "-q", "-B", "-f", str(src / "pom.xml"), f"-Dneo4j.version={version}",
                 f"-DoutputDirectory={tmp}", "dependency:copy-dependencies"],
                capture_output=True, text=True, cwd=home,
            )
            if proc.returncode != 0:
                tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
                raise ServiceError(f"fetching Neo4j {version} with Maven failed (exit {proc.returncode}; "
                                   f"{VERSION_ENV}={version}):\n{tail}")
            if timings is not None:
                timings["fetch_s"] = time.perf_counter() - t0
            (tmp / ".version").write_text(wanted["sources"] + version)
            shutil.rmtree(lib, ignore_errors=True)
            tmp.rename(lib)
        classes = home / "classes"
        shutil.rmtree(classes, ignore_errors=True)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [str(javac), "--release", "17", "-nowarn", "-d", str(classes), "-cp", str(lib / "*"), str(launcher)],
            capture_output=True, text=True,
        )
        if proc.returncode != 0:
            raise ServiceError(f"compiling {launcher.name} failed:\n{(proc.stdout + proc.stderr).strip()}")
        if timings is not None:
            timings["compile_s"] = time.perf_counter() - t0
        stamp.write_text(json.dumps(wanted))
    return Neo4jDistribution(version, home, java)


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

    def __init__(self, data_dir: Path, bolt_port: int, *, host: str = "127.0.0.1",
                 version: str | None = None, heap: str = "512m", pagecache: str = "256m",
                 start_timeout: float = 300.0, port_setting: str = PORT_SETTING,
                 home: Path | None = None) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
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
            "dbms.security.auth_enabled": "false",
            "server.http.enabled": "false",
            "server.https.enabled": "false",
            "server.memory.pagecache.size": self.pagecache,
            "dbms.usage_report.enabled": "false",
            "db.tx_log.rotation.retention_policy": "1G size",
            # Netty waits a 5 s quiet period per event loop group on shutdown (twice): 10 s per stop.
            "internal.dbms.bolt.netty_server_shutdown_quiet_period": "0",
        }
        self.conf.write_text("# written by lucasrag.services.neo4j on every start\n"
                             + "".join(f"{k}={v}\n" for k, v in lines.items()))

    # ---- lifecycle

    def start(self) -> "Neo4jServer":
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
        jvm = [f"-Xms{self.heap}", f"-Xmx{self.heap}", *JVM_FLAGS, *os.environ.get(JAVA_OPTS_ENV, "").split()]
        cmd = [str(dist.java), *jvm, "-cp", dist.classpath, MAIN_CLASS, str(self.data_dir), str(self.conf)]
        offset = self.logfile.stat().st_size if self.logfile.exists() else 0
        t0 = time.perf_counter()
        with open(self.logfile, "ab") as out:
            out.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting Neo4j {dist.version} on {self.uri}\n".encode())
            out.flush()
            offset = out.tell()
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                          cwd=self.data_dir, start_new_session=True, preexec_fn=_default_signals)
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
            wait_for_bolt(self.uri, timeout=max(10.0, deadline - time.monotonic()))
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
        return (f"{self.service} on {self.host}:{self.bolt_port} ({self.port_setting}), data dir {self.data_dir}, "
                f"{what}.\n--- tail of {self.logfile} ---\n{log_tail(self.logfile, lines=40, since=offset)}\n"
                f"(Neo4j's own log: {self.data_dir / 'logs' / 'debug.log'})")

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
            raise ServiceError(f"{self.service} on port {self.bolt_port} did not stop within {timeout:.0f} s "
                               f"and was killed.\n--- tail of {self.logfile} ---\n{log_tail(self.logfile)}")

    def __enter__(self) -> "Neo4jServer":
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
