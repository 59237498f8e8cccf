"""The vault watcher: debounced, one ingest per settled change, failures reported and survived."""

from __future__ import annotations

import os
import time

import pytest

from lucasrag.vault_watch import IngestProcess, VaultWatcher


def _until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_burst_of_saves_is_one_ingest_after_the_vault_settles(fresh_vault):
    calls = []
    watcher = VaultWatcher(fresh_vault, calls.append, debounce_s=1.0, poll_s=0.05, catch_up=False).start()
    try:
        _until(lambda: watcher.state()["state"] == "watching")
        note = fresh_vault.vault / "personal" / "right now.md"
        for i in range(5):  # an editor saving as the person types
            note.write_text(note.read_text() + f"\nline {i}")
            time.sleep(0.05)
        _until(lambda: watcher.state()["ingests"] == 1)
        time.sleep(0.5)
        assert len(calls) == 1 and calls[0] is fresh_vault
        (fresh_vault.vault / "new note.md").write_text("a new note")
        _until(lambda: watcher.state()["ingests"] == 2)
        assert watcher.state()["last_error"] is None
    finally:
        watcher.stop(timeout=5)
    assert watcher.state()["state"] == "stopped"


def test_hidden_files_do_not_trigger_an_ingest(fresh_vault):
    calls = []
    watcher = VaultWatcher(fresh_vault, calls.append, debounce_s=0.1, poll_s=0.05, catch_up=False).start()
    try:
        _until(lambda: watcher.state()["state"] == "watching")
        (fresh_vault.vault / ".obsidian" / "workspace.md").write_text("layout changed")
        (fresh_vault.vault / "attachments" / "photo.png").write_bytes(b"\x89PNG other")
        time.sleep(0.6)
        assert calls == []
    finally:
        watcher.stop(timeout=5)


def test_a_failed_ingest_is_reported_and_watching_goes_on(fresh_vault):
    def failing(settings):
        raise RuntimeError("disk full")

    logged = []
    watcher = VaultWatcher(fresh_vault, failing, debounce_s=0.1, poll_s=0.05, log=logged.append).start()
    try:
        _until(lambda: watcher.state()["ingests"] == 1)  # the catch-up run
        assert watcher.state()["last_error"] == "RuntimeError: disk full"
        _until(lambda: watcher.state()["state"] == "watching")
        (fresh_vault.vault / "another.md").write_text("still watching")
        _until(lambda: watcher.state()["ingests"] == 2)
    finally:
        watcher.stop(timeout=5)
    assert any("disk full" in line for line in logged)


def _record_pid(settings) -> None:
    """Runs in the ingest process: leaves its pid where the test can read it."""
    (settings.data / "ingest.pid").write_text(str(os.getpid()))


def _fail(settings) -> None:
    raise ValueError(f"no ingest for {settings.vault.name}")


def _die(settings) -> None:
    os._exit(9)  # as a kill -9 or the OOM killer would end it


def test_the_ingest_process_is_another_process_kept_between_ingests(fresh_vault):
    fresh_vault.data.mkdir(parents=True, exist_ok=True)
    with IngestProcess(_record_pid) as reingest:
        reingest(fresh_vault)
        first = int((fresh_vault.data / "ingest.pid").read_text())
        reingest(fresh_vault)
        assert first != os.getpid() and int((fresh_vault.data / "ingest.pid").read_text()) == first


def test_the_ingest_process_reraises_and_survives_a_dead_child(fresh_vault):
    with IngestProcess(_fail) as failing:
        with pytest.raises(ValueError, match="no ingest for"):
            failing(fresh_vault)
    fresh_vault.data.mkdir(parents=True, exist_ok=True)
    with IngestProcess(_die) as dying:
        with pytest.raises(RuntimeError, match="ended abruptly"):
            dying(fresh_vault)
        dying._reingest = _record_pid  # the next change gets a new process
        dying(fresh_vault)
        assert int((fresh_vault.data / "ingest.pid").read_text()) != os.getpid()
