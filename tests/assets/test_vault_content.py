"""Real-vault conventions end to end: a small Obsidian-style vault written here, ingested,
then searched. Each note reproduces one convention; the rules' own tables are in tests/rules/."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lucasrag.settings import Settings

pytestmark = pytest.mark.slow
NOW = dt.date(2026, 6, 1)


def settings_for(vault: Path, data: Path) -> Settings:
    return Settings(vault=vault, data=data, now=NOW)


NOTES = {
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
    "Templates/Daily.md": "---\ncreated: {{date}}\ntags: [daily]\n---\n# {{title}}\n",
    "Daily/2021-03-04.md": "---\nworkspace: personal\n---\nWalked to the harbour with Ana and watched the ferries.\n",
    "Journal/new year.md": "---\ndate: 'Jan 1, 2025'\nworkspace: personal\n---\nFireworks over the river, then soup.\n",
    "Journal/someday.md": "---\ndate: soon\nworkspace: personal\n---\nA note whose date nobody can read.\n",
    "202103041022 Idea.md": "---\nworkspace: creative\n---\nA story told backwards, from the last page.\n",
    "Films/Alien.md": '---\nworkspace: creative\ndirector: "[[Ridley Scott]]"\nrating: 7\nyear: 1979\n---\n',
    "Notes/Lunch.md": (
        "---\nworkspace: personal\n---\n"
        "Lunch with [[People/Ana Sousa|Ana]] at [[Cervejaria Ramiro]]. %% she still owes me forty euros %%\n"
        "![[receipt.png]]\n"
        "We ordered prawns and a bottle of vinho verde. ^lunch1\n\n"
        "```dataview\nTABLE rating FROM #food\n```\n"
    ),
    "Notes/Quarterly zebra review.md": (
        "---\nworkspace: technical\n---\n"
        "Steps for the cluster: drain the nodes, bump the control plane version, then upgrade the kubelets.\n"
    ),
    "Notes/Project brief.md": (
        "---\nworkspace: technical\naliases: [Moonshot]\n---\n"
        "The plan: a search service over the archive, with a small API and a nightly batch job.\n"
    ),
    "Notes/2024-05-01.md": "---\nworkspace: personal\ntitle: Quince marmalade batch\n---\nThree jars, less sugar.\n",
    "Notes/Prices.md": (
        "---\nworkspace: administrative\n---\n|  Item      |  Price  |\n| ---------- | ------: |\n"
        + "".join(f"|  invoice line {i}   |  {i * 10} EUR  |\n" for i in range(60))
    ),
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def obsidian_vault(tmp_path_factory, ingest_at):
    root = tmp_path_factory.mktemp("obsidian")
    settings = settings_for(_write(root / "vault", NOTES), root / "data")
    summary = ingest_at(settings, root / "dagster")
    return settings, summary


def _catalog(settings):
    from lucasrag.catalog import read_catalog

    return {r["path"]: r for r in read_catalog(settings).to_dicts()}


def _chunk_texts(settings) -> list[str]:
    from lucasrag_assets.memo import load_memo

    return [t for texts in load_memo(settings, "chunk_texts")["texts"].to_list() for t in texts]


DATES = [
    ("Daily/2021-03-04.md", "2021-03-04", "filename"),
    ("Journal/new year.md", "2025-01-01", "frontmatter:date"),
    ("202103041022 Idea.md", "2021-03-04", "zettel-id"),
    ("Journal/someday.md", None, None),
]


@pytest.mark.parametrize("path, date, source", DATES)
def test_dates_and_their_source_are_in_the_catalogue(obsidian_vault, path, date, source):
    row = _catalog(obsidian_vault[0])[path]
    assert row["status"] == "indexed", row
    assert (row["date"], row["date_source"]) == (date, source)
    if date is None:
        assert row["warnings"] and "undated" in row["warnings"][0]


def test_templates_are_skipped_with_their_reason(obsidian_vault):
    settings, summary = obsidian_vault
    row = _catalog(settings)["Templates/Daily.md"]
    assert row["status"] == "skipped" and "templates folder 'Templates'" in row["reason"]
    assert ("Templates/Daily.md", row["reason"]) in summary.skipped and not summary.invalid


def test_properties_only_note_is_indexed(obsidian_vault):
    assert _catalog(obsidian_vault[0])["Films/Alien.md"]["status"] == "indexed"
    assert any("director: Ridley Scott" in t and t.startswith("# Alien") for t in _chunk_texts(obsidian_vault[0]))


def test_indexed_text_has_no_comments_or_markup(obsidian_vault):
    texts = _chunk_texts(obsidian_vault[0])
    lunch = next(t for t in texts if "prawns" in t)
    assert "forty euros" not in "\n".join(texts)  # the %% aside never left the vault
    for junk in ("[[", "]]", "![[", "^lunch1", "```dataview", "TABLE rating"):
        assert junk not in lunch, junk
    assert "Lunch with Ana at Cervejaria Ramiro." in lunch


def test_tables_chunk_by_rows(obsidian_vault):
    prices = [t for t in _chunk_texts(obsidian_vault[0]) if "invoice line" in t]
    assert len(prices) > 1
    for chunk in prices:
        assert "| Item | Price |" in chunk and "---" not in chunk
        assert all(line.startswith(("#", "|")) for line in chunk.splitlines() if line)


@pytest.mark.parametrize(
    "text, path",
    [
        pytest.param("zebra review", "Notes/Quarterly zebra review.md", id="file-name"),
        pytest.param("Moonshot", "Notes/Project brief.md", id="alias"),
        pytest.param("quince marmalade", "Notes/2024-05-01.md", id="title-property"),
    ],
)
def test_a_note_is_found_by_its_title_file_name_and_aliases(obsidian_vault, text, path):
    from lucasrag_query import query

    result = query(text, settings=obsidian_vault[0], top_k=3)
    assert result.results and result.results[0].path == path
    assert not [h for h in result.hints if h.kind == "vault"]  # this vault is searchable


BROKEN = {
    "a.md": "---\ntitle: [unclosed\n---\nbody\n",
    "b.md": "---\ntitle: [unclosed\n---\nbody\n",
    "c.md": "---\ntitle: [unclosed\n---\nbody\n",
    "ok.md": "---\nworkspace: personal\n---\nThe only note that reads: a walk along the canal.\n",
}


def test_a_mostly_unsearchable_vault_is_said_so_in_the_summary_and_on_queries(tmp_path, monkeypatch):
    from lucasrag_cli import app
    from lucasrag_query import query

    vault = _write(tmp_path / "vault", BROKEN)
    env = {"LUCASRAG_DATA": str(tmp_path / "data"), "DAGSTER_HOME": str(tmp_path / "dagster")}
    result = CliRunner().invoke(app, ["ingest", "--vault", str(vault)], env=env)
    assert result.exit_code == 0, result.output
    assert "3 × malformed frontmatter" in result.stdout
    assert "e.g. a.md, b.md, c.md" in result.stdout
    assert "3 of 4 notes (75%) are not searchable" in result.stdout and "fix the YAML" in result.stdout
    verbose = CliRunner().invoke(app, ["ingest", "--vault", str(vault), "--verbose"], env=env)
    assert "c.md — malformed frontmatter" in verbose.stdout

    answer = query("canal walk", settings=settings_for(vault, tmp_path / "data"))
    hints = [h.to_dict() for h in answer.hints if h.kind == "vault"]
    assert len(hints) == 1 and hints[0]["subject"] is None and hints[0]["withheld"] == 3
    assert "not searchable" in hints[0]["message"] and ".md" not in hints[0]["message"]
