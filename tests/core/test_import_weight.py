"""The read side stays small: importing and querying never pulls in Dagster."""

import os
import shutil
import subprocess
import sys

import pytest


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_importing_the_query_package_does_not_import_dagster():
    modules = _modules_after("import lucasrag_query")
    assert not {m for m in modules if m == "dagster" or m.startswith("dagster.")}
    assert "lightrag" not in modules  # loaded on first query only


def test_cli_help_does_not_import_dagster():
    modules = _modules_after("from lucasrag_cli import app")
    assert "dagster" not in modules


@pytest.mark.slow
def test_a_query_does_not_import_dagster(ingested):
    code = (
        "import datetime as dt; from pathlib import Path\n"
        "from lucasrag.settings import Settings; from lucasrag_query import query\n"
        f"s = Settings(vault=Path({str(ingested.vault)!r}), data=Path({str(ingested.data)!r}), now=dt.date(2026, 6, 1))\n"
        "query('where do I live?', settings=s)"
    )
    assert "dagster" not in _modules_after(code)


# A fresh `lucasrag ingest` that finds nothing changed: which modules it loaded, and how it left the collector.
_NO_CHANGE_INGEST = """
import atexit, gc, sys
atexit.register(lambda: print("frozen_at_exit", gc.get_freeze_count()))  # runs after the CLI's own exit hook
from lucasrag_cli import app
try:
    app(["ingest"])
except SystemExit as exc:
    assert not exc.code, exc.code
print("young_threshold", gc.get_threshold()[0])
print("modules", " ".join(sys.modules))
"""


@pytest.mark.slow
def test_a_no_change_ingest_loads_neither_lightrag_nor_the_model_and_skips_the_last_collection(ingested, tmp_path):
    root = ingested.data.parent
    shutil.copytree(root, tmp_path / "copy", symlinks=True)  # the session's build is read-only for its users
    copy = tmp_path / "copy"
    env = {
        **os.environ,
        "LUCASRAG_VAULT": str(copy / ingested.vault.relative_to(root)),
        "LUCASRAG_DATA": str(copy / ingested.data.relative_to(root)),
        "LUCASRAG_NOW": ingested.now.isoformat(),
        "DAGSTER_HOME": str(copy / "dagster"),
    }
    env.pop("LUCASRAG_DAGSTER_PG_URL", None)
    done = subprocess.run([sys.executable, "-c", _NO_CHANGE_INGEST], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = dict(
        line.split(" ", 1) for line in done.stdout.splitlines() if line.startswith(("modules", "young", "frozen"))
    )
    modules = set(lines["modules"].split())
    # nothing to embed, no workspace to write: neither the model's runtime nor LightRAG is imported
    assert not {m.split(".")[0] for m in modules} & {"lightrag", "onnxruntime", "tokenizers", "mcp"}
    assert "dagster" in modules  # it was a Dagster run
    young, frozen = int(lines["young_threshold"]), int(lines["frozen_at_exit"])
    assert young == 50_000 and frozen > 100_000  # lucasrag_cli/_collector.py: every live object frozen at exit
