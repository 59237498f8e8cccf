"""Private notes leave no trace (architecture §3.12), on both profiles.

Unique canary words are planted in private notes (a folder pattern, a glob, the frontmatter key; a proper
name among them). After an ingest every byte under the data folder and the Dagster instance (parquet files
decoded), a dump of the PostgreSQL database and every Neo4j property are searched for them: no hit. A
public control canary in the same run is found (the search sees stored text). Then a public note is made
private by its frontmatter and another by a new pattern: after the next ingest their canaries, and their
vectors in the embedding cache, are gone; made public again, a note is searchable again. Queries, hints,
`lucasrag notes --json`, `lucasrag graph` and MCP `read_note` carry no canary either.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from lucasrag.embedding_cache import text_hash
from lucasrag.life import read_life
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.io_manager import asset_value_path
from lucasrag_cli import app
from lucasrag_cli.private import check_private
from lucasrag_query import query
from lucasrag_query.mcp.notes import NoteRefused, read_note

pytestmark = pytest.mark.slow

# Long, unlikely words with first letters no other canary shares (see _needles), stem-proof endings.
PRIVATE = {  # path → (text, its canaries)
    "therapy/session one.md": (
        "Vaxildrokent spoke with Qorintrakel Pelmavikost about the qxvormlakint again. I was born in 1931.\n",
        ["vaxildrokent", "qorintrakel", "pelmavikost", "qxvormlakint"],
    ),
    "journal/2025-01-02 dreams.secret.md": ("Zubrantikolm in the dream, then the sea.\n", ["zubrantikolm"]),
    "personal/letters.md": (
        "---\nprivate: true\ntitle: Jemflorvakint\ntags: [kreblonvitask]\nworkspace: nonsense\n---\n"
        "Hobrantizkel wrote back at last.\n",
        ["jemflorvakint", "kreblonvitask", "hobrantizkel"],
    ),
}
PUBLIC = {
    "personal/walk.md": (
        "---\nworkspace: personal\n---\nA walk with Wendel Glimmerstrond past the river, then I wrote in "
        "[[session one]] about it.\n",
        ["glimmerstrond"],
    ),
    "personal/later.md": ("---\nworkspace: personal\n---\nDravonkiltem came to tea on Sunday.\n", ["dravonkiltem"]),
    "old letters/frelmon.md": (
        "---\nworkspace: personal\n---\nFrelmonzikast sent a postcard from the coast.\n",
        ["frelmonzikast"],
    ),
}
PATTERNS = "# private places\ntherapy/\n*.secret.md\n"


def _needles(word: str) -> list[str]:
    # SQLite's FTS5 stores a term after the prefix it shares with the term before it: a suffix is searched too.
    return [word, word[1:], word[2:], word[3:]]


def _stored_texts(settings) -> list[tuple[str, str]]:
    """(where, lower-cased text) of everything LucasRAG and Dagster stored for ``settings``."""
    roots = [settings.data, Path(os.environ["DAGSTER_HOME"])]
    found = []
    for root in roots:
        for path in root.rglob("*"):
            if not path.is_file():
                continue
            if path.suffix == ".parquet":  # compressed pages: decoded, or a word would hide in them
                text = json.dumps(pl.read_parquet(path).to_dicts(), default=str, ensure_ascii=False)
            else:
                text = path.read_bytes().decode("latin-1")
            found.append((str(path), text.lower()))
    if settings.profile == "production":
        from lucasrag.services.pg_bin import find_pg_bin

        dump = subprocess.run(
            [str(find_pg_bin() / "pg_dump"), "--data-only", f"--dbname={settings.postgres_dsn}"],
            capture_output=True,
            check=True,
            timeout=120,
        ).stdout.decode("utf-8", "replace")
        found.append(("pg_dump", dump.lower()))
        import neo4j

        with neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password)) as d:
            nodes = d.execute_query("MATCH (n) RETURN labels(n) AS l, properties(n) AS p", database_="neo4j").records
            rels = d.execute_query(
                "MATCH ()-[r]->() RETURN type(r) AS l, properties(r) AS p", database_="neo4j"
            ).records
        found.append(("neo4j", json.dumps([[r["l"], r["p"]] for r in [*nodes, *rels]], default=str).lower()))
    return found


def _hits(stored: list[tuple[str, str]], words: list[str]) -> dict[str, list[str]]:
    return {w: [where for where, text in stored if any(n in text for n in _needles(w))] for w in words}


def _surfaces(settings, words: list[str]) -> str:
    """What assistants and the person can see: queries (results and hints), notes, graph listings."""
    env = {"LUCASRAG_VAULT": str(settings.vault), "LUCASRAG_DATA": str(settings.data), "LUCASRAG_NOW": "2026-06-01"}
    if settings.profile == "production":
        env |= {
            "LUCASRAG_PROFILE": "production",
            "LUCASRAG_POSTGRES_DSN": settings.postgres_dsn,
            "LUCASRAG_NEO4J_URI": settings.neo4j_uri,
            "LUCASRAG_NEO4J_USER": settings.neo4j_user,
            "LUCASRAG_NEO4J_PASSWORD": settings.neo4j_password,
        }
    seen = []
    for word in words:  # what came back (results, hints), not the question echoed
        result = query(f"what about {word}?", settings=settings).to_dict(why=True)
        seen.append(json.dumps({k: v for k, v in result.items() if k not in ("query", "temporal")}))
    cli = CliRunner()
    for args in (["notes", "--json"], ["graph", "personal", "--json", "--limit", "500"]):
        result = cli.invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
        seen.append(result.stdout)
    return "\n".join(seen).lower()


def _write(vault: Path, notes: dict[str, tuple[str, list[str]]]) -> None:
    for rel, (text, _) in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)


def _cached_hashes(settings) -> set[str]:
    with sqlite3.connect(settings.data / "embeddings.sqlite") as db:
        return {h for (h,) in db.execute("SELECT hash FROM model_vectors")}


def test_private_notes_leave_no_trace(profile_fresh_vault):
    settings = profile_fresh_vault
    vault = settings.vault
    (vault / ".lucasrag" / "private").write_text(PATTERNS)
    _write(vault, PRIVATE)
    _write(vault, PUBLIC)
    summary = run_ingest(settings)
    assert summary.health.counts.get("private") == len(PRIVATE)

    secret = [w for _, words in PRIVATE.values() for w in words]
    stored = _stored_texts(settings)
    assert _hits(stored, secret) == {w: [] for w in secret}
    control = _hits(stored, ["glimmerstrond", "dravonkiltem", "frelmonzikast"])
    assert all(control.values()), control  # the sweep sees stored text
    if settings.profile == "production":  # in the servers too: the chunk in PostgreSQL, the person in Neo4j
        assert {"pg_dump", "neo4j"} <= set(control["glimmerstrond"]), control
    seen = _surfaces(settings, secret)
    assert not [w for w in secret if any(n in seen for n in _needles(w))]
    assert "glimmerstrond" in _surfaces(settings, ["glimmerstrond"])
    life = read_life(settings)  # the writer's birth year is read from indexed notes only
    assert life is None or (life.born != 1931 and "therapy/" not in life.evidence), life
    rows = {r["path"]: r for r in json.loads(CliRunner().invoke(app, ["notes", "--json"], env={
        "LUCASRAG_VAULT": str(vault), "LUCASRAG_DATA": str(settings.data)}).stdout)}  # fmt: skip
    for rel in PRIVATE:
        assert rows[rel]["status"] == "private"
        assert (rows[rel]["workspace"], rows[rel]["band"], rows[rel]["date"], rows[rel]["care"]) == (
            None,
            None,
            None,
            [],
        )
    for rel in [*PRIVATE, "therapy/no such note.md"]:
        with pytest.raises(NoteRefused) as refused:
            read_note(settings, rel)
        hidden = str(refused.value).replace(repr(rel), "")
        if rel in PRIVATE:  # refused exactly as a hidden path is
            with pytest.raises(NoteRefused) as like:
                read_note(settings, ".trash/x.md")
            assert hidden == str(like.value).replace(repr(".trash/x.md"), "")

    # A public note made private by its frontmatter, another by a new pattern: gone at the next ingest.
    chunks = pl.read_parquet(asset_value_path(settings.data, ["banded_chunks"]))
    later = chunks.filter(pl.col("path").is_in(["personal/later.md", "old letters/frelmon.md"]))["text"].to_list()
    assert later and {text_hash(t) for t in later} <= _cached_hashes(settings)
    (vault / "personal/later.md").write_text(PUBLIC["personal/later.md"][0].replace("---\n", "---\nprivate: true\n", 1))
    (vault / ".lucasrag" / "private").write_text(PATTERNS + "old letters/\n")
    for question in ("who came to tea with Dravonkiltem?", "a postcard from Frelmonzikast"):  # not ingested yet
        paths = {r["path"] for r in query(question, settings=settings).to_dict()["results"]}
        assert not paths & {"personal/later.md", "old letters/frelmon.md"}, question
    summary = run_ingest(settings)
    made = {c["path"]: c["new"] for c in summary.changes if c["field"] == "status"}
    assert made == {"personal/later.md": "private", "old letters/frelmon.md": "private"}
    gone = ["dravonkiltem", "frelmonzikast"]
    stored = _stored_texts(settings)
    assert _hits(stored, [*secret, *gone]) == {w: [] for w in [*secret, *gone]}
    assert _hits(stored, ["glimmerstrond"])["glimmerstrond"]
    assert not {text_hash(t) for t in later} & _cached_hashes(settings), "a private note's vectors stayed cached"
    seen = _surfaces(settings, gone)
    assert not [w for w in gone if w in seen]

    # What the person runs to see it for themselves says the same, on this profile.
    checks = check_private(settings)
    assert {c.path for c in checks} == {*PRIVATE, "personal/later.md", "old letters/frelmon.md"}
    assert all(c.clean and c.looked_for for c in checks), [(c.path, c.found_in) for c in checks]

    # Public again: ingested normally, and searchable.
    (vault / "personal/later.md").write_text(PUBLIC["personal/later.md"][0])
    run_ingest(settings)
    found = query("who came to tea with Dravonkiltem?", settings=settings).to_dict()
    assert any(r["path"] == "personal/later.md" for r in found["results"])


def test_private_check_proves_it_or_names_the_places(fresh_vault):
    settings = fresh_vault
    env = {"LUCASRAG_VAULT": str(settings.vault), "LUCASRAG_DATA": str(settings.data)}
    _write(settings.vault, {"personal/later.md": PUBLIC["personal/later.md"]})
    run_ingest(settings)
    note = settings.vault / "personal/later.md"
    note.write_text(note.read_text().replace("---\n", "---\nprivate: true\n", 1))
    cli = CliRunner()
    listed = cli.invoke(app, ["private", "list"], env=env)
    assert listed.output.strip() == "personal/later.md — its private: true property"
    before = cli.invoke(app, ["private", "check", "--json"], env=env)  # made private, not ingested yet
    assert before.exit_code == 1
    (report,) = json.loads(before.stdout)
    assert report["path"] == "personal/later.md" and not report["clean"] and report["looked_for"] >= 1
    assert any("chunks.sqlite" in place for place in report["found_in"])
    assert "dravonkiltem" not in before.stdout.lower()  # the words are looked for, never printed
    run_ingest(settings)
    after = cli.invoke(app, ["private", "check"], env=env)
    assert after.exit_code == 0, after.output
    assert "personal/later.md: none of its" in after.output
