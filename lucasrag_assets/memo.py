"""Per-note work kept between runs, so an unchanged vault re-ingests quickly.

The memos live under ``LUCASRAG_DATA/cache`` (never in the vault): parsed notes keyed by
(path, size, mtime, size cap) — the same test a sync tool uses, never used to
decide a band —, chunk texts keyed by (note content hash, chunk size), and, so that a
one-note change redoes one note, each note's routing evidence and its chunk rows (band and
care), keyed by a digest of every input they read, the rules' source and the vault-wide inputs
(``row_keys``, ``source_fingerprint``). What reads the whole vault (routing's self-training and
folder evidence, the catalogue's change list) is recomputed every run from these.
Each is rewritten with only the current notes, so it never outgrows the vault.
Deleting the folder is always safe: the work is simply redone.

A long-lived process (``lucasrag watch``, ``mcp --watch``, the sensor's in-process run) keeps each memo it
last wrote or read with its file's identity, as the IO manager keeps asset values: the next run takes it
without reading the Parquet back; another writer's file is read again.
"""

import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType

import numpy as np
import polars as pl

from lucasrag.file_memo import KeptByIdentity, parquet_writer
from lucasrag.seen import RecentlyUsed, row_hashes
from lucasrag.settings import Settings

#: The memos this process last wrote or read (every memo of one data folder, with room to spare).
_kept = KeptByIdentity(limit=12)


def memo_path(settings: Settings, name: str) -> Path:
    return settings.data / "cache" / f"{name}.parquet"


def _parquet_or_none(path: Path) -> pl.DataFrame | None:
    try:
        return pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError):  # a torn or foreign file: recompute
        return None


def load_memo(settings: Settings, name: str) -> pl.DataFrame | None:
    return _kept.read(memo_path(settings, name), _parquet_or_none)  # None without the file


def save_memo(settings: Settings, name: str, frame: pl.DataFrame) -> None:
    _kept.write(memo_path(settings, name), frame, parquet_writer(frame))


def source_files(*modules: ModuleType) -> list[Path]:
    """The files :func:`source_fingerprint` reads: a module's source file; a package's every ``.py`` and
    ``.json`` file of its folder (e.g. the care detector's weights)."""
    files = []
    for module in modules:
        source = Path(module.__file__)
        if source.stem == "__init__":
            files.extend(sorted([*source.parent.glob("*.py"), *source.parent.glob("*.json")]))
        else:
            files.append(source)
    return files


def source_fingerprint(*modules: ModuleType) -> str:
    """A digest of the modules' source files (:func:`source_files`): a memo keyed by it is redone whenever
    the rules change."""
    digest = hashlib.blake2b(digest_size=16)
    for file in source_files(*modules):
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


#: The row keys this process last worked out, per salt and key columns (their names and types): the next run
#: digests only rows it has not seen (see :func:`row_keys`). The last few key sets are kept.
_KEYS_SEEN: RecentlyUsed[tuple, pl.DataFrame] = RecentlyUsed(8)


def row_keys(frame: pl.DataFrame, columns: Sequence[str], salt: str) -> list[str]:
    """One key per row: a digest of ``salt`` and the row's values in ``columns`` (what its result depends on).

    The values but a note's body are written by polars as one JSON object per row (column names, strings
    escaped, lists, null apart from empty); the body follows as its own bytes after a byte JSON text never
    holds (so no two rows meet in one key). 10,000 notes: ≈ 0.05 s, a third of a ``repr`` per row.

    A long-lived process digests only the rows it did not meet in its last call with the same salt and columns:
    a row is recognised by two of polars' 64-bit row hashes (128 bits, computed within this process), and gets
    the key it had (at 100,000 notes ≈ 0.05 s instead of 0.4 s a memo)."""
    if not frame.height:
        return []
    part = frame.select(columns)
    seen_as = (salt, tuple(part.schema.items()))
    ids = pl.DataFrame(dict(zip("ab", row_hashes(part))))
    seen = _KEYS_SEEN.get(seen_as)
    if seen is not None:
        keys = ids.join(seen, on=["a", "b"], how="left", maintain_order="left")["key"].to_list()
    else:
        keys = [None] * frame.height
    todo = [i for i, key in enumerate(keys) if key is None]
    if todo:
        for i, key in zip(todo, _digests(part[todo], columns, salt)):
            keys[i] = key
    _KEYS_SEEN.put(seen_as, ids.with_columns(pl.Series("key", keys, dtype=pl.String)).unique(["a", "b"]))
    return keys


def _digests(frame: pl.DataFrame, columns: Sequence[str], salt: str) -> list[str]:
    """:func:`row_keys` worked out for every row of ``frame``."""
    small = [c for c in columns if c != "body"]
    heads = frame.select(pl.struct(small).struct.json_encode())[:, 0].to_list() if small else [""] * frame.height
    bodies = frame["body"].to_list() if "body" in columns else [None] * frame.height
    salted = hashlib.blake2b(f"{len(salt)}:{salt}".encode("utf-8", "surrogatepass"), digest_size=16)
    keys = []
    for head, body in zip(heads, bodies):
        digest = salted.copy()
        digest.update(head.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00" if body is None else b"\x01")  # no JSON text holds a raw control byte
        digest.update((body or "").encode("utf-8", "surrogatepass"))
        keys.append(digest.hexdigest())
    return keys


def hashed_body(frame: pl.DataFrame, columns: Sequence[str]) -> list[str]:
    """``columns`` for :func:`row_keys` with a note's ``body`` replaced by its ``content_hash`` (the digest of
    its file's bytes) where ``frame`` has one for every row: hashing every body again each run was most of a
    row key's cost (≈ 0.05 s a memo at 20,000 notes). The body is what the parse made of those bytes, so the
    caller's salt must name the parse (``assets.notes.parse_key``)."""
    if "body" not in columns or "content_hash" not in frame.columns:
        return list(columns)
    if frame["content_hash"].is_null().any() or (frame["content_hash"] == "").any():
        return list(columns)
    return list(dict.fromkeys(["content_hash" if c == "body" else c for c in columns]))


def memoised_rows(
    settings: Settings,
    name: str,
    frame: pl.DataFrame,
    keys: Sequence[str],
    compute: Callable[[pl.DataFrame], pl.DataFrame],
    schema: Mapping[str, pl.DataType],
    *,
    by: str | None = None,
    sort_within: str | None = None,
) -> tuple[pl.DataFrame, int]:
    """``compute(frame)`` (rows of ``schema``), computed only for the rows of ``frame`` whose key the last
    run's memo ``name`` does not hold. ``keys[i]`` must cover everything row i's result depends on.

    Without ``by``, compute gives one row per row of ``frame``, in its order. With ``by``, it gives any
    number of rows per row (a note's chunks), each naming its row by its value in column ``by`` (unique
    in ``frame``, and in ``schema``); ``sort_within`` orders one row's results (``chunk_index``).
    Returns the result in ``frame``'s order and how many rows of ``frame`` were computed afresh; the
    memo is rewritten with this run's rows only."""
    key_frame = pl.DataFrame({"key": list(keys)}, schema={"key": pl.String})
    previous = load_memo(settings, name)
    known = None
    if previous is not None and {"key", *schema} <= set(previous.columns):
        known = previous.select("key", *schema).cast(dict(schema))
        wanted = known["key"].is_in(key_frame["key"].implode())
        if not wanted.all():  # a row changed or went: its old results go (a filter copies every row)
            known = known.filter(wanted)
    todo = (
        ~key_frame["key"].is_in(known["key"].implode())
        if known is not None
        else pl.repeat(True, frame.height, eager=True)
    )
    fresh = compute(frame.filter(todo)).cast(dict(schema))
    if by is None:
        fresh = fresh.with_columns(key_frame.filter(todo)["key"])
    else:
        owners = frame.select(by).with_columns(key_frame["key"]).filter(todo)
        fresh = fresh.join(owners, on=by, how="left")
    every = fresh.select("key", *schema) if known is None else pl.concat([known, fresh.select("key", *schema)])
    # where each result row is in ``every``, worked out on the keys alone (joining the wide rows copied them twice)
    order = key_frame.with_row_index("order")
    if by is None:
        first = every.select("key").with_row_index("row").unique("key", keep="first", maintain_order=True)
        at = order.join(first, on="key", how="left", maintain_order="left")["row"]
    else:
        within = [sort_within] if sort_within else []
        rows = every.select("key", *within).with_row_index("row").join(order, on="key", how="inner")
        at = rows.sort("order", *within)["row"]
    result = _taken(every, at)
    save_memo(settings, name, result)  # in ``frame``'s order: the next run finds its rows in long runs
    return result.drop("key"), int(todo.sum())


#: Past this many runs of consecutive rows, :func:`_taken` copies the rows (a gather) instead of slicing.
_MAX_RUNS = 64


def _taken(frame: pl.DataFrame, at: pl.Series) -> pl.DataFrame:
    """``frame``'s rows at positions ``at``. When they come in few runs of consecutive rows — a long-lived process's
    next run, whose memo is the last run's result in order but for the rows that changed — the result is made of
    slices of ``frame``, which copies no row (a gather of 160,000 chunk rows took ≈ 0.1 s)."""
    positions = at.to_numpy()
    if not len(positions):
        return frame.head(0)
    breaks = np.flatnonzero(np.diff(positions) != 1) + 1
    if len(breaks) >= _MAX_RUNS:
        return frame.select(pl.all().gather(at))
    bounds = [0, *breaks.tolist(), len(positions)]
    pieces = [frame.slice(int(positions[a]), b - a) for a, b in zip(bounds, bounds[1:])]
    taken = pl.concat(pieces, rechunk=False)
    return taken.rechunk() if max(taken.n_chunks("all")) > _MAX_RUNS else taken
