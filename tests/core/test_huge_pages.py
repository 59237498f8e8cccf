"""The ingest's processes allocate their big per-run arrays without asking for huge pages (lucasrag.huge_pages),
unless the person chose otherwise with NUMPY_MADVISE_HUGEPAGE."""

import subprocess
import sys

import pytest

PROBE = (
    "import lucasrag_assets.definitions\n"
    "from numpy._core.multiarray import _set_madvise_hugepage\n"
    "print(_set_madvise_hugepage(False))\n"  # returns the setting it replaces
)


@pytest.mark.parametrize(("env", "advised"), [({}, "False"), ({"NUMPY_MADVISE_HUGEPAGE": "1"}, "True")])
def test_loading_the_code_location_turns_the_advice_off_unless_the_person_set_it(env, advised, monkeypatch):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == advised
