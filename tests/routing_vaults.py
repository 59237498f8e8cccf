"""Vaults for the router's tests: a stand-in embedder and synthetic notes in a few folders (shared by
tests/rules/test_routing_batch.py and tests/rules/test_routing_remembered.py)."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl

from lucasrag.vocabulary import WORKSPACES

DIM = 384


def fake_embed(texts: list[str]) -> np.ndarray:
    """A unit vector per text, the same for the same text (seeded by its hash), float32 like the model's."""
    rows = []
    for text in texts:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
        rows.append(v / np.linalg.norm(v))
    return np.stack(rows).astype(np.float32) if rows else np.zeros((0, DIM), dtype=np.float32)


WORDS = (
    "kubernetes postgres deploy python invoice insurance tax lease poem verse story chapter diary family "
    "holiday cat garden recipe film meeting budget server bug sea moon rent bank pension draft"
).split()
FOLDERS = ["tech", "tech/db", "journal", "admin/tax", "writing", "inbox", "inbox/clips", "02 Areas/Life", ""]


def synthetic_notes(seed: int, n: int) -> pl.DataFrame:
    """``n`` notes in a few folders (some labelled, some with too few words, some empty of words)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        folder = FOLDERS[rng.integers(len(FOLDERS))]
        words = rng.choice(WORDS, size=int(rng.integers(0, 25))).tolist()
        label = WORKSPACES[rng.integers(4)] if rng.random() < 0.08 else None
        rows.append(
            {
                "path": f"{folder}/n{i}.md" if folder else f"n{i}.md",
                "status": "ok" if rng.random() < 0.95 else "invalid",
                "title": f"note {i}",
                "body": " ".join(words) + ("\n```\nkubectl get pods\n```\n" if rng.random() < 0.1 else ""),
                "declared_workspace": label,
                "tags": ["recipe"] if rng.random() < 0.05 else [],
                "links": [],
                "kinds": [],
                "source": None,
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "path": pl.String,
            "status": pl.String,
            "title": pl.String,
            "body": pl.String,
            "declared_workspace": pl.String,
            "tags": pl.List(pl.String),
            "links": pl.List(pl.String),
            "kinds": pl.List(pl.String),
            "source": pl.String,
        },
    )
