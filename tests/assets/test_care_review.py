"""Care review round trip: list, confirm, dismiss; decisions survive a wiped data folder (§3.11)."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from lucasrag_assets.ingest import run_ingest
from lucasrag_cli import app

pytestmark = pytest.mark.slow


def _cli(settings):
    """``run(*args)``: the CLI on ``settings``' vault and data folder; its output, exit code 0 asserted."""
    env = {"LUCASRAG_VAULT": str(settings.vault), "LUCASRAG_DATA": str(settings.data), "LUCASRAG_NOW": "2026-06-01"}

    def run(*args):
        result = CliRunner().invoke(app, list(args), env=env)
        assert result.exit_code == 0, result.output
        return result.output

    return run


def _bytes(vault):
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def test_review_round_trip_survives_a_wiped_data_folder(fresh_vault, tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    settings = fresh_vault
    run = _cli(settings)

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


def test_a_batch_review_reaches_zero_pending_and_converges(fresh_vault, tmp_path, monkeypatch):
    """The sample vault's pending pairs, most likely neutral first, settled by two batch decisions; each
    decision settles what it selects and adds nothing; nothing but the decisions file and the confirmed
    notes' frontmatter changes."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    settings = fresh_vault
    run = _cli(settings)

    def pending():
        return [(r["path"], r["subject"]) for r in json.loads(run("care", "list", "--json"))]

    run_ingest(settings)
    rows = json.loads(run("care", "list", "--json"))
    assert [r["neutral"] for r in rows if r["subject"] == "Grandad Tom"] == sorted(
        (r["neutral"] for r in rows if r["subject"] == "Grandad Tom"), reverse=True
    )  # most likely neutral first, within each subject
    assert all(r["sentence"] and r["why"] for r in rows)
    before, start = _bytes(settings.vault), pending()
    recipe = ("personal/recipes/grandad tom's lamb stew.md", "Grandad Tom")
    assert recipe in start and len(start) == 4

    dry = run("care", "dismiss", "--neutral-above", "0.9", "--dry-run")
    assert "would dismiss Grandad Tom for personal/recipes/grandad tom's lamb stew.md" in dry
    maya = run("care", "confirm", "--subject", "maya r", "--dry-run")  # an alias names the subject
    assert maya.count("would confirm Maya for") == sum(s == "Maya" for _, s in start) and "Grandad" not in maya
    assert _bytes(settings.vault) == before  # a dry run records nothing
    run("care", "dismiss", "--neutral-above", "0.9")
    run("care", "confirm", "--neutral-below", "0.9")
    summary = run_ingest(settings)
    assert pending() == []  # two decisions: zero pending, nothing new
    released = [c for c in summary.changes if c["path"] == recipe[0]]  # the summary names the care change
    assert [(c["field"], c["old"], c["new"]) for c in released] == [("withheld", "Grandad Tom", "none")]
    assert released[0]["reason"].startswith("care decision")

    after = _bytes(settings.vault)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert changed == {".lucasrag/care_decisions.yaml", *(p for p, _ in start if p != recipe[0])}
    for path in changed - {".lucasrag/care_decisions.yaml"}:  # one frontmatter line added, the rest byte for byte
        (subject,) = {s for p, s in start if p == path}
        line = f"charged: [{subject}]\n".encode()
        assert after[path].replace(line, b"", 1) in (before[path], b"---\n---\n" + before[path])
    shutil.rmtree(settings.data)  # the review outlives the data folder
    run_ingest(settings)
    assert pending() == []
    notes = {r["path"]: r for r in json.loads(run("notes", "--json"))}
    assert notes[recipe[0]]["charged"] == [] and notes["journal/2025-11-02.md"]["charged"] == ["Grandad Tom"]


def test_the_dagster_job_records_a_batch_decision(fresh_vault, tmp_path, monkeypatch):
    """The record_care_decision job: a dry run lists, a real run records, as the CLI does."""
    from lucasrag_assets.assets.care import record_care_decision
    from lucasrag_assets.resources import LucasragSettings

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    settings = fresh_vault
    run_ingest(settings)
    resources = {"lucasrag": LucasragSettings.from_settings(settings)}

    def launch(**config):
        result = record_care_decision.execute_in_process(
            run_config={"ops": {"record_care": {"config": config}}}, resources=resources
        )
        assert result.success
        return result

    launch(decision="dismiss", folder="personal/recipes")  # dry_run defaults to True
    assert not (settings.vault / ".lucasrag/care_decisions.yaml").exists()
    launch(decision="dismiss", folder="personal/recipes", dry_run=False)
    recorded = (settings.vault / ".lucasrag/care_decisions.yaml").read_text()
    assert "grandad tom's lamb stew.md" in recorded and "by: dagster" in recorded
    with pytest.raises(Exception, match="decision"):  # "maybe" is refused by the form, before the run
        record_care_decision.execute_in_process(
            run_config={"ops": {"record_care": {"config": {"decision": "maybe"}}}}, resources=resources
        )
