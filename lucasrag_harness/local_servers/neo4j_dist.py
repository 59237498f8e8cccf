"""Neo4j Community from Maven Central: the jars and the compiled launcher, cached.

No PyPI/apt package ships a usable Neo4j. ``services/neo4j/pom.xml`` names the
Community jars; the first start runs ``mvn dependency:copy-dependencies`` into a
cache directory and compiles ``Neo4jLauncher.java`` (a small main around the
embedded ``DatabaseManagementService`` with the Bolt connector on). Maven's
local repository (``~/.m2``) is reused, so a fresh cache directory costs a copy,
not a download; a complete cache directory costs nothing.

Cache directory: ``$LUCASRAG_NEO4J_HOME`` or ``~/.cache/lucasrag/neo4j-<version>/``
(``lib/`` jars, ``classes/`` launcher, ``.lucasrag-ready`` stamp).
Version: ``$LUCASRAG_NEO4J_VERSION`` (default :data:`NEO4J_VERSION`).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ._process import ServiceError

NEO4J_VERSION = "5.26.30"
VERSION_ENV = "LUCASRAG_NEO4J_VERSION"
HOME_ENV = "LUCASRAG_NEO4J_HOME"
MAIN_CLASS = "lucasrag.Neo4jLauncher"


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


def ensure_distribution(
    version: str | None = None, *, home: Path | None = None, timings: dict | None = None
) -> Neo4jDistribution:
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
            return (
                json.loads(stamp.read_text()) == wanted
                and (home / "classes" / "lucasrag" / "Neo4jLauncher.class").is_file()
            )
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
                raise ServiceError(
                    "Neo4j's jars come from Maven Central: install Maven (mvn) or set "
                    f"{HOME_ENV} to a prepared directory"
                )
            tmp = home / "lib.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            t0 = time.perf_counter()
            proc = subprocess.run(
                [
                    mvn,
                    "-q",
                    "-B",
                    "-f",
                    str(src / "pom.xml"),
                    f"-Dneo4j.version={version}",
                    f"-DoutputDirectory={tmp}",
                    "dependency:copy-dependencies",
                ],
                capture_output=True,
                text=True,
                cwd=home,
            )
            if proc.returncode != 0:
                tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
                raise ServiceError(
                    f"fetching Neo4j {version} with Maven failed (exit {proc.returncode}; "
                    f"{VERSION_ENV}={version}):\n{tail}"
                )
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
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise ServiceError(f"compiling {launcher.name} failed:\n{(proc.stdout + proc.stderr).strip()}")
        if timings is not None:
            timings["compile_s"] = time.perf_counter() - t0
        stamp.write_text(json.dumps(wanted))
    return Neo4jDistribution(version, home, java)
