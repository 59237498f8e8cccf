"""The vault watcher: debounced, one ingest per settled change, failures reported and survived."""

from __future__ import annotations

import time

from lucasrag.vault_watch import VaultWatcher


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
