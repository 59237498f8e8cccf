"""Private notes (architecture §3.12): what the person never wants an assistant to see leaves no trace.

A note is private when its vault-relative path matches a pattern of ``<vault>/.lucasrag/private``
(gitignore syntax, one pattern a line, ``#`` comments, ``!`` to take a path back out; matched by
``pathspec``'s ``GitIgnoreSpec``) or when its frontmatter says ``private: true``.

One rule, one place: the scanner (write side) and every read surface (``read_note``, ``lucasrag
notes``) ask :func:`is_private`. Deciding never needs the body: the pattern needs only the path, the
key only the frontmatter; nothing here logs or returns any of a private note's text.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pathspec
import yaml

from lucasrag.safe_read import UnreadableEntry, read_regular
from lucasrag.safe_yaml import (
    MAX_FRONTMATTER_BYTES,
    FrontmatterRefused,
    UnclosedFrontmatter,
    load_frontmatter,
    split_frontmatter,
)
from lucasrag.vault_settings import SettingsFileUnreadable, read_settings_text

PRIVATE_FILE = ".lucasrag/private"
#: The frontmatter key that makes a note private (its value ``true``).
PRIVATE_KEY = "private"


class PrivacyPatternsUnreadable(ValueError):
    """``.lucasrag/private`` exists but cannot be read or used: ingest stops rather than index what the
    person may have meant to hide (the message says what and how to fix it)."""


@dataclass(frozen=True)
class PrivacyRules:
    """The vault's private patterns, compiled once per scan or per request."""

    lines: tuple[str, ...] = ()
    _spec: pathspec.GitIgnoreSpec = field(default_factory=lambda: pathspec.GitIgnoreSpec.from_lines([]), repr=False)

    @property
    def fingerprint(self) -> str:
        """Changes whenever the patterns change (a memo key: a new pattern re-reads every note)."""
        return hashlib.sha256("\n".join(self.lines).encode()).hexdigest()[:16]

    def matches(self, rel_path: str) -> bool:
        """Whether the vault-relative path ``rel_path`` (``/``-separated) matches a private pattern."""
        return bool(self.lines) and self._spec.match_file(rel_path)


def parse_patterns(text: str) -> PrivacyRules:
    """The rules of a ``.lucasrag/private`` file's text (gitignore syntax)."""
    lines = tuple(line.rstrip("\r") for line in text.splitlines())
    meaningful = tuple(line for line in lines if line.strip() and not line.lstrip().startswith("#"))
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except (ValueError, TypeError) as exc:  # pathspec rejects a malformed pattern
        raise PrivacyPatternsUnreadable(f"{PRIVATE_FILE}: a pattern cannot be read ({exc}); fix or remove it") from None
    return PrivacyRules(meaningful, spec)


def load_privacy(vault: Path) -> PrivacyRules:
    """The vault's private patterns (none when ``.lucasrag/private`` is absent). An unreadable file
    raises :class:`PrivacyPatternsUnreadable`: a pattern silently ignored would index a private note."""
    try:
        text = read_settings_text(vault, vault / PRIVATE_FILE)
    except SettingsFileUnreadable as exc:
        raise PrivacyPatternsUnreadable(f"{exc}: fix it so that LucasRAG knows which notes are private") from None
    return PrivacyRules() if text is None else parse_patterns(text)


def says_private(frontmatter: Mapping[object, object] | None) -> bool:
    """Whether a note's frontmatter marks it private: ``private: true`` (a YAML boolean, or the word
    ``true``/``yes`` in any case)."""
    if not frontmatter:
        return False
    for key, value in frontmatter.items():
        if str(key).strip().lower() == PRIVATE_KEY:
            return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes"))
    return False


def header_says_private(raw: bytes) -> bool:
    """Whether a note's bytes open with a frontmatter block that says ``private: true`` (YAML between
    ``---`` lines, or TOML between ``+++`` lines): the header only, YAML loaded within
    :mod:`lucasrag.safe_yaml`'s limits; anything unreadable says nothing."""
    text = raw[: MAX_FRONTMATTER_BYTES + 1024].decode("utf-8", errors="replace").removeprefix("\ufeff")
    try:
        header, _, syntax = split_frontmatter(text)
        if header is None:
            return False
        meta = load_frontmatter(header) if syntax == "yaml" else tomllib.loads(header)
    except (UnclosedFrontmatter, FrontmatterRefused, yaml.YAMLError, tomllib.TOMLDecodeError, RecursionError):
        return False
    return isinstance(meta, dict) and says_private(meta)


def private_now(
    vault: Path,
    rel_path: str,
    rules: PrivacyRules | None = None,
    *,
    max_bytes: int,
    unchanged_since: float | None = None,
) -> bool:
    """The rule asked of the vault as it is now, for a read surface (``read_note``, a query's results): the
    path against the patterns, then the note's header — unless the file was not modified after
    ``unchanged_since`` (a time stamp: the last ingest, which read its header then). Never raises: an
    unreadable note is not private by its header."""
    rules = rules if rules is not None else load_privacy(vault)
    if rules.matches(rel_path):
        return True
    if unchanged_since is not None:
        try:
            if os.stat(vault / rel_path).st_mtime < unchanged_since:
                return False
        except OSError:
            return False
    try:
        raw = read_regular(vault, vault / rel_path, limit=min(max_bytes, MAX_FRONTMATTER_BYTES + 1024))
    except (UnreadableEntry, OSError):
        return False
    return header_says_private(raw)


def private_link_names(private_paths: Iterable[str]) -> frozenset[str]:
    """The names a wikilink reaches a private note by (``[[therapy notes]]``, ``[[journal/therapy notes]]``),
    case-folded: its file name and its vault path, without ``.md``."""
    names: set[str] = set()
    for path in private_paths:
        stem = path.removesuffix(".md")
        names |= {stem.casefold(), stem.rsplit("/", 1)[-1].casefold()}
    return frozenset(names)


def split_private_links(links: Iterable[str], names: frozenset[str]) -> tuple[list[str], list[str]]:
    """A public note's wikilink targets as (kept, dropped): a link to a private note keeps its place in the
    note's own text but makes no entity, title or relation of the private note (the graph never hears of it)."""
    kept, dropped = [], []
    for link in links:
        target = link.split("|", 1)[0].split("#", 1)[0].strip().removesuffix(".md").casefold()
        (dropped if target and target in names else kept).append(link)
    return kept, dropped


def is_private(rel_path: str, rules: PrivacyRules, frontmatter: Mapping[object, object] | None = None) -> bool:
    """The rule: the path matches a private pattern, or the frontmatter says ``private: true``.
    Callers ask with the path alone first (no file is read) and read the frontmatter only if needed."""
    return rules.matches(rel_path) or says_private(frontmatter)


__all__ = [
    "PRIVATE_FILE",
    "PRIVATE_KEY",
    "PrivacyPatternsUnreadable",
    "PrivacyRules",
    "header_says_private",
    "is_private",
    "load_privacy",
    "parse_patterns",
    "private_link_names",
    "private_now",
    "says_private",
    "split_private_links",
]
