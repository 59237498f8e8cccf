"""One decision for many quarantined notes: a tag, a folder, the notes like an example, the
router's best guess; a dry run writes nothing; each approval is a `workspace:` key and nothing else."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from lucasrag.catalog import read_catalog
from lucasrag_assets.ingest import run_ingest
from lucasrag_cli import app

pytestmark = pytest.mark.slow

NOTES = {  # too little content to route: each one is quarantined
    "garden/shed.md": "---\ntags: [someday]\n---\nideas for the shed\n",
    "garden/fence.md": "---\ntags: [someday/maybe]\n---\npaint the fence?\n",
    "garden/bike.md": "fix bike\n",
    "errands/stamps.md": "---\ntags: [Someday]\n---\nbuy stamps\n",
}


def _snapshot(vault):
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*.md")}


def _listed(output: str, verb: str) -> set[str]:
    return {line.split(" → ")[0].removeprefix(f"{verb} ") for line in output.splitlines() if line.startswith(verb)}


def test_one_decision_settles_a_tag_a_folder_or_the_notes_like_one(fresh_vault):
    settings = fresh_vault
    for rel, text in NOTES.items():
        (settings.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings.vault / rel).write_text(text)
    run_ingest(settings)
    rows = {r["path"]: r for r in read_catalog(settings).to_dicts()}
    assert all(rows[p]["status"] == "quarantined" for p in NOTES), {p: rows[p]["status"] for p in NOTES}
    env = {"LUCASRAG_VAULT": str(settings.vault), "LUCASRAG_DATA": str(settings.data), "LUCASRAG_NOW": "2026-06-01"}
    cli = CliRunner()

    def run(*args):
        result = cli.invoke(app, ["quarantine", "approve", *args], env=env)
        assert result.exit_code == 0, result.output
        return result.output

    before = _snapshot(settings.vault)
    tagged = run("--tag", "someday", "-w", "personal", "--dry-run")
    assert _listed(tagged, "would approve") == {"garden/shed.md", "garden/fence.md", "errands/stamps.md"}
    assert "3 would be approved" in tagged
    fewer = run("--tag", "someday", "--except", "errands/stamps.md", "-w", "personal", "--dry-run")
    assert _listed(fewer, "would approve") == {"garden/shed.md", "garden/fence.md"}
    like = run("--like", "garden/bike.md", "--similarity", "0.99", "-w", "personal", "--dry-run")
    assert _listed(like, "would approve") == {"garden/bike.md"} and "(similarity 1.00)" in like
    for workspace in ("personal", "technical"):
        guessed = _listed(run("--suggested", "-w", workspace, "--dry-run"), "would approve")
        held = {p for p, r in rows.items() if r["status"] == "quarantined" and r["suggestion"] == workspace}
        assert guessed == held
    assert _snapshot(settings.vault) == before, "a dry run wrote to the vault"

    done = run("--tag", "someday", "--folder", "garden", "-w", "personal")
    assert _listed(done, "approved") == {"garden/shed.md", "garden/fence.md"}
    after = _snapshot(settings.vault)
    changed = {p for p in before if before[p] != after[p]}
    assert changed == {"garden/shed.md", "garden/fence.md"}
    assert after["garden/shed.md"].decode() == "---\ntags: [someday]\nworkspace: personal\n---\nideas for the shed\n"

    run_ingest(settings)
    rows = {r["path"]: r for r in read_catalog(settings).to_dicts()}
    assert rows["garden/shed.md"]["workspace"] == rows["garden/fence.md"]["workspace"] == "personal"
    assert rows["garden/bike.md"]["status"] == rows["errands/stamps.md"]["status"] == "quarantined"


def test_a_batch_needs_a_selection_and_a_path_is_not_a_batch(fresh_vault):
    env = {"LUCASRAG_VAULT": str(fresh_vault.vault), "LUCASRAG_DATA": str(fresh_vault.data)}
    result = CliRunner().invoke(
        app, ["quarantine", "approve", "inbox/ideas.md", "--tag", "x", "-w", "personal"], env=env
    )
    assert result.exit_code == 2 and "one of the two" in " ".join(result.output.split())
    result = CliRunner().invoke(
        app, ["quarantine", "approve", "inbox/ideas.md", "--dry-run", "-w", "personal"], env=env
    )
    assert result.exit_code == 2 and "one PATH is one decision" in " ".join(result.output.split())
