"""Obsidian and Markdown syntax, defined once: links, embeds, comments, block ids, and the markup taken out
of a note's text before any rule reads it. Pure functions; every rule (vault scan, routing, dates, entities,
properties) reads links through :data:`WIKILINK` and :func:`link_note_name`.

:func:`strip_comments` runs first and on the whole body: ``%% … %%`` is what Obsidian
hides, and people write private asides there, so nothing after it (chunks, charged
subjects, entities, routing) may ever see that text. :func:`clean_markup` then removes
what is markup rather than writing: embeds, block ids, Dataview/Bases query source,
table separator rows and padding, and link brackets (a link's *name* stays).
"""

from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w-]*)")
#: Fenced block languages that are queries run by a plugin, not text a person wrote.
QUERY_LANGUAGES = frozenset({"dataview", "dataviewjs", "base", "bases", "query", "tasks"})

_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.DOTALL)  # unclosed: Obsidian hides to the end
#: ``[[target#heading|alias]]``, ``[[target#^block]]``, ``![[embed]]``: every ``[[…]]`` on one line.
WIKILINK = re.compile(
    r"(?P<embed>!?)\[\[(?P<target>[^\]\n|#^]*)(?:(?P<sep>[#^])(?P<subpath>[^\]\n|]*))?(?:\|(?P<alias>[^\]\n]*))?\]\]"
)
EMBED = re.compile(r"!\[\[[^\]\n]*\]\]")  # what an embed is: the note or file shown in place
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_BLOCK_ID = re.compile(r"(?:^|[ \t]+)\^[A-Za-z0-9-]+[ \t]*$", re.MULTILINE)
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_CELL_PADDING = re.compile(r"[ \t]*\|[ \t]*")
_BLANK_RUN = re.compile(r"\n{3,}")


def _segments(text: str) -> list[tuple[str | None, str]]:
    """``(fence language or None, text)`` pieces: prose, and fenced blocks kept whole."""
    out: list[tuple[str | None, str]] = []
    prose: list[str] = []
    fence: list[str] = []
    marker, lang = "", ""
    for line in text.splitlines(keepends=True):
        if marker:
            fence.append(line)
            if line.strip().startswith(marker[0] * len(marker)) and not line.strip().strip(marker[0]):
                out.append((lang, "".join(fence)))
                fence, marker = [], ""
            continue
        m = _FENCE_OPEN.match(line)
        if m:
            if prose:
                out.append((None, "".join(prose)))
                prose = []
            marker, lang = m.group(1), m.group(2).lower()
            fence = [line]
            continue
        prose.append(line)
    if marker:  # an unclosed fence runs to the end, as in Obsidian
        out.append((lang, "".join(fence)))
    if prose:
        out.append((None, "".join(prose)))
    return out


def strip_comments(text: str) -> str:
    """``%% … %%`` removed outside fenced code. An unclosed ``%%`` hides everything after it,
    fenced blocks included, as Obsidian does (over-hiding is the safe side for private asides)."""
    kept = []
    for lang, piece in _segments(text):
        if lang is not None:
            kept.append(piece)
            continue
        kept.append(_COMMENT.sub("", piece))
        if piece.count("%%") % 2 == 1:
            break
    return "".join(kept)


def link_note_name(target: str) -> str:
    """``folder/Target.md`` → ``Target``: Obsidian resolves a link by file name."""
    name = target.strip().replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def single_link(text: str) -> str | None:
    """The note a value that is one wikilink names (``"[[2024-05-01]]"`` → ``2024-05-01``), else None."""
    m = WIKILINK.fullmatch(text.strip())
    if m is None or m["embed"] or not m["target"].strip():
        return None
    return link_note_name(m["target"])


def link_text(m: re.Match) -> str:
    """A wikilink's name: its alias, else the page (and heading) it points to."""
    alias = (m["alias"] or "").strip()
    if alias:
        return alias
    page = link_note_name(m["target"]).strip()
    subpath = m["subpath"] or ""
    is_block = m["sep"] == "^" or subpath.startswith("^")  # ^block refs: no name
    section = "" if is_block else subpath.replace("#", " > ").strip()
    return " > ".join(p for p in (page, section) if p)


def _clean_table_line(line: str) -> str | None:
    if _TABLE_SEPARATOR.match(line) and "|" in line:
        return None
    if _TABLE_ROW.match(line):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not any(cells):
            return None
        return "| " + " | ".join(cells) + " |"
    return line


def _clean_prose(text: str) -> str:
    text = EMBED.sub("", text)
    text = _IMAGE.sub(lambda m: m.group(1), text)
    text = WIKILINK.sub(link_text, text)
    text = _BLOCK_ID.sub("", text)
    lines = [_clean_table_line(line) for line in text.split("\n")]
    return "\n".join(line for line in lines if line is not None)


def clean_markup(text: str) -> str:
    """The text a person wrote: embeds, block ids, query blocks, table junk and link brackets out."""
    out = []
    for lang, piece in _segments(text):
        if lang is None:
            out.append(_clean_prose(piece))
        elif lang not in QUERY_LANGUAGES:
            out.append(piece)
    cleaned = "".join(out)
    cleaned = "\n".join(line.rstrip() for line in cleaned.split("\n"))
    return _BLANK_RUN.sub("\n\n", cleaned).strip("\n") + ("\n" if cleaned.strip() else "")


def indexed_text(body: str) -> str:
    """Comments first (care), then markup: what every later rule sees."""
    return clean_markup(strip_comments(body))
