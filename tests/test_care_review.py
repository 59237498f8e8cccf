"""Care review round trip: list, confirm, dismiss; decisions survive a wiped data folder (§3.11)."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from lucasrag_assets.ingest import run_ingest
from lucasrag_cli import app

pytestmark = pytest.mark.slow


def _bytes(vault):
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def test_review_round_trip_survives_a_wiped_data_folder(fresh_vault, tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    settings = fresh_vault
    env = {"LUCASRAG_VAULT": str(settings.vault), "LUCASRAG_DATA": str(settings.data), "LUCASRAG_NOW": "2026-06-01"}

    def run(*args):
        result = CliRunner().invoke(app, list(args), env=env)
        assert result.exit_code == 0, result.output
        return result.output

    run_ingest(settings)
    listed = {(r["path"], r["subject"]): r for r in json.loads(run("care", "list", "--json"))}
    breakup = listed[("journal/2021-03-14.md", "Maya")]
    assert breakup["mention"] == "Maya" and breakup["rule_cue"] and breakup["score"] is not None
    notes = {r["path"]: r for r in json.loads(run("notes", "--json"))}
    assert any(a["subject"] == "Maya" for a in notes["journal/2021-03-14.md"]["care"])

    before = _bytes(settings.vault)
    run("care", "dismiss", "journal/2021-03-14.md", "maya")
    run("care", "confirm", "journal/2025-11-02.md", "grandad")
    after = _bytes(settings.vault)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert changed == {".lucasrag/care_decisions.yaml", "journal/2025-11-02.md"}
    old, new = before["journal/2025-11-02.md"], after["journal/2025-11-02.md"]
    # One line added to the note's frontmatter; its other keys and its body byte for byte as they were.
    assert old.startswith(b"---\nband: present\n---\n")
    assert new == old.replace(b"band: present\n", b"band: present\ncharged: [Grandad Tom]\n", 1)

    shutil.rmtree(settings.data)  # decisions live in the vault, not in the data folder
    run_ingest(settings)
    notes = {r["path"]: r for r in json.loads(run("notes", "--json"))}
    assert notes["journal/2021-03-14.md"]["charged"] == []
    assert {a["source"] for a in notes["journal/2021-03-14.md"]["care"]} == {"dismissed"}
    assert notes["journal/2025-11-02.md"]["charged"] == ["Grandad Tom"]
    assert ("journal/2021-03-14.md", "Maya") not in {
        (r["path"], r["subject"]) for r in json.loads(run("care", "list", "--json"))
    }


@pytest.mark.parametrize(
    "args, message",
    [
        (["care", "confirm", "journal/2021-03-14.md", "Grandma Sue"], "not on the deference list"),
        (["care", "dismiss", "../outside.md", "Maya"], "not a path inside the vault"),
        (["care", "dismiss", "journal/2012-10-06 grandad's funeral.md", "grandad"], "in its frontmatter"),
    ],
)
def test_bad_decisions_are_refused_with_a_reason(fresh_vault, args, message):
    env = {"LUCASRAG_VAULT": str(fresh_vault.vault), "LUCASRAG_DATA": str(fresh_vault.data)}
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 2 and message in " ".join(result.output.split())
