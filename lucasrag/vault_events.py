"""The file system's change events for a vault (watchdog: inotify, FSEvents, ReadDirectoryChangesW).

The watcher (``vault_watch``) used to list and stat every note each second to see whether anything changed: at
100,000 notes that is half a second of a core every second while nothing happens. With events it waits until
the file system reports a change to something the fingerprint counts — a note, a folder that may hold notes,
the vault's own configuration — and only then compares fingerprints; a slow full check stays as a safety net
for events a file system does not send (a network share, an exhausted inotify watch limit).

watchdog comes with Dagster (its code-reloading uses it): no dependency of its own.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from lucasrag.vault_files import OBSIDIAN_SETTINGS


def counts_for_the_fingerprint(root: Path, path: str, is_directory: bool) -> bool:
    """Whether a change at ``path`` may change :func:`lucasrag.vault_files.vault_fingerprint`: a visible ``.md``
    note, a visible folder (moving or deleting one moves its notes), a file under ``.lucasrag/`` or an Obsidian
    setting that names the templates folder. Hidden trees (``.git``, ``.obsidian``, ``.trash``) and attachments
    do not."""
    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        return False
    if rel == ".lucasrag" or (rel.startswith(".lucasrag/") and rel.count("/") == 1) or rel in OBSIDIAN_SETTINGS:
        return True  # the vault's configuration: the files of .lucasrag/ itself, not folders below it
    parts = rel.split("/")
    if any(part.startswith(".") for part in parts):
        return False
    return is_directory or parts[-1].endswith(".md")


class VaultEvents:
    """Sets :attr:`changed` whenever the file system reports a change that counts (:func:`counts_for_the_fingerprint`),
    and keeps which notes it reported (:meth:`take`).

    ``start()`` returns False when the file system cannot watch the vault (the watcher then polls)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self.changed = threading.Event()
        self._observer = None
        self._lock = threading.Lock()
        self._notes: set[str] = set()
        self._not_by_note = False  # a folder or the configuration changed since the last take

    def take(self) -> frozenset[str] | None:
        """The vault-relative paths of the notes reported changed (made, written, deleted, renamed from or to)
        since the last take, and forget them; None when a change since then is not one of notes alone — a
        folder made, moved or deleted (its notes go with it, unreported), the vault's configuration — so the
        vault must be listed again (``vault_files.relisted`` follows notes, not folders)."""
        with self._lock:
            notes, self._notes = frozenset(self._notes), set()
            not_by_note, self._not_by_note = self._not_by_note, False
        return None if not_by_note else notes

    def _note(self, event) -> bool:
        """Keep what ``event`` changed; whether it counts for the fingerprint."""
        counted = False
        for raw in (event.src_path, getattr(event, "dest_path", "") or ""):
            path = os.fsdecode(raw) if raw else ""
            if not path or not counts_for_the_fingerprint(self.root, path, event.is_directory):
                continue
            counted = True
            rel = os.path.relpath(path, self.root)
            with self._lock:
                if event.is_directory:
                    # a folder "modified" is an entry made or removed in it, each reported on its own
                    self._not_by_note |= event.event_type != "modified"
                elif rel.endswith(".md") and not rel.startswith("."):
                    self._notes.add(rel.replace(os.sep, "/"))
                else:  # the vault's configuration
                    self._not_by_note = True
        return counted

    def start(self) -> bool:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        changed, note = self.changed, self._note

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event) -> None:
                if event.event_type in ("opened", "closed_no_write"):  # a read: nothing changed
                    return
                if note(event):
                    changed.set()

        observer = Observer()
        try:
            observer.schedule(_Handler(), str(self.root), recursive=True)
            observer.start()
        except OSError:  # e.g. the inotify watch limit: poll instead
            return False
        self._observer = observer
        return True

    def stop(self) -> None:
        self.changed.set()  # wakes a waiter
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
