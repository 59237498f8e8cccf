"""The vault watcher: debounced, one ingest per settled change, failures reported and survived."""

from __future__ import annotations

import os
import time

import pytest

from lucasrag.vault_events import counts_for_the_fingerprint
from lucasrag.vault_watch import IngestProcess, VaultWatcher

#: Both ways of noticing a change: the file system's events, and a fingerprint check every ``poll_s``.
MODES = pytest.mark.parametrize("events", [True, False], ids=["change-events", "polling"])


class Calls(list):
    """A reingest that records the settings of each call (and the notes it was told changed, in ``changed``)."""

    def __init__(self) -> None:
        super().__init__()
        self.changed: list[frozenset[str] | None] = []

    def __call__(self, settings, changed) -> None:
        self.append(settings)
        self.changed.append(changed)


def _until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@MODES
def test_a_burst_of_saves_is_one_ingest_after_the_vault_settles(fresh_vault, events):
    calls = Calls()
    watcher = VaultWatcher(fresh_vault, calls, debounce_s=1.0, poll_s=0.05, catch_up=False, events=events).start()
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


@MODES
def test_hidden_files_do_not_trigger_an_ingest(fresh_vault, events):
    calls = Calls()
    watcher = VaultWatcher(fresh_vault, calls, debounce_s=0.1, poll_s=0.05, catch_up=False, events=events).start()
    try:
        _until(lambda: watcher.state()["state"] == "watching")
        (fresh_vault.vault / ".obsidian" / "workspace.md").write_text("layout changed")
        (fresh_vault.vault / "attachments" / "photo.png").write_bytes(b"\x89PNG other")
        time.sleep(0.6)
        assert calls == []
    finally:
        watcher.stop(timeout=5)


@MODES
def test_a_failed_ingest_is_reported_and_watching_goes_on(fresh_vault, events):
    def failing(settings, changed):
        raise RuntimeError("disk full")

    logged = []
    watcher = VaultWatcher(fresh_vault, failing, debounce_s=0.1, poll_s=0.05, log=logged.append, events=events).start()
    try:
        _until(lambda: watcher.state()["ingests"] == 1)  # the catch-up run
        assert watcher.state()["last_error"] == "RuntimeError: disk full"
        _until(lambda: watcher.state()["state"] == "watching")
        (fresh_vault.vault / "another.md").write_text("still watching")
        _until(lambda: watcher.state()["ingests"] == 2)
    finally:
        watcher.stop(timeout=5)
    assert any("disk full" in line for line in logged)


def test_a_change_event_wakes_the_watcher_long_before_any_check(fresh_vault):
    """With change events the watcher does not list the vault every second: a minute between checks, and a save
    is still ingested within seconds."""
    calls = Calls()
    watcher = VaultWatcher(
        fresh_vault, calls, debounce_s=0.2, poll_s=60, safety_poll_s=60, catch_up=False, events=True
    ).start()
    try:
        _until(lambda: watcher.state()["state"] == "watching")
        assert watcher.state()["change_events"] is True
        (fresh_vault.vault / "personal" / "woken.md").write_text("a note saved while the watcher waits")
        _until(lambda: watcher.state()["ingests"] == 1, timeout=8)
    finally:
        watcher.stop(timeout=5)
    assert watcher.state()["state"] == "stopped"


def test_an_ingest_that_says_what_it_listed_spares_the_watcher_its_own_listing(fresh_vault, monkeypatch):
    """With change events, once an ingest says what it listed (``IngestSummary.vault_fingerprint``), a settled
    change is ingested without the watcher listing the vault first (0.6 s at 100,000 notes). An ingest that does
    not say keeps the listing first (a settled change that changed nothing is not ingested)."""
    from lucasrag import vault_watch

    real, order = vault_watch.vault_fingerprint, []
    monkeypatch.setattr(vault_watch, "vault_fingerprint", lambda root: order.append("watcher lists") or real(root))

    def says(settings, changed):
        order.append("ingest")
        return real(settings.vault)  # an ingest's own listing

    def silent(settings, changed):
        order.append("ingest")

    for reingest, want in ((says, ["ingest"]), (silent, ["watcher lists", "ingest"])):
        watcher = VaultWatcher(fresh_vault, reingest, debounce_s=0.2, safety_poll_s=60, events=True).start()
        try:
            _until(lambda w=watcher: w.state()["ingests"] == 1 and w.state()["state"] == "watching")  # catch-up
            order.clear()
            note = fresh_vault.vault / "personal" / f"told by {reingest.__name__}.md"
            note.write_text("a note saved while the watcher waits")
            _until(lambda w=watcher: w.state()["ingests"] == 2)
            assert order == want
        finally:
            watcher.stop(timeout=5)


@pytest.mark.parametrize(
    "rel, is_directory, counts",
    [
        ("journal/2024-05-01.md", False, True),
        ("journal", True, True),  # a folder of notes moved or deleted
        (".lucasrag/deference.yaml", False, True),
        (".lucasrag/care_decisions.yaml", False, True),
        (".obsidian/templates.json", False, True),  # names the templates folder
        (".obsidian/workspace.json", False, False),
        (".git/index", False, False),
        (".lucasrag/data/assets/notes.parquet", False, False),  # a data folder kept in the vault
        ("attachments/photo.png", False, False),
        ("journal/.draft.md", False, False),
        (".trash/old.md", False, False),
    ],
)
def test_which_changes_count(tmp_path, rel, is_directory, counts):
    assert counts_for_the_fingerprint(tmp_path, str(tmp_path / rel), is_directory) is counts


def _record_pid(settings, changed=None) -> None:
    """Runs in the ingest process: leaves its pid where the test can read it."""
    (settings.data / "ingest.pid").write_text(str(os.getpid()))


def _fail(settings, changed=None) -> None:
    raise ValueError(f"no ingest for {settings.vault.name}")


def _die(settings, changed=None) -> None:
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


def test_an_ingest_is_told_the_notes_the_events_named_once_it_has_listed_the_vault(fresh_vault):
    """The catch-up lists the vault itself (None); after an ingest that said what it listed, a settled change is
    ingested with the notes the file system named; a failed ingest's successor lists again (the failed one may
    not have listed the notes taken for it); a folder made is listed, not followed."""
    from lucasrag.vault_files import vault_fingerprint

    told, fail = [], []

    def says(settings, changed):
        told.append(changed)
        if fail:
            fail.pop()
            raise RuntimeError("out of disk")
        return vault_fingerprint(settings.vault)

    watcher = VaultWatcher(fresh_vault, says, debounce_s=0.2, safety_poll_s=60, events=True).start()
    saved = iter(range(100))

    def save(rel: str, want: int) -> None:
        path = fresh_vault.vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"saved {next(saved)}")
        _until(lambda: watcher.state()["ingests"] == want and watcher.state()["state"] == "watching")

    try:
        _until(lambda: watcher.state()["ingests"] == 1 and watcher.state()["state"] == "watching")  # catch-up
        save("personal/one.md", 2)
        fail.append(True)
        save("personal/two.md", 3)  # fails
        save("personal/three.md", 4)
        save("personal/four.md", 5)
        (fresh_vault.vault / "a new folder").mkdir()
        save("a new folder/five.md", 6)
    finally:
        watcher.stop(timeout=5)
    assert told == [
        None,
        frozenset({"personal/one.md"}),
        frozenset({"personal/two.md"}),
        None,
        frozenset({"personal/four.md"}),
        None,
    ]


def test_polling_never_tells_the_ingest_what_changed(fresh_vault):
    calls = Calls()
    watcher = VaultWatcher(fresh_vault, calls, debounce_s=0.1, poll_s=0.05, catch_up=False, events=False).start()
    try:
        _until(lambda: watcher.state()["state"] == "watching")
        (fresh_vault.vault / "polled.md").write_text("found by a listing")
        _until(lambda: watcher.state()["ingests"] == 1)
    finally:
        watcher.stop(timeout=5)
    assert calls.changed == [None]
