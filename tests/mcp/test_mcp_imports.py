"""The MCP server is read side: building it and answering a call never imports the write side or Dagster."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "lucasrag_query" / "mcp"


def test_no_module_of_the_mcp_package_imports_the_write_side():
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert not name.startswith(("lucasrag_assets", "dagster")), f"{path.name} imports {name}"


@pytest.fixture(scope="module")
def loaded_after_serving(ingested) -> list[str]:
    """In a fresh interpreter: build the server, call every tool in process; the write-side and
    Dagster modules then in sys.modules."""
    code = f"""
import sys, anyio
from mcp import Client
from lucasrag.settings import Settings
from lucasrag_query.mcp import build_server
import datetime as dt
from pathlib import Path

import pytest
settings = Settings(vault=Path({str(ingested.vault)!r}), data=Path({str(ingested.data)!r}), now=dt.date(2026, 6, 1))
async def main():
    async with Client(build_server(settings)) as client:
        assert not (await client.call_tool("search", {{"query": "where do I live?"}})).is_error
        assert not (await client.call_tool("read_note", {{"path": "personal/facts.md"}})).is_error
        assert not (await client.call_tool("status", {{}})).is_error
anyio.run(main)
print("LOADED", " ".join(sorted(m for m in sys.modules if m.split(".")[0] in ("lucasrag_assets", "dagster"))))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    line = next(x for x in out.stdout.splitlines() if x.startswith("LOADED"))
    return line.split()[1:]


def test_serving_a_call_loads_no_dagster(loaded_after_serving):
    assert not [m for m in loaded_after_serving if m.split(".")[0] == "dagster"]


def test_serving_a_call_loads_no_write_side(loaded_after_serving):
    assert not [m for m in loaded_after_serving if m.split(".")[0] == "lucasrag_assets"]
