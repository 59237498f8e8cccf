"""What's new (``lucasrag recent``, MCP ``recent``): notes written or changed in the last N days by their own
date or updated: property — never a file's mtime — newest first, through the same care policy as search;
quarantined and private notes never appear."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from lucasrag_query.recent import RecentError, recent

pytestmark = pytest.mark.slow

NOTES = {
    ".lucasrag/deference.yaml": "subjects:\n  - name: Aunt Rosa\n    aliases: [rosa]\n    since: 2025-02-01\n",
    ".lucasrag/private": "Secret/\n",
    "Daybook/2026-05-30.md": "---\nworkspace: personal\n---\nWalked to the market and bought broad beans for the week.\n",
    "Daybook/2026-05-01.md": "---\nworkspace: personal\n---\nLong day at the allotment, planted the leeks in two rows.\n",
    "Daybook/2026-05-29.md": "---\nworkspace: personal\n---\nA year since Rosa died. I lit a candle for her this morning and cried over her letters.\n",
    "Ref/sourdough.md": "---\nworkspace: personal\nupdated: 2026-05-31\n---\nFeed the starter 1:1:1, bake at 240.\n",
    "Ref/old boiler.md": "---\nworkspace: administrative\ndate: 2020-01-01\n---\nBoiler serviced, next due 2021.\n",
    "Secret/2026-05-31.md": "---\nworkspace: personal\n---\nThe therapist said to write it down.\n",
    "Loose/2026-05-31 misc.md": "Thursday?\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory, notes_vault, settings_for, ingest_at):
    root = tmp_path_factory.mktemp("recent")
    settings = settings_for(notes_vault(root / "vault", NOTES), root / "data")
    old = settings.vault / "Ref" / "old boiler.md"
    ingest_at(settings, root / "dagster")
    os.utime(old)  # touched after the ingest (a sync, a checkout): its mtime is not its moment
    return settings


def test_newest_first_by_the_notes_own_record(vault):
    result = recent(7, settings=vault)
    assert [n.path for n in result.notes] == ["Ref/sourdough.md", "Daybook/2026-05-30.md"]
    assert result.notes[0].updated == "2026-05-31" and result.notes[0].changed == "2026-05-31"
    assert result.since == "2026-05-26"
    assert "Daybook/2026-05-01.md" in {n.path for n in recent(45, settings=vault).notes}


def test_care_applies_and_private_and_quarantined_notes_never_appear(vault):
    result = recent(7, settings=vault)
    paths = {n.path for n in result.notes}
    assert "Daybook/2026-05-29.md" not in paths
    [hint] = [h for h in result.hints if h.kind == "deference"]
    assert hint.subject == "Aunt Rosa" and hint.withheld == 1
    bridged = recent(7, settings=vault, bridge=["Aunt Rosa"])
    assert "Daybook/2026-05-29.md" in {n.path for n in bridged.notes}
    every = {n.path for n in recent(366, settings=vault, bridge=["Aunt Rosa"]).notes}
    assert not {p for p in every if p.startswith(("Secret/", "Loose/"))}
    assert "Secret" not in json.dumps(recent(366, settings=vault).to_dict())


def test_workspaces_and_bad_arguments(vault):
    assert {n.workspace for n in recent(366, workspaces=["personal"], settings=vault).notes} == {"personal"}
    for days in (0, 367, "7"):
        with pytest.raises(RecentError, match="days must be"):
            recent(days, settings=vault)
    with pytest.raises(RecentError, match="workspace"):
        recent(7, workspaces=["diary"], settings=vault)


def test_the_cli(vault):
    from lucasrag_cli import app

    env = {"LUCASRAG_VAULT": str(vault.vault), "LUCASRAG_DATA": str(vault.data), "LUCASRAG_NOW": "2026-06-01"}
    done = CliRunner().invoke(app, ["recent", "--days", "7", "--json"], env=env)
    assert done.exit_code == 0, done.output
    assert [n["path"] for n in json.loads(done.output)["notes"]] == ["Ref/sourdough.md", "Daybook/2026-05-30.md"]
    table = CliRunner().invoke(app, ["recent"], env=env)
    assert table.exit_code == 0 and "sourdough" in table.output and "Aunt Rosa" in table.output


def test_a_filter_never_reaches_a_private_note(vault):
    """A folder filter naming a private folder finds nothing there, and says nothing of it."""
    from lucasrag_query import query

    result = query("what did the therapist say?", settings=vault, folders=["Secret"], archive=True)
    assert result.results == [] and "write it down" not in json.dumps(result.to_dict(why=True))
    assert not [h for h in result.hints if "Secret" in h.message]
