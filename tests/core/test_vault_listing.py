"""A long-lived writer's listing of the vault, brought up to date from the notes the file system's change
events name (``vault_files.relisted``, ``VaultEvents.take``) instead of listed again: it must equal a fresh
listing after every kind of change."""

from __future__ import annotations

import os
import time

import pytest

from lucasrag.vault_events import VaultEvents
from lucasrag.vault_files import relisted, vault_file_stats


def _vault(root):
    for rel in ("journal/2026-01-01.md", "journal/2026-01-02.md", "tech/b.md", "tech/deep/c.md", "top.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n")
    (root / ".obsidian").mkdir()
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "linked.md").write_text("reached through a symlinked folder")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    return root


def _seen(listing):
    return [(path, (st.st_size, st.st_mtime_ns) if st else None) for path, st in listing]


def _edit(root):
    (root / "tech/b.md").write_text("# b, longer now\n")
    return ["tech/b.md"]


def _add(root):
    (root / "journal/2026-01-03.md").write_text("new")
    return ["journal/2026-01-03.md"]


def _add_first_in_order(root):
    (root / "a.md").write_text("sorts before journal/")
    (root / "tech/deep/a.md").write_text("sorts before tech/deep/c.md")
    return ["a.md", "tech/deep/a.md"]


def _delete(root):
    (root / "tech/deep/c.md").unlink()
    return ["tech/deep/c.md"]


def _rename(root):
    (root / "top.md").rename(root / "journal/top.md")
    return ["top.md", "journal/top.md"]


def _hidden_and_attachments(root):
    (root / ".obsidian/note.md").write_text("hidden")
    (root / "journal/.draft.md").write_text("hidden")
    (root / "tech/photo.png").write_bytes(b"\x89PNG")
    return [".obsidian/note.md", "journal/.draft.md", "tech/photo.png"]


def _through_a_symlinked_folder(root):
    (root.parent / "outside/new.md").write_text("not entered by the walk")
    return ["linked/new.md", "linked/linked.md"]


def _a_folder_named_like_a_note(root):
    (root / "folder.md").mkdir()
    return ["folder.md"]


def _a_note_replaced_by_a_folder_of_that_name(root):
    (root / "top.md").unlink()
    (root / "top.md").mkdir()
    return ["top.md"]


def _a_broken_symlink(root):
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    return ["dangling.md"]


def _named_but_unchanged(root):
    return ["journal/2026-01-01.md", "never-existed.md"]


@pytest.mark.parametrize(
    "change",
    [
        _edit,
        _add,
        _add_first_in_order,
        _delete,
        _rename,
        _hidden_and_attachments,
        _through_a_symlinked_folder,
        _a_folder_named_like_a_note,
        _a_note_replaced_by_a_folder_of_that_name,
        _a_broken_symlink,
        _named_but_unchanged,
    ],
)
def test_the_listing_brought_up_to_date_equals_a_fresh_listing(tmp_path, change):
    root = _vault(tmp_path / "vault")
    before = vault_file_stats(root)
    time.sleep(0.01)  # a rewrite gets a later mtime
    changed = change(root)
    assert _seen(relisted(root, before, changed)) == _seen(vault_file_stats(root))


def test_a_change_not_named_is_not_seen(tmp_path):
    """What the listing trusts: the events. A note written behind their back is seen by the next full listing
    (the watcher's safety check), not by this one."""
    root = _vault(tmp_path / "vault")
    before = vault_file_stats(root)
    (root / "unreported.md").write_text("no event said so")
    assert _seen(relisted(root, before, [])) == _seen(before) != _seen(vault_file_stats(root))


def _take_after(events, action, timeout=5.0):
    events.take()
    action()
    assert events.changed.wait(timeout)
    time.sleep(0.2)  # the rest of the action's events
    events.changed.clear()
    return events.take()


@pytest.mark.parametrize(
    "action, want",
    [
        (lambda root: (root / "tech/b.md").write_text("edited"), frozenset({"tech/b.md"})),
        (lambda root: (root / "journal/new.md").write_text("added"), frozenset({"journal/new.md"})),
        (lambda root: (root / "top.md").unlink(), frozenset({"top.md"})),
        (lambda root: (root / "top.md").rename(root / "tech/top.md"), frozenset({"top.md", "tech/top.md"})),
        (lambda root: (root / "new folder").mkdir(), None),  # a folder: its notes are not named
        (lambda root: (root / "tech").rename(root / "technical"), None),
        (lambda root: (root / ".lucasrag").mkdir() or (root / ".lucasrag/deference.yaml").write_text("x"), None),
    ],
    ids=["edit", "add", "delete", "rename", "folder made", "folder renamed", "configuration"],
)
def test_the_events_name_the_notes_that_changed_or_say_to_list_again(tmp_path, action, want):
    root = _vault(tmp_path / "vault")
    events = VaultEvents(root)
    if not events.start():
        pytest.skip("this file system sends no change events")
    try:
        assert _take_after(events, lambda: action(root)) == want
        assert events.take() == frozenset()  # taken: forgotten
    finally:
        events.stop()


def test_the_relative_paths_are_the_vaults_however_it_is_spelled(tmp_path):
    """Events come with the vault's real path; a vault given through a symlink names the same notes."""
    root = _vault(tmp_path / "vault")
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)
    events = VaultEvents(alias)
    if not events.start():
        pytest.skip("this file system sends no change events")
    try:
        changed = _take_after(events, lambda: (root / "tech/b.md").write_text("edited"))
    finally:
        events.stop()
    assert changed == frozenset({"tech/b.md"})
    before = vault_file_stats(alias)
    assert _seen(relisted(alias, before, changed)) == _seen(vault_file_stats(alias))
    assert os.path.join(str(alias), "tech/b.md") in dict(before)
