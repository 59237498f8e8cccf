"""Obsidian's conventions for a note's text: properties as text, kinds, aliases and link names.

Pure functions, no Dagster. Which files are notes (templates folders included) is
:mod:`lucasrag.vault_files`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from lucasrag.markup import WIKILINK, link_note_name

#: Frontmatter keys that are not a properties-only note's text: LucasRAG's own governance keys,
#: display settings, and the title and aliases (those reach the index as the note's heading).
CONTROL_KEYS = frozenset(
    {"workspace", "band", "charged", "cssclasses", "cssclass", "publish", "position", "title", "aliases", "alias"}
)


def link_name(text: str) -> str:
    """``[[Ridley Scott]]`` → ``Ridley Scott``, ``[[People/Jo|Jo]]`` → ``Jo``; other text unchanged."""

    def name(m: re.Match) -> str:
        if m["alias"] and m["alias"].strip():
            return m["alias"].strip()
        return link_note_name(m["target"])

    return WIKILINK.sub(name, text).strip()


def link_targets(text: str) -> tuple[str, ...]:
    """Every wikilink's target note name (embeds and attachments excluded), first occurrence order."""
    names = []
    for m in WIKILINK.finditer(text):
        if m["embed"]:
            continue
        target = link_note_name(m["target"])
        if target:
            names.append(target)
    return tuple(dict.fromkeys(names))


def _value_text(value: object) -> str:
    if value is None or isinstance(value, dict):
        return ""
    if isinstance(value, (list, tuple)):
        items = [_value_text(_flatten_link(v)) for v in value]
        return ", ".join(i for i in items if i)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return link_name(str(value))


def _flatten_link(value: object) -> object:
    # An unquoted ``director: [[Ridley Scott]]`` is YAML for [["Ridley Scott"]].
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0]
    return value


def properties_text(meta: Mapping[str, object]) -> str:
    """A properties-only note's text: one ``key: value`` line per property that says something.

    LucasRAG's own control keys and empty values are left out; wikilinks become names.
    """
    lines = []
    for key, value in meta.items():
        if str(key).lower() in CONTROL_KEYS:
            continue
        text = _value_text(_flatten_link(value))
        if text:
            lines.append(f"{key}: {text}")
    return "\n".join(lines)


#: Properties in which people say what kind of note a note is (``type: book``,
#: ``categories: [[Recipes]]``): the person's own classification, read by the router like tags.
KIND_KEYS: tuple[str, ...] = ("type", "types", "category", "categories", "kind", "genre", "genres", "topic", "topics")


def kinds_of(meta: Mapping[object, object]) -> tuple[str, ...]:
    """The names a note's kind properties give it, wikilinks resolved: ``categories: [[Books]]`` → Books."""
    lowered = {str(k).lower(): v for k, v in meta.items()}
    names: list[str] = []
    for key in KIND_KEYS:
        value = lowered.get(key)
        if value is None or isinstance(value, dict):
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            item = _flatten_link(item)
            if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                names.extend(n.strip() for n in link_name(str(item)).split(","))
    return tuple(dict.fromkeys(n for n in names if n))


def aliases_of(meta: Mapping[str, object]) -> tuple[str, ...]:
    """Obsidian's ``aliases`` (or ``alias``) property as names."""
    for key in ("aliases", "alias"):
        value = meta.get(key)
        if value is None:
            continue
        items = value if isinstance(value, list) else [value]
        names = [link_name(str(_flatten_link(v))) for v in items if v is not None and not isinstance(v, dict)]
        return tuple(dict.fromkeys(n for n in names if n))
    return ()


_NAME_DATE_PREFIX = re.compile(r"^\d{4}[-_.]?\d{2}[-_.]?\d{2}(?:\d{4}(?:\d{2})?)?[\s_-]*")
_HEAD_CHARS = 300  # a name already written this early in the note needs no repeating


def note_names(title: str, stem: str, aliases: tuple[str, ...]) -> list[str]:
    """The names a note is searched by: its title, its file name (less a date or zettel-id prefix,
    which is a date, not a name) and its aliases, without repeats."""
    names: list[str] = []
    name_part = _NAME_DATE_PREFIX.sub("", stem)
    for name in (name_part if title == stem else title, name_part, *aliases):
        name = " ".join(name.split())
        if name and name.casefold() not in (n.casefold() for n in names):
            names.append(name)
    return names


def with_names(body: str, title: str, stem: str, aliases: tuple[str, ...]) -> str:
    """``body`` led by a heading of the names it does not already show near its top, so that title,
    file name and aliases reach the chunk text (and through it both profiles' keyword and vector
    indexes) while the text stays readable: ``# Alien · Alien (1979)``."""
    head = body[:_HEAD_CHARS].casefold()
    missing = [n for n in note_names(title, stem, aliases) if n.casefold() not in head]
    if not missing:
        return body
    return f"# {' · '.join(missing)}\n\n{body}"
