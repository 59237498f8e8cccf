"""The structural entity extractor: what a person wrote explicitly, as an entity graph.

Pure functions: no Dagster, no LightRAG, no model. For one chunk of one note:

* the note itself (type ``note``, named by its file stem, which is what
  ``[[wikilinks]]`` name), its title and frontmatter ``aliases`` (``note``),
  frontmatter ``tags`` and inline ``#tags`` (``tag``, named ``#tag``) and
  people-like keys ``people`` / ``with`` / ``attendees`` / ``author`` (``person``);
* ``[[wikilinks]]`` in the text (``[[Target]]``, ``[[Target|alias]]``,
  ``[[Target#heading]]``, ``![[embed]]``) → ``note`` entities;
* headings (``concept``);
* proper names found by a rule-based recogniser: runs of capitalised words
  (connectors such as *de*, *das*, *of* allowed inside), split at a stoplist;
  a run at the start of a sentence counts only if the chunk repeats it, uses it
  mid-sentence, the frontmatter names it, or it is several title-case words.
  Types come from cues (honorifics and kinship words, "said", "with X",
  "in X", "Street"/"Council"-like words, "engineer at X"); else ``concept``.

Relations: the note → each link target (``links to``), tag, person, alias and
heading; and co-occurrence of the entities the text mentions, within
``WINDOW`` words, weighted by proximity. Every description is built from the
sentence(s) of the chunk that mention the entities.

Every fragment and weight is a pure function of (names, chunk text, note path)
— ``entity_fragment``, ``relation_fragment``, ``relation_weight`` — so an index
can recompute them from a stored chunk when another chunk goes away.
"""

from __future__ import annotations

from lucasrag.entities._extract import (
    ChunkGraph,
    Entity,
    NoteMeta,
    Relation,
    entity_properties,
    extract_chunk,
    note_meta,
)
from lucasrag.entities._fragments import (
    entity_fragment,
    mention_positions,
    relation_fragment,
    relation_weight,
)
from lucasrag.entities._lexicon import (
    ALIAS_KEYS,
    ALIAS_OF,
    CO_OCCURS,
    ENTITY_TYPES,
    LINKS_TO,
    MAX_FRAGMENT_CHARS,
    MAX_PAIRS,
    PEOPLE_KEYS,
    SECTION,
    TAGGED,
    TYPE_RANK,
    WINDOW,
)
from lucasrag.entities._names import Name, recognise_names
from lucasrag.entities._query import QueryTerms, query_terms
from lucasrag.entities._text import link_target, note_name

__all__ = [
    "ALIAS_KEYS",
    "ALIAS_OF",
    "CO_OCCURS",
    "ChunkGraph",
    "ENTITY_TYPES",
    "Entity",
    "LINKS_TO",
    "MAX_FRAGMENT_CHARS",
    "MAX_PAIRS",
    "Name",
    "NoteMeta",
    "PEOPLE_KEYS",
    "QueryTerms",
    "Relation",
    "SECTION",
    "TAGGED",
    "TYPE_RANK",
    "WINDOW",
    "entity_fragment",
    "entity_properties",
    "extract_chunk",
    "link_target",
    "mention_positions",
    "note_meta",
    "note_name",
    "query_terms",
    "recognise_names",
    "relation_fragment",
    "relation_weight",
]
