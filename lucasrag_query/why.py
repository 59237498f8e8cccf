"""Why a result surfaced: the rankings that placed it, for an assistant (or a person) to read.

The ranker records each candidate's score and rank under every signal it fused
(:class:`lucasrag_query._ranking.Ranked`); this module turns them into the ``why``
block of a result: per signal its score, its rank in the merged pool and, for the
keyword signal, the query words the passage shares; plus one line that says it in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lucasrag import lexical

#: What each signal measures, in the words of the summary line.
_LABELS = {
    "cross_encoder": "the cross-encoder judged it relevant",
    "similarity": "close in meaning",
    "keywords": "shares the words",
    "entity_graph": "reached through an entity the query names",
    "time_fit": "time fit",
}


def matched_words(query: str, text: str, date: str | None) -> list[str]:
    """The query's words (as written, lowercased) whose keyword terms the passage contains."""
    have = set(lexical.chunk_terms(text, date))
    words = []
    for word in dict.fromkeys(w.casefold() for w in query.split()):
        word = word.strip(".,;:!?\"'()[]")
        if word and any(t in have for t in lexical.terms(word)):
            words.append(word)
    return words


def why_surfaced(signals: Mapping[str, tuple[float, int | None]], pool_size: int, words: Sequence[str] = ()) -> dict:
    """The ``why`` block of one result (see the module doc)."""
    out: dict[str, dict] = {}
    phrases = []
    for name, (score, rank) in signals.items():
        entry: dict = {"score": round(score, 4), "rank": rank}
        if name == "keywords":
            entry["words"] = list(words)
        out[name] = entry
        if rank is None:
            continue
        if name == "keywords":
            phrases.append(f"{_LABELS[name]} {', '.join(words) or '(stems)'} (#{rank})")
        elif name == "time_fit":
            phrases.append(f"{_LABELS[name]} {score:.2f}")
        else:
            phrases.append(f"{_LABELS[name]} (#{rank})")
    return {"signals": out, "pool": pool_size, "summary": f"{'; '.join(phrases)} — of {pool_size} candidates"}
