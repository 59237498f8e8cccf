"""Splitting a note body into chunks, and the deterministic ids. Pure functions, no Dagster."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from lucasrag.vocabulary import doc_id  # noqa: F401 - re-exported for the write side

Counter = Callable[[str], int]

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
# Sentence boundaries: after . ! ? (and closing quotes/brackets) plus whitespace, or a line break.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]\u201d\u2019]*[ \t]+|\n")
_WORD = re.compile(r"\S+")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


def chunk_id(path: str, index: int, text: str) -> str:
    key = f"{path}\0{index}\0{text}"
    return "chunk-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def _blocks(body: str) -> list[str]:
    """Paragraphs (blank-line separated), with headings starting a new block.

    Fenced code is kept whole (its blank lines and ``#`` comments are not structure).
    A heading is glued to the block after it, so no chunk ends on a bare heading.
    """
    blocks: list[list[str]] = []
    current: list[str] = []
    fence: str | None = None
    for line in body.splitlines():
        m = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if m and m.group(1) == fence:
                fence = None
            continue
        if m:
            fence = m.group(1)
        elif not line.strip():
            if current:
                blocks.append(current)
            current = []
            continue
        elif _HEADING.match(line) and current:
            blocks.append(current)
            current = []
        current.append(line)
    if current:
        blocks.append(current)
    merged: list[str] = []
    pending = ""
    for lines in blocks:
        text = "\n".join(lines).strip("\n")
        if _HEADING.match(lines[0]) and len(lines) == 1:
            pending = f"{pending}\n\n{text}" if pending else text
            continue
        merged.append(f"{pending}\n\n{text}" if pending else text)
        pending = ""
    if pending:  # trailing headings with nothing after them
        merged.append(pending)
    return merged


def _pack(text: str, spans: list[tuple[int, int]], max_tokens: int, count: Counter, *, words: bool) -> list[str]:
    """Greedily pack consecutive spans of ``text``; slices keep the original spacing."""
    chunks: list[str] = []
    start: int | None = None
    end = 0
    for s, e in spans:
        if start is not None and count(text[start:e].strip()) <= max_tokens:
            end = e
            continue
        if start is not None:
            chunks.append(text[start:end].strip())
            start = None
        piece = text[s:e].strip()
        if count(piece) <= max_tokens or words:  # a lone over-long word is kept whole
            start, end = s, e
        else:
            word_spans = [(m.start() + s, m.end() + s) for m in _WORD.finditer(text[s:e])]
            chunks.extend(_pack(text, word_spans, max_tokens, count, words=True))
    if start is not None:
        chunks.append(text[start:end].strip())
    return [c for c in chunks if c]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    bounds = [0, *(m.end() for m in _SENTENCE_BREAK.finditer(text)), len(text)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]


def _table_chunks(block: str, max_tokens: int, count: Counter) -> list[str] | None:
    """An over-long Markdown table cut between rows, each piece led by the header row (and any
    heading above the table), so a chunk is never a bare ``|`` or a row of dashes. None: not a table."""
    lines = block.split("\n")
    first = next((i for i, line in enumerate(lines) if line.lstrip().startswith("|")), None)
    if first is None or not all(line.lstrip().startswith("|") for line in lines[first:]) or len(lines) - first < 3:
        return None
    lead = "\n".join(lines[: first + 1])  # headings above, and the header row
    rows = [line for line in lines[first + 1 :] if _TABLE_SEPARATOR.match(line) is None]
    chunks: list[str] = []
    current: list[str] = []
    for row in rows:
        if current and count("\n".join([lead, *current, row])) > max_tokens:
            chunks.append("\n".join([lead, *current]))
            current = []
        if count(f"{lead}\n{row}") > max_tokens:  # one row too long even alone: cut it like prose
            chunks.extend(_pack(row, _sentence_spans(row), max_tokens, count, words=False))
            continue
        current.append(row)
    if current:
        chunks.append("\n".join([lead, *current]))
    return chunks


def chunk_text(body: str, *, max_tokens: int, count_tokens: Counter) -> list[str]:
    """Chunks of at most ``max_tokens`` (except a single over-long word), in order, none empty.

    Blocks are counted once each and their counts added: word-piece tokenizers
    split on whitespace first, so the blank line between blocks adds no tokens.
    (Tokenizing is most of the cost of chunking a large vault.)
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    blocks = _blocks(body)
    whole = "\n\n".join(blocks)
    if whole.strip() and count_tokens(whole) <= max_tokens:  # most notes: one chunk, one count
        return [whole]
    chunks: list[str] = []
    current, current_tokens = "", 0
    for block in blocks:
        tokens = count_tokens(block)
        if current and current_tokens + tokens <= max_tokens:
            current, current_tokens = f"{current}\n\n{block}", current_tokens + tokens
            continue
        if current:
            chunks.append(current)
            current, current_tokens = "", 0
        if tokens <= max_tokens:
            current, current_tokens = block, tokens
        elif (table := _table_chunks(block, max_tokens, count_tokens)) is not None:
            chunks.extend(table)
        else:
            chunks.extend(_pack(block, _sentence_spans(block), max_tokens, count_tokens, words=False))
    if current:
        chunks.append(current)
    return [c for c in chunks if c.strip()]
