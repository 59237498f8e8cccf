"""``lucasrag private``: which notes are private, and proof that they left no trace (``check``).

For each note private now (lucasrag/privacy.py), its distinctive words — words of its text that no
other note of the vault uses — are looked for in everything LucasRAG stored: every file under
``LUCASRAG_DATA`` and the Dagster instance (Parquet files decoded, SQLite and JSON read as bytes), and
on the production profile a dump of the PostgreSQL database and every Neo4j property. The private
note is read here, on the person's machine, for this check only; its words are never printed or stored:
the report gives counts and the places a word was found.

A keyword index stores a term after the prefix it shares with the term before it, so each word is
also looked for without its first letters (:func:`needles`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import typer

from lucasrag.privacy import load_privacy, private_now
from lucasrag.safe_read import UnreadableEntry, read_regular
from lucasrag.settings import Settings
from lucasrag.vault_files import iter_vault_files
from lucasrag_cli._console import err, out
from lucasrag_cli._console import settings as _settings

#: Words shorter than this say too little to look for (and match inside too many others).
MIN_WORD = 7
_WORD = re.compile(rf"[^\W\d_]{{{MIN_WORD},}}")


def needles(word: str) -> tuple[str, ...]:
    """``word`` and its tails without one, two and three first letters (an FTS5 term's stored suffix)."""
    return tuple(dict.fromkeys(word[i:] for i in range(4) if len(word) - i >= MIN_WORD - 2))


def words_of(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


@dataclass
class PrivateCheck:
    path: str
    looked_for: int  # distinctive words of the note
    found_in: dict[str, int] = field(default_factory=dict)  # place → how many of its words

    @property
    def clean(self) -> bool:
        return not self.found_in


def stored_texts(settings: Settings) -> Iterator[tuple[str, str]]:
    """(place, lower-cased text) of everything stored for ``settings``: files under the data folder and the
    Dagster instance, then (production) the PostgreSQL dump and the Neo4j properties."""
    home = Path(os.environ.get("DAGSTER_HOME") or settings.data / "dagster")
    roots = [settings.data] + ([home] if not home.resolve().is_relative_to(settings.data.resolve()) else [])
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            yield str(path), _file_text(path)
    if settings.profile == "production":
        yield "PostgreSQL (pg_dump)", _pg_dump(settings.postgres_dsn).lower()
        yield "Neo4j (every property)", _neo4j_properties(settings).lower()


def _file_text(path: Path) -> str:
    if path.suffix == ".parquet":  # compressed pages: a word would hide in them
        import polars as pl

        try:
            return json.dumps(pl.read_parquet(path).to_dicts(), default=str, ensure_ascii=False).lower()
        except Exception:  # noqa: BLE001 - a file being rewritten: its bytes, then
            pass
    try:
        return path.read_bytes().decode("latin-1").lower()
    except OSError:
        return ""


def _pg_dump(dsn: str | None) -> str:
    """The database's data as SQL, by the ``pg_dump`` bundled with the server LucasRAG runs, else the one on
    PATH (a dump needs a ``pg_dump`` at least as new as the server: each is tried)."""
    from lucasrag.services.pg_bin import find_pg_bin

    tried = []
    try:
        tried.append(str(find_pg_bin() / "pg_dump"))
    except Exception:  # noqa: BLE001 - no bundled PostgreSQL: PATH's, then
        pass
    tried += [b for b in [shutil.which("pg_dump")] if b]
    failures = []
    for binary in tried:
        done = subprocess.run([binary, "--data-only", f"--dbname={dsn}"], capture_output=True, timeout=600)
        if done.returncode == 0:
            return done.stdout.decode("utf-8", "replace")
        failures.append(f"{binary}: {done.stderr.decode('utf-8', 'replace').strip()[:200]}")
    raise RuntimeError("cannot dump the PostgreSQL database to check it: " + ("; ".join(failures) or "no pg_dump"))


def _neo4j_properties(settings: Settings) -> str:
    import neo4j

    auth = (settings.neo4j_user, settings.neo4j_password)
    with neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        nodes = driver.execute_query("MATCH (n) RETURN properties(n) AS p", database_="neo4j").records
        edges = driver.execute_query("MATCH ()-[r]->() RETURN properties(r) AS p", database_="neo4j").records
    return json.dumps([r["p"] for r in [*nodes, *edges]], default=str, ensure_ascii=False)


def _text(vault: Path, rel: str, max_bytes: int) -> str:
    try:
        return read_regular(vault, vault / rel, limit=max_bytes).decode("utf-8", "replace")
    except (UnreadableEntry, OSError):
        return ""


def check_private(settings: Settings, paths: Iterable[str] | None = None) -> list[PrivateCheck]:
    """For each private note (or those of ``paths``), where its distinctive words are found, if anywhere."""
    vault = settings.vault.resolve()
    rules = load_privacy(vault)
    every = [p.relative_to(vault).as_posix() for p in iter_vault_files(vault)]
    private = [p for p in every if private_now(vault, p, rules, max_bytes=settings.max_note_bytes)]
    wanted = set(paths) if paths is not None else None
    public_words: set[str] = set()
    for rel in set(every) - set(private):
        public_words |= words_of(_text(vault, rel, settings.max_note_bytes))
    public_words |= words_of(" ".join(every))  # a word of a path is a path's, and paths may be stored
    targets = {
        rel: words_of(_text(vault, rel, settings.max_note_bytes)) - public_words
        for rel in private
        if wanted is None or rel in wanted
    }
    checks = {rel: PrivateCheck(rel, len(words)) for rel, words in targets.items()}
    for place, text in stored_texts(settings):
        for rel, words in targets.items():
            if hits := sum(any(n in text for n in needles(w)) for w in words):
                checks[rel].found_in[place] = hits
    return list(checks.values())


app = typer.Typer(help="Private notes: never read past their frontmatter, nothing of them kept.", no_args_is_help=True)


@app.command("list")
def list_command() -> None:
    """The notes private now: their paths and why (a pattern of .lucasrag/private, or private: true)."""
    settings = _settings()
    vault = settings.vault.resolve()
    rules = load_privacy(vault)
    for path in iter_vault_files(vault):
        rel = path.relative_to(vault).as_posix()
        if rules.matches(rel):
            out.print(f"{rel} — a pattern of .lucasrag/private", highlight=False)
        elif private_now(vault, rel, rules, max_bytes=settings.max_note_bytes):
            out.print(f"{rel} — its private: true property", highlight=False)


@app.command("check")
def check_command(
    paths: list[str] = typer.Argument(None, help="Vault-relative paths of private notes (default: every one)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Prove that private notes left no trace: look for each one's distinctive words (words no other note
    uses) in everything LucasRAG stored. Prints counts and places, never the words; exit 1 if any is found."""
    settings = _settings()
    try:
        checks = check_private(settings, paths or None)
    except RuntimeError as exc:  # a server that cannot be dumped or read
        err.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    if as_json:
        print(json.dumps([{**asdict(c), "clean": c.clean} for c in checks], indent=2))
    else:
        for c in checks:
            if c.clean:
                out.print(f"{c.path}: none of its {c.looked_for} distinctive words is stored anywhere", highlight=False)
            else:
                places = ", ".join(f"{place} ({n})" for place, n in sorted(c.found_in.items()))
                err.print(
                    f"[red]{c.path}[/]: {sum(c.found_in.values())} of its words found in {places}", highlight=False
                )
        if not checks:
            out.print("no private notes (add patterns to .lucasrag/private, or private: true to a note)")
        else:
            out.print("run `lucasrag ingest` first if a note was made private since the last one", highlight=False)
    if not all(c.clean for c in checks):
        raise typer.Exit(1)
