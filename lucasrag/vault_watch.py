"""Re-ingest when the vault changes, without a Dagster daemon (``lucasrag watch``, ``lucasrag mcp --watch``).

The watcher compares the same fingerprint as the Dagster vault sensor
(:func:`lucasrag.vault_files.vault_fingerprint`: path, size and mtime of every note
and of the deference list) when the file system reports a change that counts
(``vault_events``; a full check every ``safety_poll_s`` all the same), or every
``poll_s`` where the file system sends no events. A change starts a quiet period: once no
change event came for ``debounce_s`` (polling: once the fingerprint stayed the same that long) —
an editor saving every keystroke, a sync client copying a folder — one ingest runs. Changes made during an ingest are
caught by the next comparison. The ingest itself is injected (the write side's
``run_ingest``): this module never imports it, so the read side can host a watcher.

An ingest that fails is reported (``state()["last_error"]`` and the log) and the
watcher carries on: the next change tries again.

A process that also answers queries (``lucasrag mcp --watch``) runs the ingest in a
child process of its own (:class:`IngestProcess`): LightRAG keeps per-process storage
locks, asyncio locks bound to the event loop that first waits on them, and a search
on the query loop during an ingest on the watcher's loop met them from two loops —
"bound to a different event loop" errors, a storage left unsaved, and the search
waiting forever (found by ``benchmarks/watch_freshness.py``).
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from lucasrag.settings import Settings
from lucasrag.vault_events import VaultEvents
from lucasrag.vault_files import vault_fingerprint

#: Seconds the fingerprint must stay unchanged before an ingest starts.
DEFAULT_DEBOUNCE_S = 2.0
#: Seconds between fingerprint checks when polling (a stat per note: ≈50 ms at 10,000 notes).
DEFAULT_POLL_S = 1.0
#: With the file system's change events (``vault_events``), a full check this often all the same: a safety net
#: for events a file system did not send.
DEFAULT_SAFETY_POLL_S = 30.0

#: The ingest a watcher runs: ``reingest(settings, changed)``, where ``changed`` holds the vault-relative paths of
#: the notes the file system reported changed since the previous ingest began (``VaultEvents.take``), or is None
#: when the ingest must list the vault itself (the first ingest, polling, a changed folder, a safety check).
Reingest = Callable[[Settings, frozenset[str] | None], object]


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _stdout_to_stderr() -> None:
    """In the ingest process: fd 1 may be an MCP stdio wire inherited from the server; a stray
    print there would corrupt the protocol, so the child's stdout goes to stderr."""
    os.dup2(2, 1)


def listed(result: object) -> str | None:
    """The vault's fingerprint as the ingest listed it (``IngestSummary.vault_fingerprint``, or the string
    :class:`IngestProcess` brings back), None when the ingest does not say."""
    return result if isinstance(result, str) else getattr(result, "vault_fingerprint", None)


def _run_reingest(reingest: Reingest, settings: Settings, changed: frozenset[str] | None) -> str | None:
    return listed(reingest(settings, changed))  # its summary stays in the child: what it listed, or the exception


class IngestProcess:
    """``reingest`` run in one child process, kept between ingests (its imports and Dagster stay
    warm), one ingest at a time. Use as a context manager (the child ends with it); an ingest
    that raises re-raises here, and a child that dies is replaced on the next call."""

    def __init__(self, reingest: Reingest) -> None:
        self._reingest = reingest
        self._pool: ProcessPoolExecutor | None = None

    def __call__(self, settings: Settings, changed: frozenset[str] | None = None) -> str | None:
        """The ingest, in the child; the vault's fingerprint as it listed it."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_stdout_to_stderr
            )
        try:
            return self._pool.submit(_run_reingest, self._reingest, settings, changed).result()
        except BrokenProcessPool:
            self._pool = None
            raise RuntimeError(
                "the ingest process ended abruptly (killed, or out of memory); the next change retries"
            ) from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> IngestProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class WatchState:
    state: str = "starting"  # starting | watching | settling | ingesting | stopped
    ingests: int = 0
    last_started: str | None = None
    last_finished: str | None = None
    last_seconds: float | None = None
    last_error: str | None = None


class VaultWatcher:
    """A daemon thread that runs ``reingest(settings)`` after the vault settles (see module doc)."""

    def __init__(
        self,
        settings: Settings,
        reingest: Reingest,
        *,
        debounce_s: float = DEFAULT_DEBOUNCE_S,
        poll_s: float = DEFAULT_POLL_S,
        catch_up: bool = True,
        log: Callable[[str], None] = lambda message: None,
        events: bool = True,
        safety_poll_s: float = DEFAULT_SAFETY_POLL_S,
    ) -> None:
        self.settings = settings
        self.debounce_s = debounce_s
        self.poll_s = poll_s
        self.safety_poll_s = safety_poll_s
        self._events = VaultEvents(settings.vault) if events else None
        self._reingest = reingest
        self._catch_up = catch_up
        self._log = log
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._state = WatchState()
        self._thread: threading.Thread | None = None
        self._ingest_lists = False  # the last ingest said what it listed (see _watch)

    def state(self) -> dict:
        """What the watcher is doing and how its last ingest went (the MCP ``status`` tool shows it)."""
        with self._lock:
            checks = (
                {"change_events": True, "safety_poll_s": self.safety_poll_s}
                if self._events is not None
                else {"change_events": False, "poll_s": self.poll_s}
            )
            return {**self._state.__dict__, "debounce_s": self.debounce_s, **checks}

    def _set(self, **changes) -> None:
        with self._lock:
            for key, value in changes.items():
                setattr(self._state, key, value)

    def start(self) -> VaultWatcher:
        self._thread = threading.Thread(target=self.run, name="lucasrag-vault-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        self._stop.set()
        if self._events is not None:
            self._events.changed.set()  # wakes the wait
        if self._thread is not None:
            self._thread.join(timeout)

    def _ingest(self, by_events: bool = False) -> str | None:
        """One ingest; the vault's fingerprint as it listed it (None: failed, or the ingest does not say).
        ``by_events``: the notes the file system reported changed are all that changed since the last ingest
        began (the ingest need not list the vault); otherwise it lists the vault itself."""
        # taken before the ingest starts: a change reported after this is the next ingest's
        changed = self._events.take() if self._events is not None else None
        self._set(state="ingesting", last_started=_now_iso())
        started, seen = time.perf_counter(), None
        try:
            seen = listed(self._reingest(self.settings, changed if by_events else None))
        except Exception as exc:  # a bad run must not end the watch: the next change retries
            # and lists the vault: a run that failed may not have listed the changes taken for it
            self._ingest_lists = False
            self._set(last_error=f"{type(exc).__name__}: {exc}")
            self._log(f"ingest failed: {type(exc).__name__}: {exc}")
        else:
            self._set(last_error=None)
            self._ingest_lists = seen is not None
        seconds = round(time.perf_counter() - started, 2)
        self._set(ingests=self._state.ingests + 1, last_finished=_now_iso(), last_seconds=seconds)
        self._log(f"ingest finished in {seconds:.1f}s")
        return seen

    def _start_events(self) -> None:
        if self._events is not None and not self._events.start():
            self._log("the file system cannot report changes here: checking the vault every second instead")
            self._events = None

    def _wait(self) -> str | None:
        """Until the next look at the vault: ``"event"`` (the file system reported a change that counts),
        ``"check"`` (the poll period, or the safety poll, went by), None (stopped)."""
        if self._events is None:
            return None if self._stop.wait(self.poll_s) else "check"
        woke = self._events.changed.wait(self.safety_poll_s)
        self._events.changed.clear()
        if self._stop.is_set():
            return None
        return "event" if woke else "check"

    def _quiet(self) -> bool:
        """With change events: until none came for a whole debounce period (an editor saving as the person
        types, a sync client copying a folder). False: stopped."""
        while self._events.changed.wait(self.debounce_s):
            self._events.changed.clear()
            if self._stop.is_set():
                return False
        return True

    def run(self) -> None:
        """Watch until :meth:`stop` (``lucasrag watch`` calls this on the main thread)."""
        vault = self.settings.vault
        self._start_events()  # before the first fingerprint: a change after it is an event
        seen = vault_fingerprint(vault)
        if self._catch_up:  # notes written while nothing was watching (unchanged ones are skipped)
            self._log(f"catching up: ingesting {vault}")
            self._ingest()  # seen stays the listing before it: a change made meanwhile is caught next
        self._set(state="watching")
        how = "change events" if self._events is not None else f"a check every {self.poll_s:g}s"
        self._log(f"watching {vault} (debounce {self.debounce_s:g}s, {how})")
        try:
            self._watch(vault, seen)
        finally:
            if self._events is not None:
                self._events.stop()
        self._set(state="stopped")

    def _watch(self, vault, seen: str) -> None:
        while (woke := self._wait()) is not None:
            if woke == "event":
                self._set(state="settling")
                if not self._quiet():
                    break
            # A settled event for an ingest that says what it listed goes straight to it with the notes the events
            # named, and the ingest brings its last listing up to date from them (at 100,000 notes each listing is
            # ≈ 0.6 s before the change can show): a change made after the take sends an event of its own. (A folder
            # made without notes is then an ingest that finds nothing new.)
            listed_here = None
            if woke == "check" or not self._ingest_lists:
                listed_here = vault_fingerprint(vault)  # one listing per settled change with events
                if listed_here == seen:
                    self._set(state="watching")
                    continue
                if woke == "check":  # polling, or a change the events missed: settle on the fingerprint
                    self._set(state="settling")
                    while not self._stop.wait(self.debounce_s):  # no change for a whole debounce period
                        latest = vault_fingerprint(vault)
                        if latest == listed_here:
                            break
                        listed_here = latest
                    if self._stop.is_set():
                        break
            self._log("vault changed: ingesting")
            told = self._ingest(by_events=listed_here is None)
            # what later checks compare with: the listing taken before the ingest (edits made during it trigger
            # the next round), else what the ingest listed, else (it failed) the vault now: the next change retries
            seen = listed_here or told or vault_fingerprint(vault)
            self._set(state="watching")
