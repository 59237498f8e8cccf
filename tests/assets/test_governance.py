"""Approval means approval, and no silent moves, end to end through the CLI on a copy of
the sample vault: refused approvals change no byte; folder approval and an explicit move are
recorded; the next ingest lists every note whose status, workspace or band changed, with the reason."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lucasrag.catalog import read_catalog
from lucasrag.vault_files import vault_fingerprint
from lucasrag_assets.ingest import run_ingest
from lucasrag_cli import app

pytestmark = pytest.mark.slow
INVALID = ("inbox/binary.md", "inbox/latin1.md", "inbox/empty.md", "inbox/broken-frontmatter.md")


def _env(settings):
    return {"LUCASRAG_VAULT": str(settings.vault), "LUCASRAG_DATA": str(settings.data), "LUCASRAG_NOW": "2026-06-01"}


def _snapshot(vault):
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def _state(frame):
    return {r["path"]: (r["status"], r["workspace"], r["band"]) for r in frame.iter_rows(named=True)}


def test_governance_round_trip(fresh_vault):
    settings = fresh_vault
    run_ingest(settings)
    cli = CliRunner()

    def run(*args):
        return cli.invoke(app, list(args), env=_env(settings))

    untouched = _snapshot(settings.vault)
    refused = {
        "routed note": (("quarantine", "approve", "journal/2013-04-02.md", "-w", "administrative"),
                        ["not quarantined", "indexed in personal", "lucasrag route journal/2013-04-02.md"]),
        **{f"invalid {p}": (("quarantine", "approve", p, "-w", "personal"), ["is invalid (", "never writes"])
           for p in INVALID},
        "README typo": (("quarantine", "approve", "inbox/idea.md", "-w", "creative"),
                        ["did you mean 'inbox/ideas.md'"]),
        "route an invalid file": (("route", "inbox/latin1.md", "-w", "personal"), ["is invalid (not UTF-8"]),
        "no path, no folder": (("quarantine", "approve", "-w", "personal"), ["PATH or --folder"]),
    }  # fmt: skip
    for what, (args, parts) in refused.items():
        result = run(*args)
        assert result.exit_code == 2, (what, result.output)
        flat = " ".join(result.output.split())
        for part in parts:
            assert part in flat, (what, flat)
    assert _snapshot(settings.vault) == untouched, "a refused approval changed a file"
    same = run("route", "journal/2018-03-17.md", "--workspace", "personal")  # routed there by the router
    assert same.exit_code == 0, same.output
    assert "nothing to change" in same.output
    assert _snapshot(settings.vault) == untouched, "a move to where the note already is changed a file"

    folder = run("quarantine", "approve", "--folder", "inbox", "--workspace", "personal")
    assert folder.exit_code == 0, folder.output
    held = {r["path"] for r in read_catalog(settings).to_dicts() if r["status"] == "quarantined"}
    assert held and all(f"approved {p} → personal" in folder.output for p in held)
    moved = run("route", "journal/2018-03-17.md", "--workspace", "administrative")
    assert moved.exit_code == 0, moved.output
    assert "indexed in personal (routed at confidence" in moved.output and "→ administrative" in moved.output
    for path in INVALID:
        assert (settings.vault / path).read_bytes() == untouched[path]

    before = _state(read_catalog(settings))
    summary = run_ingest(settings)
    after = _state(read_catalog(settings))
    # what the run listed is what a watcher lists (it takes the run's word for it: lucasrag.vault_watch)
    assert summary.vault_fingerprint == vault_fingerprint(settings.vault)
    differ = {p for p in before if before[p] != after.get(p)}
    assert differ == {c["path"] for c in summary.changes}, "every changed note is listed, and only those"
    reasons = {c["path"]: c["reason"] for c in summary.changes}
    assert all(reasons[p].startswith("approval") for p in held)
    assert reasons["journal/2018-03-17.md"].startswith("explicit move")
    assert after["journal/2018-03-17.md"][:2] == ("indexed", "administrative")
    others = set(reasons) - held - {"journal/2018-03-17.md"}
    assert all(reasons[p].startswith("router learning") for p in others), {p: reasons[p] for p in others}

    listed = run("notes", "--changed", "--json")
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout) == summary.changes
    for path in INVALID:
        assert (settings.vault / path).read_bytes() == untouched[path], "an invalid file was written to"
