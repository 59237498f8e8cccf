"""The extractor: note metadata and one chunk → entities and relations."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from lucasrag.entities._fragments import (
    _closest,
    entity_fragment,
    mention_positions,
    relation_fragment,
    relation_weight,
)
from lucasrag.entities._lexicon import (
    _HEADING_GENERIC,
    ALIAS_KEYS,
    ALIAS_OF,
    CO_OCCURS,
    LINKS_TO,
    MAX_PAIRS,
    PEOPLE_KEYS,
    SECTION,
    TAGGED,
    TYPE_RANK,
    WINDOW,
)
from lucasrag.entities._names import recognise_names
from lucasrag.entities._text import _WORD, _analyse, link_target, note_name
from lucasrag.markup import WIKILINK


@dataclass(frozen=True)
class NoteMeta:
    """What the extractor needs from a note beyond a chunk's text."""

    path: str
    title: str = ""
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    people: tuple[tuple[str, str], ...] = ()  # (name, frontmatter key)
    # The note's wikilink targets, read before indexing took the brackets out of the chunk text:
    # a chunk that names a target links to it (vault_scan.Note.links).
    links: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return note_name(self.path)


def _names_of(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        items = [value] if "[[" in value else re.split(r"\s*[,;]\s*", value)
    elif isinstance(value, (list, tuple)):
        items = [str(v) for v in value if v is not None and not isinstance(v, (dict, list))]
    else:
        return []
    out = []
    for item in items:
        m = WIKILINK.fullmatch(item.strip())
        if m:
            item = link_target(m["target"])
        item = " ".join(item.strip().strip('"').split())
        if item and item not in out:
            out.append(item)
    return out


def entity_properties(frontmatter: Mapping | None) -> dict:
    """The frontmatter keys :func:`note_meta` reads (title, tags, aliases, people) as JSON values that
    :func:`note_meta` reads exactly as it reads the originals: what the notes table carries so that no
    later step re-reads the vault."""
    keys = ("title", "tags", *ALIAS_KEYS, *PEOPLE_KEYS)
    out = {}
    for key, value in (frontmatter or {}).items():
        if key not in keys:
            continue
        if isinstance(value, (list, tuple)):  # items as _names_of reads them
            out[key] = [None if isinstance(v, (dict, list)) else v if isinstance(v, str) else str(v) for v in value]
        elif value is None or isinstance(value, str):
            out[key] = value
        elif key == "title":
            out[key] = str(value)  # note_meta reads str(title)
    return out


def note_meta(
    path: str,
    frontmatter: Mapping | None = None,
    *,
    title: str = "",
    tags: Iterable[str] = (),
    links: Iterable[str] = (),
) -> NoteMeta:
    """Tags, aliases and people-like keys from a note's frontmatter (lenient: bad values are skipped)."""
    fm = dict(frontmatter or {})
    all_tags: list[str] = []
    raw_tags = list(tags) or _names_of(
        fm.get("tags") if not isinstance(fm.get("tags"), str) else re.split(r"[,\s]+", fm["tags"])
    )
    for t in raw_tags:
        t = str(t).strip().lstrip("#").lower()
        if t and "#" + t not in all_tags:
            all_tags.append("#" + t)
    aliases: list[str] = []
    for key in ALIAS_KEYS:
        for a in _names_of(fm.get(key)):
            if a not in aliases and a != note_name(path):
                aliases.append(a)
    title = " ".join((title or str(fm.get("title") or "")).split())
    if title and title != note_name(path) and title.casefold() != note_name(path).casefold() and title not in aliases:
        aliases.insert(0, title)
    people: list[tuple[str, str]] = []
    seen: set[str] = set()
    for key in PEOPLE_KEYS:
        for p in _names_of(fm.get(key)):
            if p not in seen:
                seen.add(p)
                people.append((p, key))
    return NoteMeta(
        path=path,
        title=title,
        tags=tuple(all_tags),
        aliases=tuple(aliases),
        people=tuple(people),
        links=tuple(dict.fromkeys(links)),
    )


@dataclass(frozen=True)
class Entity:
    name: str
    type: str
    description: str


@dataclass(frozen=True)
class Relation:
    source: str
    target: str
    keywords: str
    weight: float
    description: str


@dataclass(frozen=True)
class ChunkGraph:
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()

    def entity(self, name: str) -> Entity | None:
        return next((e for e in self.entities if e.name == name), None)

    def relation(self, a: str, b: str) -> Relation | None:
        return next((r for r in self.relations if {r.source, r.target} == {a, b}), None)


@dataclass
class _Builder:
    path: str
    text: str
    types: dict[str, str] = field(default_factory=dict)
    relations: dict[frozenset, list] = field(default_factory=dict)

    def entity(self, name: str, type_: str) -> None:
        name = " ".join(name.split())
        if not name:
            return
        old = self.types.get(name)
        if old is None or TYPE_RANK[type_] > TYPE_RANK[old]:
            self.types[name] = type_

    def relate(self, a: str, b: str, keywords: str) -> None:
        if a == b or a not in self.types or b not in self.types:
            return
        key = frozenset((a, b))
        if key in self.relations:
            if keywords not in self.relations[key][2]:
                self.relations[key][2].append(keywords)
        else:
            self.relations[key] = [a, b, [keywords]]

    def build(self) -> ChunkGraph:
        entities = tuple(Entity(n, t, entity_fragment(n, self.text, self.path)) for n, t in self.types.items())
        relations = tuple(
            Relation(
                a,
                b,
                ", ".join(kw),
                relation_weight(a, b, self.text, self.path),
                relation_fragment(a, b, self.text, self.path),
            )
            for a, b, kw in self.relations.values()
        )
        return ChunkGraph(entities, relations)


def extract_chunk(text: str, meta: NoteMeta) -> ChunkGraph:
    """The entities and relations one chunk contributes (see the module docstring)."""
    an = _analyse(text)
    b = _Builder(meta.path, text)
    note = meta.name
    b.entity(note, "note")
    for tag in meta.tags:
        b.entity(tag, "tag")
        b.relate(note, tag, TAGGED)
    for alias in meta.aliases:
        b.entity(alias, "note")
        b.relate(note, alias, ALIAS_OF)
    for person, key in meta.people:
        b.entity(person, "person")
        b.relate(note, person, key)
    mentioned: list[str] = []
    linked = {t for t, _ in an.links}
    for target, _ in an.links:
        if target != note:
            b.entity(target, "note")
            b.relate(note, target, LINKS_TO)
            mentioned.append(target)
    for target in meta.links:  # links whose brackets indexing removed: the chunk names the target
        words = " ".join(_WORD.findall(target))  # "a - b" is the words "a b" in the chunk
        if target != note and target not in linked and words and mention_positions(text, words):
            linked.add(target)
            b.entity(target, "note")
            b.relate(note, target, LINKS_TO)
            mentioned.append(target)
    for tag, _ in an.tags:
        b.entity(tag, "tag")
        b.relate(note, tag, TAGGED)
        mentioned.append(tag)
    for heading, _ in an.headings:
        if (
            heading.casefold() in (note.casefold(), meta.title.casefold())
            or heading.casefold() in _HEADING_GENERIC
            or len(heading) < 3
            or len(heading) > 80
        ):
            continue
        b.entity(heading, "concept")
        b.relate(note, heading, SECTION)
    known = {p for p, _ in meta.people} | set(meta.aliases) | linked
    for found in recognise_names(text, known=known):
        b.entity(found.name, found.type)
        mentioned.append(found.name)
    mentioned.extend(p for p, _ in meta.people if mention_positions(text, p))
    mentioned.extend(a for a in meta.aliases if mention_positions(text, a))
    # co-occurrence: the closest pairs of mentioned entities
    unique = list(dict.fromkeys(m for m in mentioned if m != note))
    positions = {m: mention_positions(text, m) for m in unique}
    pairs = []
    for i, x in enumerate(unique):
        for y in unique[i + 1 :]:
            close = _closest(positions[x], positions[y])
            if close is not None and close[0] <= WINDOW:
                pairs.append((close[0], x, y))
    for _, x, y in sorted(pairs)[:MAX_PAIRS]:
        b.relate(x, y, CO_OCCURS)
    return b.build()
