"""Recording a human workspace approval in a note's frontmatter (architecture §3.1, §3.2).

The vault is the record, so the approval must outlive any Dagster instance; and
the note's body must stay byte-identical. We therefore edit the frontmatter as
bytes, line by line, instead of re-serialising it (which would reorder keys and
re-quote values).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path, PurePosixPath

import yaml

from lucasrag.vocabulary import check_workspace

_BOM = b"\xef\xbb\xbf"
_CONTINUATION = re.compile(rb"^[ \t]")  # an indented line continues the previous key's value


def _resolve_note(vault: Path, rel_path: str) -> Path:
    rel = PurePosixPath(rel_path)
    if rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"{rel_path!r} is not a path inside the vault (give it relative to {vault})")
    if any(part.startswith(".") for part in rel.parts):
        raise ValueError(f"{rel_path!r} is inside a hidden folder; notes there are not part of the vault")
    if rel.suffix != ".md":
        raise ValueError(f"{rel_path!r} is not a Markdown note (.md)")
    root = vault.resolve()
    path = (root / rel).resolve()  # follows symlinks: the target must also be in the vault
    if not path.is_relative_to(root):
        raise ValueError(f"{rel_path!r} resolves to {path}, outside the vault {root}")
    if not path.exists():
        raise FileNotFoundError(f"no note {rel_path!r} in the vault {root}")
    if not path.is_file():
        raise ValueError(f"{rel_path!r} is not a file")
    return path


def _newline(lines: list[bytes]) -> bytes:
    return b"\r\n" if lines and lines[0].endswith(b"\r\n") else b"\n"


def with_workspace(raw: bytes, workspace: str) -> bytes:
    """``raw`` with its frontmatter's ``workspace:`` set; everything else byte-identical."""
    return with_frontmatter_key(raw, "workspace", workspace.encode())


def with_frontmatter_key(raw: bytes, key: str, value: bytes) -> bytes:
    """``raw`` with its frontmatter's ``key:`` set to ``value`` (YAML, one line); every other byte kept:
    the body, the other keys, the BOM and the line endings. A note without frontmatter gets one."""
    key_line = re.compile(rb"^" + re.escape(key.encode()) + rb"[ \t]*:")
    bom = _BOM if raw.startswith(_BOM) else b""
    text = raw[len(bom) :]
    lines = text.splitlines(keepends=True)
    eol = _newline(lines)
    entry = key.encode() + b": " + value + eol
    if not lines or lines[0].rstrip() != b"---":
        return bom + b"---" + eol + entry + b"---" + eol + text
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (b"---", b"...")), None)
    if close is None:
        raise ValueError("the note's frontmatter opens with '---' but never closes; fix it first")
    header: list[bytes] = []
    replaced = skipping = False
    for line in lines[1:close]:
        if skipping and _CONTINUATION.match(line):
            continue  # the old multi-line value of the key
        skipping = False
        if key_line.match(line):
            # Duplicate keys: YAML keeps the last one, so every occurrence gets the new value.
            header.append(entry)
            replaced = skipping = True
        else:
            header.append(line)
    if not replaced:  # header lines all end in a newline: the closing '---' follows them
        header.append(entry)
    body_offset = sum(len(line) for line in lines[: close + 1])
    return bom + lines[0] + b"".join(header) + lines[close] + text[body_offset:]


def _header(raw: bytes) -> dict | None:
    """The frontmatter as YAML reads it (None when there is none); ValueError if unusable."""
    lines = raw.removeprefix(_BOM).splitlines(keepends=True)
    if not lines or lines[0].rstrip() != b"---":
        return None
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (b"---", b"...")), len(lines))
    try:
        data = yaml.safe_load(b"".join(lines[1:close]).decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"the note's frontmatter is not valid YAML ({first}); fix it before approving") from None
    if data is not None and not isinstance(data, dict):
        raise ValueError("the note's frontmatter is not a 'key: value' mapping; fix it before approving")
    return data or {}


def _write_atomically(path: Path, data: bytes) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    # A hidden temp name: a vault scan running meanwhile never sees it as a note.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class InvalidNoteRefused(ValueError):
    """The file is not a readable note; LucasRAG writes nothing into it."""


def record_approval(vault: Path, rel_path: str, workspace: str, *, max_bytes: int = 1024 * 1024) -> None:
    """Set ``workspace: <workspace>`` in the note's frontmatter; the body bytes stay identical.
    A file the vault scan finds invalid (binary, not UTF-8, empty, too big ...) is never written to."""
    from lucasrag_assets.rules.vault_scan import parse_note

    check_workspace(workspace)
    path = _resolve_note(vault, rel_path)
    raw = path.read_bytes()
    new = with_workspace(raw, workspace)
    if new == raw:
        return  # already approved: leave the file (and its mtime) alone
    _header(raw)  # refuse to build on a header that is already broken
    note = parse_note(vault.resolve(), path, max_bytes=max_bytes)
    if note.status == "invalid":
        raise InvalidNoteRefused(
            f"{rel_path} is invalid ({note.reason}): LucasRAG never writes to a file it cannot read; fix it first"
        )
    if (_header(new) or {}).get("workspace") != workspace:  # the edit must read back as the approval
        raise ValueError("could not record the approval in the frontmatter; edit the note by hand")
    _write_atomically(path, new)
