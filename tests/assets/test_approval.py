"""Quarantine approval round trip through the CLI: the note is indexed where the
person said, its body bytes are unchanged, and no other vault file changes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lucasrag.catalog import read_catalog
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.rules.vault_scan import parse_note
from lucasrag_cli import app

pytestmark = pytest.mark.slow
NOTE = "inbox/hetzner and a poem.md"


def _env(settings):
    return {
        "LUCASRAG_VAULT": str(settings.vault),
        "LUCASRAG_DATA": str(settings.data),
        "LUCASRAG_NOW": settings.now.isoformat(),
    }


def test_approve_round_trip(fresh_vault):
    settings = fresh_vault
    run_ingest(settings)
    runner = CliRunner()
    listed = runner.invoke(app, ["quarantine", "list", "--json"], env=_env(settings))
    assert listed.exit_code == 0, listed.output
    pending = {row["path"]: row for row in json.loads(listed.stdout)}
    assert NOTE in pending and pending[NOTE]["approved_workspace"] is None

    before = {p: p.read_bytes() for p in settings.vault.rglob("*") if p.is_file()}
    body_before = parse_note(settings.vault, settings.vault / NOTE, max_bytes=1 << 20).body
    approved = runner.invoke(app, ["quarantine", "approve", NOTE, "--workspace", "technical"], env=_env(settings))
    assert approved.exit_code == 0, approved.output

    raw = (settings.vault / NOTE).read_bytes()
    original = before[settings.vault / NOTE]
    assert raw.endswith(original), "the note's original bytes follow the new frontmatter untouched"
    assert parse_note(settings.vault, settings.vault / NOTE, max_bytes=1 << 20).body == body_before
    for path, data in before.items():
        if path != settings.vault / NOTE:
            assert path.read_bytes() == data, path

    relisted = json.loads(runner.invoke(app, ["quarantine", "list", "--json"], env=_env(settings)).stdout)
    assert {r["path"]: r["approved_workspace"] for r in relisted}[NOTE] == "technical"

    run_ingest(settings)
    row = read_catalog(settings).filter(path=NOTE).to_dicts()[0]
    assert (row["status"], row["workspace"], row["confidence"]) == ("indexed", "technical", 1.0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["inbox/nope.md", "--workspace", "technical"], "not"),
        ([NOTE, "--workspace", "kitchen"], "workspace"),
        (["../outside.md", "--workspace", "technical"], "vault"),
    ],
    ids=["missing-file", "unknown-workspace", "outside-vault"],
)
def test_approve_rejects_bad_input(fresh_vault, args, message):
    result = CliRunner().invoke(app, ["quarantine", "approve", *args], env=_env(fresh_vault))
    assert result.exit_code == 2
    assert message in result.output.lower()
