"""The read side stays small: importing and querying never pulls in Dagster."""

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
