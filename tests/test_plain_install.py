"""`pip install .` into an empty virtual environment gives a working LucasRAG: no hidden second
install step, no torch. Slow (a real install, from pip's cache when warm), so it runs once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]


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
    ingest = _run([lucasrag, "ingest"], env=env, cwd=tmp_path)
    assert ingest.returncode == 0, ingest.stdout[-2000:] + ingest.stderr[-3000:]

    answer = _run([lucasrag, "query", "what is the pocket watch insured for?", "--json"], env=env, cwd=tmp_path)
    assert answer.returncode == 0, answer.stderr[-3000:]
    results = json.loads(answer.stdout)["results"]
    assert results and any("watch" in r["text"].lower() for r in results[:5])
    assert sys.executable != str(python)  # the test really ran outside the project's venv
