"""The README's "Using it" section is executable truth: every command in its ``bash`` blocks
runs, in order, against a copy of the sample vault in a temporary data folder, and must exit 0.

The README is parsed when the test runs, so a command added to the section is checked from then on.
A command is a line that starts with ``lucasrag `` or ``bash scripts/`` (environment lines such as
``export`` or ``. .venv/bin/activate`` are the test's own setup); trailing comments are bash's to ignore.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
SECTION = "## Using it"
COMMAND_PREFIXES = ("lucasrag ", "bash scripts/")
#: Commands that cannot run offline in a test, by their leading words, each with the reason.
SKIP = {
    "lucasrag migrate --to production": "needs the PostgreSQL and Neo4j of `lucasrag services start` "
    "(tests/assets/test_production_profile.py runs the migration against them)",
    "lucasrag mcp": "serves an assistant until it disconnects (tests/mcp drive it, stdio and HTTP, with the SDK client)",
    "lucasrag watch": "watches until Ctrl-C (tests/core/test_vault_watch.py drives the watcher)",
}
#: Seconds any one command may take: the data folder is pre-ingested, so this only catches a hang.
COMMAND_TIMEOUT = 300
#: Seconds `scripts/dagster-ui` may take to serve the asset graph on two shared cores.
UI_TIMEOUT = 300


def using_it_commands(readme: str) -> list[str]:
    """The command lines of the section's ``bash`` blocks (its subsections included), in order."""
    lines = readme.splitlines()
    start = lines.index(SECTION)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    commands, in_bash = [], False
    for line in lines[start:end]:
        if line.startswith("```"):
            in_bash = not in_bash and line.strip() == "```bash"
        elif in_bash and line.strip().startswith(COMMAND_PREFIXES):
            commands.append(line.strip())
    return commands


def skip_reason(command: str) -> str | None:
    words = shlex.split(command, comments=True)
    return next((why for prefix, why in SKIP.items() if words[: len(prefix.split())] == prefix.split()), None)


def test_the_section_has_commands(repo):
    commands = using_it_commands((repo / "README.md").read_text())
    assert "lucasrag ingest" in {" ".join(shlex.split(c, comments=True)) for c in commands}
    assert any(c.startswith("lucasrag query") for c in commands)
    assert any(c.startswith("bash scripts/dagster-ui") for c in commands)


def test_every_command_of_using_it_runs(repo, shell_env, tmp_path, dagster_ui):
    failures = []
    for command in using_it_commands((repo / "README.md").read_text()):
        if skip_reason(command):
            continue
        if shlex.split(command, comments=True) == ["bash", "scripts/dagster-ui"]:
            problem = dagster_ui_problem(repo, shell_env, tmp_path, dagster_ui)
        else:
            problem = command_problem(command, repo, shell_env)
        if problem:
            failures.append(f"{command}\n{problem}")
    assert not failures, "\n\n".join(failures)


def command_problem(command: str, repo: Path, env: dict[str, str]) -> str | None:
    try:
        run = subprocess.run(
            ["bash", "-c", command],
            cwd=repo,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return f"still running after {COMMAND_TIMEOUT}s (a server? add it to SKIP with the reason)"
    return None if run.returncode == 0 else f"exit {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"


def _asset_keys(port: int) -> list[str]:
    body = json.dumps({"query": "{ assetNodes { assetKey { path } } }"}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/graphql", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        nodes = json.load(response)["data"]["assetNodes"]
    return ["/".join(n["assetKey"]["path"]) for n in nodes]


def dagster_ui_problem(repo: Path, env: dict[str, str], tmp_path: Path, dagster_ui) -> str | None:
    """Start the UI server, wait until it serves the asset graph, stop it; its start must be free of the
    `dg dev` notice and the misleading dagster.yaml warning."""
    log = tmp_path / "dagster-ui.log"
    with dagster_ui(env, log) as (port, server):
        keys: list[str] = []
        deadline = time.monotonic() + UI_TIMEOUT
        while "vault_notes" not in keys and server.poll() is None and time.monotonic() < deadline:
            time.sleep(2)
            try:
                keys = _asset_keys(port)
            except (OSError, KeyError, TypeError, ValueError):
                continue
    output = log.read_text()
    if "vault_notes" not in keys:
        return f"no asset graph served within {UI_TIMEOUT}s:\n{output[-3000:]}"
    noise = [marker for marker in ("dg dev", "Found a dagster instance configuration") if marker in output]
    return f"start-up warnings {noise}:\n{output[-3000:]}" if noise else None
