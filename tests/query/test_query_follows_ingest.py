"""A long-lived query process keeps its workspaces open across an ingest: the stores it opened follow the
ingest's writes (the chunk store by ``PRAGMA data_version``, LightRAG's rows in ``lightrag.sqlite`` by the
rows each flush stamped), so a new, changed or deleted note answers right away without reopening a store;
a rebuilt workspace (its files made anew) is opened again."""

from __future__ import annotations

import pytest

from lucasrag_assets.ingest import run_ingest
from lucasrag_query import _indexes, query

pytestmark = pytest.mark.slow

NOTES = {
    "tech/quokka.md": "---\nworkspace: technical\n---\nThe quokka cluster runs Postgres 16; vacuum nightly.\n",
    "tech/nginx.md": "---\nworkspace: technical\n---\nnginx terminates TLS for the billing API.\n",
    "journal/2026-04-11.md": "Walked the canal to the bakery; bought rye and sat by the lock gates.\n",
    "admin/insurance.md": "---\nworkspace: administrative\n---\nHome insurance renews in March; policy HX-220.\n",
}


def _paths(settings, text: str) -> list[str]:
    return [r.path for r in query(text, settings=settings, top_k=10).results]


def _opened(settings) -> dict[str, object]:
    """The open workspaces that hold notes (creative holds none here)."""
    return {key[2]: e for key, e in _indexes._open.items() if key[0] == str(settings.data) and key[2] != "creative"}


def test_an_ingest_is_followed_without_reopening_and_a_rebuild_reopens(notes_vault, tmp_path, settings_for):
    vault = notes_vault(tmp_path / "vault", NOTES)
    settings = settings_for(vault, tmp_path / "data")
    run_ingest(settings)
    assert "tech/quokka.md" in _paths(settings, "quokka cluster postgres")
    opened = _opened(settings)
    assert set(opened) == {"technical", "personal", "administrative"}

    (vault / "tech/wombat.md").write_text("---\nworkspace: technical\n---\nThe wombat gateway fronts quokka.\n")
    (vault / "tech/nginx.md").unlink()
    (vault / "tech/quokka.md").write_text(NOTES["tech/quokka.md"] + "Moved to the numbat rack in May.\n")
    run_ingest(settings)
    assert _paths(settings, "wombat gateway")[0] == "tech/wombat.md"
    assert _paths(settings, "numbat rack")[0] == "tech/quokka.md"
    assert "tech/nginx.md" not in _paths(settings, "nginx terminates TLS")
    now = _opened(settings)
    assert set(now) == set(opened) and all(now[ws] is opened[ws] for ws in opened)  # none reopened

    run_ingest(settings, rebuild=["technical"])
    assert _paths(settings, "wombat gateway")[0] == "tech/wombat.md"
    after = _opened(settings)
    assert after["technical"] is not opened["technical"]  # its files were made anew: opened again
    assert after["personal"] is opened["personal"]
