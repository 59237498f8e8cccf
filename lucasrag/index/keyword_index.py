"""SQLite FTS5's ``ORDER BY rank`` for an OR of terms, answered from memory with the same numbers.

The chunk store's keyword search asks FTS5 for the best BM25 matches of a question's terms; FTS5
scores every row that holds any of them, on every call (≈ 5 ms per workspace at 4,000 chunks). A
long-lived query process asks the same open store again and again, so the store builds this index
once from its ``chunk_terms`` rows and answers from it (``SqliteChunkStore.keyword_search``).

Exactness: every number is FTS5's own — the row count and token total of its averages record,
each row's token count from its docsize table, each term's per-row frequencies from its instance
vocabulary (read once per term) — and the score is its ``bm25()`` (sqlite ``fts5_aux.c``, k1 = 1.2,
b = 0.75) with its operations in its order, in float64: idf ``log((N - n + 0.5) / (n + 0.5))`` (at
most 0 becomes 1e-6), per phrase ``idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl)))``
summed in phrase order, ``avgdl`` = tokens / rows. Rows with equal scores come in rowid order, as
SQLite's (stable) sorter leaves FTS5's rowid-ordered matches. ``tests/index/test_keyword_index.py``
checks the ranking against FTS5's, ties included.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

#: FTS5's bm25() constants.
K1 = 1.2
B = 0.75


def varints(blob: bytes) -> list[int]:
    """The SQLite varints FTS5 packs its sizes in (7 bits a byte, high bit: more follows)."""
    out, value = [], 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            out.append(value)
            value = 0
    return out


class KeywordIndex:
    """One FTS5 table's statistics and, term by term as questions ask for them, its postings."""

    def __init__(
        self,
        n_rows: int,
        n_tokens: int,
        rows: Sequence[tuple[int, str | None, int]],
        read_postings: Callable[[str], Sequence[tuple[int, int]]],
    ) -> None:
        """``n_rows``/``n_tokens``: FTS5's averages record; ``rows``: (rowid, chunk id or None when no
        chunk row has it, token count) by rowid; ``read_postings(term)``: (rowid, frequency) by rowid."""
        self.n_rows, self.n_tokens = n_rows, n_tokens
        self.rowids = np.array([r[0] for r in rows], dtype=np.int64)
        self.chunk_ids = [r[1] for r in rows]
        self.lengths = np.array([r[2] for r in rows], dtype=np.float64)
        self._read = read_postings
        self._postings: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(row positions, frequencies) of ``term``; None when no row holds it.

        A posting is read when a question first asks for its term, after the rows were: a row another process
        committed in between (an ingest writing while a server answers) is not among the rows and is left out —
        that one answer is as of the rows' read, and the store reads the index afresh at its next search
        (``SqliteChunkStore._fresh``: the commit changed SQLite's ``data_version``)."""
        if term not in self._postings:
            hits = self._read(term)
            rowids = np.array([h[0] for h in hits], dtype=np.int64)
            pos = np.searchsorted(self.rowids, rowids)
            known = pos < len(self.rowids)
            known[known] = self.rowids[pos[known]] == rowids[known]
            freqs = np.array([float(h[1]) for h in hits])[known]
            self._postings[term] = (pos[known], freqs) if known.any() else None
        return self._postings[term]

    @staticmethod
    def answers(query: Sequence[str]) -> bool:
        """Whether FTS5 surely reads every term as the one token it is (ASCII letters and digits; other
        terms go to FTS5, whose Unicode tables may split them)."""
        return all(t.isascii() and t.isalnum() for t in query if t)

    def doc_freq(self, term: str) -> int:
        posting = self._posting(term)
        return 0 if posting is None else len(posting[0])

    def search(self, query: Sequence[str], k: int) -> list[str]:
        """The chunk ids of FTS5's first ``k`` rows for ``"t1" OR "t2" ...`` by rank (rows without
        a chunk take their place in the ``k``, then drop out, as the store's SQL join drops them)."""
        phrases = [t for t in query if t]
        if not phrases or k < 1 or not self.n_rows:
            return []
        avgdl = float(self.n_tokens) / float(self.n_rows)
        hit = [self._posting(t) for t in phrases]
        present = [p for p in hit if p is not None]
        if not present:
            return []
        # one score per row (a row no term hits stays 0.0: every hit adds idf * f * … > 0), so a question's
        # common terms cost a pass over the postings, not a sort of their union (≈ 7x at 50,000 rows)
        scores = np.zeros(len(self.rowids))
        for posting in hit:
            n_hit = 0 if posting is None else len(posting[0])
            idf = math.log((self.n_rows - n_hit + 0.5) / (n_hit + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            if posting is None:
                continue  # every row adds idf * 0 / (…) = 0.0: nothing
            pos, f = posting
            norm = K1 * ((1 - B) + (B * self.lengths[pos]) / avgdl)
            scores[pos] += idf * ((f * (K1 + 1.0)) / (f + norm))
        rows = np.flatnonzero(scores > 0.0)  # the rows some term hits
        if k < len(rows):  # those that can be in the first k: at least the k-th best score
            # partitioned among the hit rows only: numpy's partition of every row, most of them 0.0, took ≈ 5 ms at
            # 52,000 rows where this takes ≈ 0.15 ms
            hit_scores = scores[rows]
            rows = rows[hit_scores >= np.partition(hit_scores, len(rows) - k)[len(rows) - k]]
        best = rows[np.lexsort((rows, -scores[rows]))[:k]]
        return [cid for cid in (self.chunk_ids[i] for i in best) if cid is not None]
