"""The data folder (``LUCASRAG_DATA``) holds the full text of every note: only its owner may read it.

Every entry point (ingest, Dagster runs, query, ``services start``) calls :func:`open_data_folder`
before touching the folder. The root is created 0700, so whatever a library writes inside it with a
permissive umask is unreachable for other accounts; :func:`tighten` then brings every directory to
0700 and every regular file to 0600 (owner bits kept, group/other bits dropped), once when the
folder is opened (with a one-line notice when an existing folder was readable by others) and again
when an ingest ends (silently: those are its own new files). And the processes that are LucasRAG's
own — the ``lucasrag`` command (every subcommand: ingest, query, mcp, watch …) and the Dagster processes
``scripts/dagster-ui`` starts (webserver, daemon, code server, run workers) — run under a 077 umask
(:func:`private_umask`), so what they write is private from its first write; what such a process writes
in the vault keeps the file's mode (an approval) or is the person's own (a decisions file, 0600).

One exception: as root, PostgreSQL runs as the system user ``lucasrag-pg`` and needs to traverse
the directories above its data directory; inside the data folder those get that user's group and
group search only (0710), never other-access (see also ``lucasrag_harness.local_servers._process.make_traversable``).
"""

from __future__ import annotations

import contextlib
import fcntl
import grp
import logging
import os
import pwd
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

log = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600
#: The umask of LucasRAG's own processes: files 0600 and folders 0700 from their first write.
PRIVATE_UMASK = 0o077
SERVICE_GROUP = "lucasrag-pg"  # the PostgreSQL system user's group (lucasrag_harness.local_servers.postgres.PG_USER)

_opened: set[Path] = set()


def _service_ids() -> tuple[int, int] | None:
    """(uid, gid) of the PostgreSQL system user, when it exists on this machine."""
    try:
        return pwd.getpwnam(SERVICE_GROUP).pw_uid, grp.getgrnam(SERVICE_GROUP).gr_gid
    except KeyError:
        return None


def private_umask() -> int:
    """Make this process create files 0600 and folders 0700 (the ``lucasrag`` command calls it first thing);
    returns the umask it had."""
    return os.umask(PRIVATE_UMASK)


def tighten(root: Path) -> list[Path]:
    """Drop group/other permissions below ``root`` (directories and regular files; symlinks, sockets
    and FIFOs are left alone: not followed, and unreachable inside a 0700 directory anyway).

    The directories above anything the PostgreSQL system user owns (its data dir, when we are
    root) keep search for that user's group only: 0710, group ``lucasrag-pg``. Returns what was
    changed. Entries that vanish meanwhile (a concurrent writer) are skipped."""
    if not root.is_dir():
        return []
    entries: list[tuple[Path, os.stat_result]] = []
    for folder, dirs, files in os.walk(root, onerror=lambda exc: None):
        base = Path(folder)
        for path in ([base] if base == root else []) + [base / name for name in (*dirs, *files)]:
            try:
                entries.append((path, os.lstat(path)))
            except FileNotFoundError:
                continue
    service = _service_ids()
    traversed: set[Path] = set()
    if service is not None:
        for path, st in entries:
            if st.st_uid == service[0] and path != root:
                traversed.update(p for p in path.parents if p == root or root in p.parents)
    changed = []
    for path, st in entries:
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            continue
        mode = stat.S_IMODE(st.st_mode)
        wanted = mode & 0o700
        try:
            if path in traversed and st.st_uid == os.geteuid():
                wanted |= stat.S_IXGRP
                if st.st_gid != service[1]:
                    os.chown(path, -1, service[1], follow_symlinks=False)
                    mode = -1  # counted once below
            if mode != wanted:
                os.chmod(path, wanted, follow_symlinks=False)
                changed.append(path)
        except FileNotFoundError:
            continue
    return changed


def open_data_folder(root: Path) -> Path:
    """Create ``root`` 0700 (parents as usual) or tighten an existing one, once per process and folder.

    A folder that was readable by others is reported in one line (logged as a warning)."""
    root = Path(root).expanduser().resolve()
    if root in _opened and root.is_dir():
        return root
    existed = root.is_dir()
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        root.mkdir(mode=DIR_MODE)  # the mode argument is masked by the umask: tighten() settles it
    except FileExistsError:
        if not root.is_dir():
            raise NotADirectoryError(f"LUCASRAG_DATA={root} exists and is not a directory") from None
    changed = tighten(root)
    if existed and changed:
        log.warning(
            "LUCASRAG_DATA %s was readable by other accounts: tightened %d entries to 0700 (folders) / 0600 (files)",
            root,
            len(changed),
        )
    _opened.add(root)
    return root


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, readable by its owner only (0600 from creation on)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # O_CREAT's mode is masked by the umask; an old tmp keeps its mode
        with os.fdopen(fd, "w") as fh:
            fd = -1
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    finally:
        if fd != -1:
            os.close(fd)
    os.replace(tmp, path)


class DataFolderBusy(RuntimeError):
    """Another ingest holds the data folder and this one was asked not to wait."""


#: Run tag naming the ingest that holds the data folder for a run it launched (``run_ingest``): the
#: run's steps, in this process or in step processes, go on under that lock instead of waiting for it.
LOCK_HOLDER_TAG = "lucasrag/ingest_lock_holder"


@contextlib.contextmanager
def exclusive_ingest(
    root: Path, *, wait: bool = True, notify: Callable[[str], None] | None = None, holder: str | None = None
) -> Iterator[str]:
    """One ingest at a time per data folder: an advisory lock on ``<root>/.ingest.lock``.

    A second ingest on the same folder waits (after a one-line notice naming the holder, logged and
    given to ``notify``) or, with ``wait=False``, raises :class:`DataFolderBusy`. The kernel drops the
    lock when its holder exits, ``kill -9`` included, so a crashed ingest never leaves the folder locked.
    Yields the holder line written into the lock file (``pid N, started …``).

    ``holder``: the line of the ingest that launched this run (run tag :data:`LOCK_HOLDER_TAG`). When the
    folder is held under exactly that line, the run is part of that ingest and goes on without a lock of
    its own (taking it again would wait for itself)."""
    root = open_data_folder(root)
    path = root / ".ingest.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            current = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            if holder is not None and current == holder:
                yield holder
                return
            message = f"another ingest ({current or 'unknown process'}) is running on LUCASRAG_DATA={root}"
            if not wait:
                raise DataFolderBusy(f"{message}: try again when it has finished") from None
            log.warning("%s: waiting for it to finish", message)
            if notify is not None:
                notify(f"{message}: waiting for it to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        line = f"pid {os.getpid()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}"
        os.ftruncate(fd, 0)
        os.pwrite(fd, line.encode(), 0)
        yield line
    finally:
        os.close(fd)  # releases the lock
