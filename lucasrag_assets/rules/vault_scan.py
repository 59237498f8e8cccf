"""Finding and parsing vault notes (architecture §3.1). Pure functions, no Dagster."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from lucasrag.markup import clean_markup, strip_comments
from lucasrag.privacy import PRIVATE_FILE, PRIVATE_KEY, PrivacyRules, load_privacy, says_private
from lucasrag.safe_read import UnreadableEntry, read_regular, regular_file, vault_relpath
from lucasrag.safe_yaml import (
    MAX_FRONTMATTER_BYTES,
    FrontmatterRefused,
    UnclosedFrontmatter,
    load_frontmatter,
    split_frontmatter,
)
from lucasrag.vault_files import iter_vault_files, template_reason
from lucasrag.vocabulary import BANDS, WORKSPACES
from lucasrag_assets.rules.clippings import source_url
from lucasrag_assets.rules.conventions import VaultConventions, load_conventions
from lucasrag_assets.rules.dates import note_date, updated_date
from lucasrag_assets.rules.obsidian import aliases_of, kinds_of, link_targets, properties_text


@dataclass(frozen=True)
class Note:
    path: str  # vault-relative POSIX path
    status: Literal["ok", "invalid", "skipped", "private"]
    reason: str | None
    body: str = ""  # the indexed text: comments and Obsidian markup out (lucasrag/markup.py)
    frontmatter: dict = field(default_factory=dict)
    date: dt.date | None = None
    date_source: str | None = None  # "frontmatter:<key>", "filename", "zettel-id" or "folder" (rules/dates.py)
    workspace: str | None = None
    band: str | None = None
    charged: tuple[str, ...] = ()
    title: str = ""
    tags: tuple[str, ...] = ()
    content_hash: str = ""
    size: int = 0
    aliases: tuple[str, ...] = ()
    links: tuple[str, ...] = ()  # wikilink targets as written, before the brackets came out
    warnings: tuple[str, ...] = ()  # e.g. a date that could not be read (the note is then undated)
    kinds: tuple[str, ...] = ()  # what the note's type/categories properties call it (rules/obsidian.py)
    source: str | None = None  # the address a clipped page was saved from (rules/clippings.py); None if no body
    updated: dt.date | None = None  # its latest updated:/modified: property (rules/banding.py)


class _Invalid(Exception):
    """Internal: carries the reason string of an invalid note."""


class _Skipped(Exception):
    """Internal: carries the reason a file is deliberately not a note."""


class _NoTimestampLoader(yaml.SafeLoader):
    """SafeLoader that leaves YYYY-MM-DD as a string.

    PyYAML raises a bare ValueError for ``date: 2021-13-01`` while loading; keeping
    dates as text lets us report it as a bad date instead of as broken YAML.
    """


_NoTimestampLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def _human(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n} bytes"


def _size_reason(size: int, cap: int) -> str:
    got, limit = _human(size), _human(cap)
    if got == limit:  # rounding hid the difference: say it in bytes
        got, limit = f"{size} bytes", f"{cap} bytes"
    return f"file is {got}, over the {limit} cap (LUCASRAG_MAX_NOTE_BYTES)"


def _split_frontmatter(text: str) -> tuple[str | None, str, str]:
    """``(header or None, body, syntax)`` (:func:`lucasrag.safe_yaml.split_frontmatter`); raises _Invalid for
    an unclosed block."""
    try:
        return split_frontmatter(text)
    except UnclosedFrontmatter as exc:
        raise _Invalid(
            f"malformed frontmatter: opened with '{exc}' on line 1 but never closed (add a closing '{exc}' line)"
        ) from None


def _load_toml_header(header: str) -> dict:
    """A TOML header as frontmatter: its ``[taxonomies]`` tags and categories (Zola) lifted to the top, and
    its ``date`` read as what it is in a site generator, the day a page was published (``published``, a
    stamp: it ages a page only when something says the page is time-bound; rules/banding.py)."""
    if len(header.encode()) > MAX_FRONTMATTER_BYTES:
        raise _Invalid(f"frontmatter is over {MAX_FRONTMATTER_BYTES // 1024} KiB: refused")
    try:
        data = tomllib.loads(header)
    except tomllib.TOMLDecodeError as exc:
        raise _Invalid(f"malformed frontmatter: TOML error: {exc}") from None
    except RecursionError:
        raise _Invalid("frontmatter is nested too deep: refused") from None
    if "date" in data and "published" not in data:
        data["published"] = data.pop("date")
    taxonomies = data.get("taxonomies")
    if isinstance(taxonomies, dict):
        for key in ("tags", "categories"):
            if key not in data and taxonomies.get(key):
                data[key] = taxonomies[key]
    return {str(k): v for k, v in data.items()}


def _load_header(header: str) -> dict:
    try:
        data = load_frontmatter(header, _NoTimestampLoader)  # size, depth and alias limits (safe_yaml)
    except FrontmatterRefused as exc:
        raise _Invalid(str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # +2: the mark is 0-based and the header starts after the opening '---' line.
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise _Invalid(f"malformed frontmatter: YAML error{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _Invalid(f"frontmatter is a {type(data).__name__}, not a mapping of 'key: value' lines")
    return {str(k): v for k, v in data.items()}


def _choice(key: str, value: object, allowed: tuple[str, ...]) -> str:
    if isinstance(value, str) and value.strip() in allowed:
        return value.strip()
    hint = ""
    if isinstance(value, str) and value.strip().casefold() in allowed:
        hint = f" (did you mean {value.strip().casefold()!r}?)"
    raise _Invalid(f"bad {key} {value!r}: expected one of {', '.join(allowed)}{hint}")


def _strings(key: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Invalid(f"bad {key} {value!r}: expected a list of names, e.g. {key}: [Grandad Tom]")
    return tuple(v.strip() for v in value if v.strip())


def _tags(value: object) -> tuple[str, ...]:
    # Tags are informational only, so be lenient rather than reject a note over them.
    items = value if isinstance(value, list) else re.split(r"[,\s]+", str(value))
    return tuple(str(t).strip().lstrip("#") for t in items if t is not None and str(t).strip().lstrip("#"))


def _given(meta: dict, key: str) -> bool:
    # An empty value (``workspace:`` left blank by a template) means "not set".
    value = meta.get(key)
    return value is not None and not (isinstance(value, str) and not value.strip())


def _parse_text(raw: bytes, max_bytes: int) -> tuple[str, dict, str]:
    """Validate raw bytes; return (text, frontmatter, body) or raise _Invalid."""
    if len(raw) > max_bytes:
        raise _Invalid(_size_reason(len(raw), max_bytes))
    if not raw:
        raise _Invalid("empty file (0 bytes)")
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise _Invalid(f"binary content (NUL byte at offset {nul})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Invalid(
            f"not UTF-8: invalid byte 0x{raw[exc.start]:02X} at offset {exc.start} (re-save the file as UTF-8)"
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise _Invalid("file contains only whitespace")
    header, body, syntax = _split_frontmatter(text)
    meta = {} if header is None else _load_header(header) if syntax == "yaml" else _load_toml_header(header)
    return text, meta, body


def _indexed_body(meta: dict, body: str) -> tuple[str, bool]:
    """The text the note is indexed by, and whether it came from the properties (a properties-only
    note). Raises _Skipped when the body is only markup (embeds, queries, comments), _Invalid when
    there is no body and no properties at all."""
    cleaned = clean_markup(strip_comments(body))
    if cleaned.strip():
        return cleaned, False
    # A properties-only note: its properties are its content (tags alone are a label, not content).
    if properties_text({k: v for k, v in meta.items() if str(k).lower() not in ("tags", "tag")}).strip():
        return properties_text(meta) + "\n", True
    if body.strip():  # e.g. a category page that only embeds a Base
        raise _Skipped("nothing to index: only embeds, queries, comments or markup (and tags)")
    raise _Invalid("note has frontmatter but no body text or properties")


def parse_note(
    root: Path,
    path: Path,
    *,
    max_bytes: int,
    conventions: VaultConventions | None = None,
    scanned: os.stat_result | None = None,
    privacy: PrivacyRules | None = None,
) -> Note:
    """Parse one note; never raises, never writes, never blocks. Invalid and skipped files carry a reason.

    ``conventions`` are the vault's settings (read from ``root`` when not given). Only a regular
    file inside the vault is read (see safe_read); ``scanned``: its stat at scan time, so a file
    changed since is reported instead of read half-way. ``privacy``: the vault's private patterns
    (read from ``root`` when not given). A private note (lucasrag/privacy.py) comes back as its path
    and status only: a pattern's note is never read, a ``private: true`` note is read no further than
    its frontmatter, and nothing of either is kept."""
    rel, utf8 = vault_relpath(root, path)
    if not utf8:
        return Note(rel, "invalid", "file name is not valid UTF-8: rename the file")
    privacy = privacy if privacy is not None else load_privacy(root)
    if privacy.matches(rel):
        return Note(rel, "private", f"a pattern of {PRIVATE_FILE}")
    conventions = conventions if conventions is not None else load_conventions(root)
    if (skip := template_reason(rel, conventions.templates)) is not None:
        return Note(rel, "skipped", skip)
    size, digest = 0, ""
    try:
        size = regular_file(root, path)[1].st_size
        if size > max_bytes:  # don't read a huge file just to reject it
            raise _Invalid(_size_reason(size, max_bytes))
        raw = read_regular(root, path, limit=max_bytes, expected=scanned)
        size, digest = len(raw), hashlib.sha256(raw).hexdigest()
        _, meta, raw_body = _parse_text(raw, max_bytes)
        if says_private(meta):  # before anything else reads a value of it
            return Note(rel, "private", f"its {PRIVATE_KEY}: true property")
        body, from_properties = _indexed_body(meta, raw_body)
        dated = note_date(meta, rel, order=conventions.date_order)
        workspace = _choice("workspace", meta["workspace"], WORKSPACES) if _given(meta, "workspace") else None
        band = _choice("band", meta["band"], BANDS) if _given(meta, "band") else None
        charged = _strings("charged", meta["charged"]) if _given(meta, "charged") else ()
        tags = _tags(meta["tags"]) if _given(meta, "tags") else ()
    except _Invalid as exc:
        return Note(rel, "invalid", str(exc), content_hash=digest, size=size)
    except _Skipped as exc:
        return Note(rel, "skipped", str(exc), content_hash=digest, size=size)
    except UnreadableEntry as exc:
        return Note(rel, "invalid", str(exc), size=size)
    except OSError as exc:
        return Note(rel, "invalid", f"cannot read file: {exc.strerror or exc} (check permissions)", size=size)
    title = str(meta.get("title") or "").strip()
    if not title:
        heading = _H1.search(body)
        title = heading.group(1).strip() if heading else path.stem
    warnings = (f"undated: {dated.warning}",) if dated.warning and dated.date is None else ()
    if dated.warning and dated.date is not None:
        warnings = (f"dated by {dated.source}; {dated.warning}",)
    return Note(
        path=rel,
        status="ok",
        reason=None,
        body=body,
        frontmatter=meta,
        date=dated.date,
        date_source=dated.source,
        workspace=workspace,
        band=band,
        charged=charged,
        title=title,
        tags=tags,
        content_hash=digest,
        size=size,
        aliases=aliases_of(meta),
        links=link_targets(strip_comments(raw_body)),
        warnings=warnings,
        kinds=kinds_of(meta),
        # A saved page has text; a properties-only reference note's ``url:`` is a link, not a clipping.
        source=None if from_properties else source_url(meta),
        updated=updated_date(meta, order=conventions.date_order),
    )


def scan_vault(root: Path, *, max_bytes: int) -> list[Note]:
    """Every note of the vault, valid or not, in path order."""
    conventions, privacy = load_conventions(root), load_privacy(root)
    return [
        parse_note(root, p, max_bytes=max_bytes, conventions=conventions, privacy=privacy)
        for p in iter_vault_files(root)
    ]
