"""Reading a vault file as hostile input: only regular files inside the vault, never blocking.

A vault is a folder anyone's sync tool or script may have written into. What reaches the parser
is the bytes of a regular file that lives inside the vault, read through a descriptor opened
without following a final symlink and without blocking (a FIFO swapped in after the check cannot
hang the ingest), checked to be the file that was examined and unchanged while read. Everything
else raises :class:`UnreadableEntry` with the reason the catalogue shows.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


class UnreadableEntry(Exception):
    """The entry is not read; ``str(exc)`` is the reason (skipped, never fatal)."""


def vault_relpath(root: Path, path: Path | str) -> tuple[str, bool]:
    """``(vault-relative POSIX path, is it valid UTF-8)``; a name that is not (bytes the file
    system allows) comes back with those bytes escaped (``caf\\xe9.md``), storable anywhere.
    ``path`` as a string: a name ``vault_file_names(root)`` gave (``str(root)``, a separator, the rest)."""
    if isinstance(path, str):
        rel = path[len(str(root)) + 1 :]  # what relative_to gives, without a Path per file
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        if rel.isascii():  # most names: valid UTF-8 without encoding them (a scan asks for every file)
            return rel, True
    else:
        rel = path.relative_to(root).as_posix()
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(rel).decode("utf-8", "backslashreplace"), False
    return rel, True


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _vault_target(root: Path, path: Path) -> Path:
    """Where the symlink ``path`` leads, when that is inside the vault (else UnreadableEntry)."""
    try:
        target = Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnreadableEntry("symlink loop: not followed") from None
        if exc.errno == errno.ENOENT:
            raise UnreadableEntry(f"broken symlink (→ {os.readlink(path)}): not followed") from None
        raise UnreadableEntry(f"symlink cannot be resolved: {exc.strerror or exc}") from None
    if not target.is_relative_to(Path(os.path.realpath(root))):
        raise UnreadableEntry(f"symlink points outside the vault (→ {target}): not followed")
    return target


def regular_file(root: Path, path: Path | str) -> tuple[Path | str, os.stat_result]:
    """``(file to read, its stat)`` for a vault entry, without opening anything.

    A symlink counts only when it resolves to a regular file inside ``root``."""
    try:
        st = os.lstat(path)
        target = path
        if stat.S_ISLNK(st.st_mode):
            target = _vault_target(root, path)
            st = os.stat(target)
    except FileNotFoundError:
        raise UnreadableEntry("file vanished before it could be read") from None
    except PermissionError as exc:
        raise UnreadableEntry(f"cannot read file: {exc.strerror} (check permissions)") from None
    if not stat.S_ISREG(st.st_mode):
        raise UnreadableEntry(f"{_kind(st.st_mode)}, not a regular file: skipped")
    return target, st


def read_regular(root: Path, path: Path, *, limit: int, expected: os.stat_result | None = None) -> bytes:
    """At most ``limit + 1`` bytes of the vault file ``path`` (so an oversized or growing file never
    fills memory; the caller reports the size). ``expected``: the stat seen by the scan; a file
    replaced or modified since, or while it is read, is reported rather than half-read."""
    target, st = regular_file(root, path)
    if expected is not None and _changed(expected, st):
        raise UnreadableEntry("file changed between the scan and the read: it is read again on the next ingest")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        raise UnreadableEntry("file vanished before it could be read") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # replaced by a symlink after the check
            raise UnreadableEntry("file was replaced by a symlink while being read: not followed") from None
        raise UnreadableEntry(f"cannot read file: {exc.strerror or exc} (check permissions)") from None
    with os.fdopen(fd, "rb") as fh:
        before = os.fstat(fh.fileno())
        if not stat.S_ISREG(before.st_mode) or (before.st_dev, before.st_ino) != (st.st_dev, st.st_ino):
            raise UnreadableEntry("file was replaced while being read: it is read again on the next ingest")
        raw = fh.read(limit + 1)
        after = os.fstat(fh.fileno())
    if _changed(before, after):
        raise UnreadableEntry("file changed while it was read: it is read again on the next ingest")
    return raw


def _changed(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) != (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns)
