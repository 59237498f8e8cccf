"""Keyword matching: one analyser for every lexical path, BM25, and rank fusion.

Dense retrieval misses what keyword search finds easily — names, objects,
places the question repeats word for word (on LoCoMo, BM25 over the same
chunks beat MiniLM by 0.14 recall@5). The query path therefore fuses both.

Every lexical path (the chunk stores' full-text indexes, the pool scoring at
query time) goes through :func:`terms` (via :func:`chunk_terms` and
:func:`query_terms`), so the document frequencies a store reports
and the terms the query side counts are the same strings: lowercase, accents
folded, English Snowball stems, stop words dropped. The stores index the
space-joined terms, not the raw text, for that reason.

Plain functions, no storage or LightRAG imports.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import snowballstemmer

_WORD = re.compile(r"[^\W_]+")

#: Function words that carry no topic (a short list: recall matters more than index size).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t d ll m re ve""".split()
)

#: Okapi BM25 parameters (the usual defaults).
K1 = 1.2
B = 0.75

#: Reciprocal-rank-fusion constant (Cormack et al., 2009): damps the head of each list.
RRF_K = 60

# A Snowball stemmer keeps its working state on the object: concurrent queries (the MCP
# server ranks in worker threads) would corrupt a shared one, so each thread has its own.
_stemmers = threading.local()


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


def _fold(text: str) -> str:
    if text.isascii():  # nothing to decompose or strip (most text; the per-character pass is the cost)
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def terms(text: str) -> list[str]:
    """The indexable terms of ``text``, in order, repeats kept (term frequency counts)."""
    return [_stem(w) for w in _WORD.findall(_fold(text)) if w not in STOPWORDS]


def date_terms(date: str | None) -> list[str]:
    """A chunk's year and decade as terms (``"2016"``, ``"2010s"``): its date is part of
    what it says, so "where was I working in 2016?" matches notes dated 2016 that never
    write the year."""
    if not date or len(date) < 4 or not date[:4].isdigit():
        return []
    return terms(f"{date[:4]} {date[:3]}0s")


@lru_cache(maxsize=1 << 13)
def chunk_terms(text: str, date: str | None) -> tuple[str, ...]:
    """What the keyword index holds for a chunk: its words, then its date's terms.

    Memoised (a pure function of its arguments): every question analyses the texts of its
    candidate pool again, and most of them were candidates of earlier questions."""
    return tuple(terms(text) + date_terms(date))


@lru_cache(maxsize=1 << 13)
def _term_counts(document: tuple[str, ...]) -> Counter:
    return Counter(document)


def period_terms(periods: Iterable[tuple]) -> list[str]:
    """Query terms for the periods a query named: a single year or a whole decade,
    spelled as :func:`date_terms` spells them ("the nineties" → ``"1990s"``)."""
    out: list[str] = []
    for start, end in periods:
        if start.year == end.year:
            out += terms(str(start.year))
        elif start.year % 10 == 0 and end.year == start.year + 9:
            out += terms(f"{start.year}s")
    return out


def query_terms(text: str, periods: Iterable[tuple] = ()) -> list[str]:
    """The distinct terms of a query, in order, plus those of the periods it names."""
    return list(dict.fromkeys(terms(text) + period_terms(periods)))


def idf(n_docs: int, df: int) -> float:
    """Always-positive BM25 idf (Lucene's form)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def idf_weights(query: Sequence[str], df: Mapping[str, int], n_docs: int) -> dict[str, float]:
    """The idf of each query term over a collection of ``n_docs`` documents (``df``: documents holding it)."""
    return {t: idf(max(n_docs, df.get(t, 0)), df.get(t, 0)) for t in query}


def bm25(
    query: Sequence[str],
    documents: Sequence[Sequence[str]],
    df: Mapping[str, int],
    n_docs: int,
    *,
    avg_len: float | None = None,
) -> list[float]:
    """BM25 of each document (a list of terms) for ``query`` (distinct terms).

    ``df`` and ``n_docs`` describe the whole collection the documents come from
    (not just these documents), so a name that is rare in the vault weighs more
    than a word every note uses. ``avg_len`` defaults to these documents' mean.
    """
    if not documents:
        return []
    lengths = [len(d) for d in documents]
    avg = avg_len or (sum(lengths) / len(lengths)) or 1.0
    weights = idf_weights(query, df, n_docs)
    scores = []
    for doc, length in zip(documents, lengths):
        # a chunk_terms() tuple is counted once for every question that scores it (read only here)
        counts = _term_counts(doc) if isinstance(doc, tuple) else Counter(doc)
        norm = K1 * (1 - B + B * length / avg)
        scores.append(sum(w * counts[t] * (K1 + 1) / (counts[t] + norm) for t, w in weights.items() if counts[t]))
    return scores


#: A term in more than this share of a collection's chunks, and in more than COMMON_TERM_MIN of them, does not select
#: keyword matches on PostgreSQL (it still scores those a distinctive term selects): see distinctive_terms.
COMMON_TERM_SHARE = 0.1
COMMON_TERM_MIN = 2000


def distinctive_terms(counts: Mapping[str, int], n_chunks: int) -> list[str]:
    """The terms whose chunks a ranked keyword search reads: all but the common ones (in more than
    :data:`COMMON_TERM_SHARE` and more than :data:`COMMON_TERM_MIN` of the ``n_chunks``), or the rarest when
    every one is common. ``counts``: the chunks holding each term, a term no chunk holds left out.

    Why: PostgreSQL's ``ts_rank`` reads every chunk its query matches, and a question's common words ("get",
    "current", a year) each match a tenth to a half of a large workspace — 17 ms a search on average at 100,000
    notes, 7 ms for the distinctive terms alone. A chunk holding only common terms ranks below those holding a
    distinctive one and seldom reaches a workspace's 30 (95 % of each top 30 unchanged on the 100,000-note
    vault's questions); the vector search still finds it."""
    common = {t for t, c in counts.items() if c > COMMON_TERM_SHARE * n_chunks and c > COMMON_TERM_MIN}
    selective = [t for t in counts if t not in common]
    return selective or sorted(counts, key=lambda t: (counts[t], t))[:1]


def fts_match(query: Sequence[str]) -> str | None:
    """An SQLite FTS5 MATCH expression for any of ``query`` (None when nothing is left to match)."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in query if t]
    return " OR ".join(quoted) or None


def fuse_rankings(rankings: Iterable[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal rank fusion of several best-first id lists into one (ties: first seen)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores, key=lambda i: -scores[i])


def fused_scores(
    score_lists: Sequence[Sequence[float]], weights: Sequence[float] | None = None, k: int = RRF_K
) -> list[float]:
    """Per-item weighted reciprocal-rank-fusion scores in [0, 1] from several score
    lists over the same items.

    Each list ranks the items (higher is better); an item scoring 0 in a list
    (no keyword in common, say) gets nothing from that list. 1.0 means first
    in every list."""
    weights = list(weights) if weights is not None else [1.0] * len(score_lists)
    n = len(score_lists[0]) if score_lists else 0
    fused = [0.0] * n
    for scores, weight in zip(score_lists, weights):
        order = sorted(range(n), key=lambda i: -scores[i])
        for rank, i in enumerate(order):
            if scores[i] > 0:
                fused[i] += weight / (k + rank + 1)
    best = sum(weights) / (k + 1)
    return [f / best for f in fused]
