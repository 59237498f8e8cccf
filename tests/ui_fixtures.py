"""The Dagster UI as the README starts it, for tests: a pytest plugin (``pytest_plugins`` in tests/conftest.py).

``dagster_ui(env, log)`` is a context manager: it starts ``bash scripts/dagster-ui`` (webserver, daemon, code
server) on a free port with ``env``, its output in ``log``, yields the port, and stops the whole process group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_group(server: subprocess.Popen) -> None:
    """Stop the server's whole process group (children outlive a dead parent otherwise)."""
    for sig, wait in ((signal.SIGTERM, 60), (signal.SIGKILL, None)):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            return
        try:
            server.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def _dagster_ui(env: dict[str, str], log: Path, umask: int | None = None) -> Iterator[tuple[int, subprocess.Popen]]:
    port = free_port()
    old = os.umask(umask) if umask is not None else None  # the umask the script is started under
    with log.open("w") as sink:
        server = subprocess.Popen(
            ["bash", "scripts/dagster-ui"],
            cwd=REPO,
            env={**env, "LUCASRAG_DAGSTER_PORT": str(port)},
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: webserver, daemon and code server stop together
        )
    if old is not None:
        os.umask(old)
    try:
        yield port, server
    finally:
        stop_group(server)


@pytest.fixture(scope="session")
def dagster_ui():
    """``with dagster_ui(env, log[, umask]) as (port, server):`` the UI of ``scripts/dagster-ui`` while the block
    runs, started under ``umask`` if given."""
    return _dagster_ui
