"""One chunk-store protocol, two implementations, one profile table that picks between them."""

import dataclasses
import inspect

import pytest

from lucasrag.index import ChunkStore, index_exists, index_stamp, open_chunk_store
from lucasrag.index.chunk_store import SqliteChunkStore
from lucasrag.index.chunk_store_pg import PostgresChunkStore
from lucasrag.settings import PROFILES, Settings, SettingsError

MEMBERS = [name for name in vars(ChunkStore) if not name.startswith("_") and callable(getattr(ChunkStore, name))]


def test_the_protocol_names_the_methods_callers_use():
    assert {"get", "vectors", "keyword_search", "nearest_dated", "add_chunks", "doc_fingerprints"} <= set(MEMBERS)


@pytest.mark.parametrize("implementation", [SqliteChunkStore, PostgresChunkStore])
@pytest.mark.parametrize("member", MEMBERS)
def test_each_store_implements_each_method_with_the_same_parameters(implementation, member):
    expected = list(inspect.signature(getattr(ChunkStore, member)).parameters)
    assert hasattr(implementation, member), f"{implementation.__name__} lacks {member}"
    assert list(inspect.signature(getattr(implementation, member)).parameters) == expected


def _settings(tmp_path, **changes) -> Settings:
    (tmp_path / "vault").mkdir(exist_ok=True)
    return dataclasses.replace(Settings.from_env(vault=tmp_path / "vault", data=tmp_path / "data"), **changes)


def test_the_embedded_profile_opens_a_sqlite_store_next_to_the_workspace(tmp_path):
    settings = _settings(tmp_path)
    assert not index_exists(settings, "technical")
    store = open_chunk_store(settings, "technical")
    try:
        assert isinstance(store, SqliteChunkStore) and isinstance(store, ChunkStore)
        assert store.path.parent == settings.workspace_dir("technical")
    finally:
        store.close()
    assert index_exists(settings, "technical")
    assert index_stamp(settings, "technical") != ()


def test_every_profile_has_its_stores():
    from lucasrag.index._lightrag._setup import _BACKENDS as LIGHTRAG_BACKENDS
    from lucasrag.index.stores import _BACKENDS

    assert set(_BACKENDS) == set(LIGHTRAG_BACKENDS) == set(PROFILES)


@pytest.mark.parametrize("call", [open_chunk_store, index_exists, index_stamp])
def test_an_unknown_profile_is_named_in_the_error(tmp_path, call):
    with pytest.raises(SettingsError, match="LUCASRAG_PROFILE='cloud' is not one of embedded, production"):
        call(_settings(tmp_path, profile="cloud"), "technical")


@pytest.mark.parametrize(("implementation", "waits"), [(SqliteChunkStore, False), (PostgresChunkStore, True)])
def test_each_store_says_whether_its_reads_wait_on_a_server(implementation, waits):
    assert implementation.waits_on_server is waits  # a query runs a waiting store's reads off its event loop
