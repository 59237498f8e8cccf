"""Fixtures of the index tests that write chunk rows of their own (see tests/conftest.py for the shared ones)."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from lucasrag.embedding import DIM
from lucasrag.vocabulary import ChunkRecord


@pytest.fixture
def unit_vectors():
    """``unit_vectors(n)``: ``n`` random unit vectors of the model's dimension (seeded by ``n``), one a chunk row."""

    def make(n: int) -> np.ndarray:
        v = np.random.default_rng(n).normal(size=(n, DIM)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    return make


@pytest.fixture
def present_chunks():
    """``present_chunks(workspace, texts)``: one present, undated chunk row a text, each of a note of its own
    (``<workspace>-c<i>`` of ``<workspace>-d<i>``, ``<workspace>/n<i>.md``)."""

    def make(workspace: str, texts: list[str]) -> list[ChunkRecord]:
        return [
            ChunkRecord(
                f"{workspace}-c{i}",
                f"{workspace}-d{i}",
                workspace,
                f"{workspace}/n{i}.md",
                0,
                text,
                "present",
                "undated",
                None,
            )
            for i, text in enumerate(texts)
        ]

    return make


@pytest.fixture
def fresh_pg_settings(postgres_server, settings_for, tmp_path):
    """Production settings on a PostgreSQL database of this test's own (made empty, schema from scratch)."""
    from lucasrag_harness.local_servers.postgres import ensure_database

    dsn = ensure_database(postgres_server.admin_dsn, f"t_{uuid.uuid4().hex[:12]}")
    return settings_for(tmp_path, tmp_path / "data", profile="production", postgres_dsn=dsn)
