"""Entity candidates in a query (for graph retrieval)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lucasrag.entities._lexicon import _CONTENT_STOP
from lucasrag.entities._names import recognise_names
from lucasrag.entities._text import _analyse


@dataclass(frozen=True)
class QueryTerms:
    names: tuple[str, ...]  # recognised names, links and tags in the query
    words: tuple[str, ...]  # content words (lower case)
    candidates: tuple[str, ...]  # names and word n-grams in the spellings an entity may have


def query_terms(text: str) -> QueryTerms:
    """Keywords for graph retrieval, without an LLM: the recogniser's names plus content words."""
    an = _analyse(text)
    names = [n.name for n in recognise_names(text, query=True)]
    names.extend(t for t, _ in an.links)
    names.extend(t for t, _ in an.tags)
    names.extend(q.strip() for q in re.findall(r"[\"“]([^\"”]{2,60})[\"”]", text))
    names = list(dict.fromkeys(n for n in names if n))
    words = [t.text for t in an.tokens if t.text.lower() not in _CONTENT_STOP and len(t.text) >= 2]
    content = list(dict.fromkeys(w.lower() for w in words))
    candidates: list[str] = list(names)
    whole = " ".join(text.strip().rstrip("?.!").split())
    if 0 < len(whole) <= 80:  # a query that is just a note's name: "characters - the lighthouse keeper"
        candidates.append(whole)
    for size in (3, 2, 1):
        for k in range(len(words) - size + 1):
            gram = words[k : k + size]
            phrase = " ".join(gram)
            for variant in (phrase, phrase.lower(), " ".join(w[:1].upper() + w[1:] for w in gram), phrase.upper()):
                candidates.append(variant)
            if size == 1:
                candidates.append("#" + phrase.lower())
    return QueryTerms(tuple(names), tuple(content), tuple(dict.fromkeys(candidates)))
