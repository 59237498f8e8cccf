"""Recency by what ages, end to end: an ingest bands each note by what it is, `lucasrag notes
--json` says why, and a changed property (`updated:`, `band:`) rebands the note at the next ingest."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lucasrag_assets.ingest import run_ingest
from lucasrag_cli import app

pytestmark = pytest.mark.slow

DIARY = "We walked along the river this morning and I finally called Ana about the flat. Tired tonight.\n"
NOTES = {  # path → (text, band, words of the reason); LUCASRAG_NOW is 2026-06-01, the cutoff 2023-06-01
    "Daily/2019-05-01.md": (DIARY, "archival", ["time-bound", "Daily", "before the archive cutoff"]),
    "References/old pudding.md": (
        "---\ncreated: 2015-03-02\ncategories: ['[[Recipes]]']\n---\n## Ingredients\n- bread\n- milk\n"
        "## Method\n1. Soak the bread.\n2. Bake for forty minutes.\n",
        "present",
        ["timeless", "Recipes", "does not age"],
    ),
    "Notes/Spaced repetition.md": (
        "---\ncreated: 2016-01-01\n---\nSpaced repetition is a technique for remembering: you review a card "
        "just before you would forget it, at growing intervals.\n",
        "present",
        ["only says when it was written"],
    ),
    "journal/2019-06-01 the flat.md": (
        "---\nupdated: 2026-05-01\n---\n" + DIARY,
        "present",
        ["time-bound", "updated 2026-05-01"],
    ),
}


def _placed(text: str) -> str:
    """The note with ``workspace: personal``: the router is not what this test is about."""
    if text.startswith("---\n"):
        return text.replace("---\n", "---\nworkspace: personal\n", 1)
    return "---\nworkspace: personal\n---\n" + text


def _notes(settings) -> dict[str, dict]:
    env = {"LUCASRAG_VAULT": str(settings.vault), "LUCASRAG_DATA": str(settings.data), "LUCASRAG_NOW": "2026-06-01"}
    result = CliRunner().invoke(app, ["notes", "--json"], env=env)
    assert result.exit_code == 0, result.output
    return {row["path"]: row for row in json.loads(result.stdout)}


def test_notes_are_banded_by_what_ages_and_say_why(fresh_vault):
    settings = fresh_vault
    for rel, (text, _, _) in NOTES.items():
        (settings.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings.vault / rel).write_text(_placed(text))
    run_ingest(settings)
    rows = _notes(settings)
    for rel, (_, band, reason) in NOTES.items():
        assert rows[rel]["band"] == band, (rel, rows[rel]["band_reason"])
        assert all(word in rows[rel]["band_reason"] for word in reason), (rel, rows[rel]["band_reason"])
    assert all(row["band_reason"] for row in rows.values() if row["status"] == "indexed")

    daily = settings.vault / "Daily/2019-05-01.md"
    daily.write_text(daily.read_text().replace("---\n", "---\nband: present\n", 1))
    (settings.vault / "journal/2019-06-01 the flat.md").write_text(_placed(DIARY))
    run_ingest(settings)
    rows = _notes(settings)
    assert (rows["Daily/2019-05-01.md"]["band"], rows["Daily/2019-05-01.md"]["band_reason"]) == (
        "present",
        "its band: property says present",
    )
    assert rows["journal/2019-06-01 the flat.md"]["band"] == "archival"  # the recent edit is gone
