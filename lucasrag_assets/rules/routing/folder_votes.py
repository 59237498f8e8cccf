"""Folder evidence for the router's second pass (docs/routing.md, "Cold start"): a folder's notes mostly share
a workspace, so each note hears the first-pass votes of its folder-mates. Plain functions, no Dagster.

:func:`folder_shares` does it for a whole vault at once with numpy; the sums are added in the order of the
notes, one vote after another (``np.add.at``), so every share is float for float what adding the votes one
by one in a Python loop gives (``tests/rules/test_routing_batch.py`` checks it against such a loop).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath

import numpy as np

from lucasrag.vocabulary import WORKSPACES

#: A folder speaks once it holds this many other notes; smaller folders lend the
#: evidence of the nearest ancestor folder that does.
FOLDER_EVIDENCE_MIN_NOTES = 2


def folder_evidence(
    paths: Sequence[str], distributions: Sequence[Mapping[str, float] | None]
) -> list[dict[str, float]]:
    """Per note, the share of each workspace among its folder-mates (the note itself left out).

    ``distributions[i]`` is note i's vote (workspace → weight, summing to at most 1; None: no
    vote, e.g. a content-free note). The note's own folder is used when it holds at least
    FOLDER_EVIDENCE_MIN_NOTES other voting notes; otherwise the nearest ancestor that does
    (its whole subtree); a note with no such folder gets no evidence (all zeros).
    """
    voting = np.array([bool(d) for d in distributions], dtype=bool)
    votes = np.array([[d.get(ws, 0.0) for ws in WORKSPACES] if d else [0.0] * len(WORKSPACES) for d in distributions])
    shares = folder_shares(paths, votes.reshape(len(paths), len(WORKSPACES)), voting)
    return [dict(zip(WORKSPACES, row)) for row in shares.tolist()]


def folder_shares(paths: Sequence[str], votes: np.ndarray, voting: np.ndarray) -> np.ndarray:
    """:func:`folder_evidence` as a matrix: row i is note i's share of each workspace (``WORKSPACES`` order)
    among its folder-mates. ``votes[i]`` is note i's vote, counted only where ``voting[i]``."""
    n, width = len(paths), len(WORKSPACES)
    index: dict[str, int] = {}
    chains = [[index.setdefault(folder, len(index)) for folder in _folder_chain(path)] for path in paths]
    # (note, folder) pairs of the voting notes, note after note: each folder's sum adds its notes' votes in order
    voters = np.asarray(voting, dtype=bool).tolist()
    pair_note = [i for i, chain in enumerate(chains) if voters[i] for _ in chain]
    pair_folder = [f for i, chain in enumerate(chains) if voters[i] for f in chain]
    sums = np.zeros((len(index), width))
    np.add.at(sums, np.array(pair_folder, dtype=np.intp), votes[np.array(pair_note, dtype=np.intp)])
    counts = np.bincount(np.array(pair_folder, dtype=np.intp), minlength=len(index)).tolist()

    def speaker(chain: tuple[int, ...], own: int) -> tuple[int, int] | None:
        for folder in reversed(chain):  # the innermost folder with enough other voters speaks
            if counts[folder] - own >= FOLDER_EVIDENCE_MIN_NOTES:
                return folder, counts[folder] - own
        return None

    speakers: dict[tuple, tuple[int, int] | None] = {}  # a folder's notes share their chain: look it up once
    chosen, others = [], []
    for i, chain in enumerate(chains):
        key = (tuple(chain), voters[i])
        if key not in speakers:
            speakers[key] = speaker(key[0], 1 if voters[i] else 0)
        if speakers[key] is not None:
            chosen.append((i, speakers[key][0]))
            others.append(speakers[key][1])
    shares = np.zeros((n, width))
    if chosen:
        notes, folders = (np.array(column, dtype=np.intp) for column in zip(*chosen))
        own_vote = np.where(
            np.asarray(voting, dtype=bool)[notes][:, None], votes[notes], 0.0
        )  # a non-voter takes nothing away
        shares[notes] = (sums[folders] - own_vote) / np.array(others, dtype=np.int64)[:, None]
    return shares


def _folder_chain(path: str) -> list[str]:
    """The folders holding ``path``, outermost first: ``a/b/n.md`` → ``["a", "a/b"]``."""
    return list(_parent_chain(path.rpartition("/")[0]))


@lru_cache(maxsize=4096)
def _parent_chain(parent: str) -> tuple[str, ...]:
    """:func:`_folder_chain` of a note in folder ``parent`` (a vault has few folders and many notes)."""
    parts = PurePosixPath(parent).parts
    return tuple("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
