"""A hostile vault: special files, symlinks out of the vault or in a loop, YAML bombs and object
tags, files that change under the scan. Each entry is reported with its reason (or parsed), never
read when it is not a regular file inside the vault, never blocks, never stops the other notes."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from lucasrag.safe_yaml import MAX_ALIASES, MAX_FRONTMATTER_BYTES
from lucasrag.vault_files import iter_vault_files
from lucasrag_assets.rules.vault_scan import parse_note, scan_vault

MiB = 1024 * 1024
GOOD = "---\ntitle: Fine\n---\nA plain note.\n"


def _write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


def _many_aliases(n: int) -> str:
    return "---\nx: &x 1\nys: [" + ", ".join(["*x"] * n) + "]\n---\nbody\n"


def _nested(depth: int) -> str:
    return "---\nk: " + "[" * depth + "]" * depth + "\n---\nbody\n"


# -- frontmatter as hostile YAML: (content, reason fragment) ----------------------------

REFUSED = [
    pytest.param(_billion_laughs(), "YAML aliases", id="billion-laughs"),
    pytest.param(_billion_laughs(levels=5, width=9), "expands to more than", id="laughs-few-aliases-wide"),
    pytest.param(_many_aliases(MAX_ALIASES + 1), f"more than {MAX_ALIASES} YAML aliases", id="too-many-aliases"),
    pytest.param("---\na: &a [*a]\n---\nbody\n", "refers to itself", id="recursive-alias"),
    pytest.param(_nested(30_000), "nested more than", id="deeply-nested-30k"),
    pytest.param(_nested(100_000), "over the 64 KiB cap", id="deeply-nested-100k"),
    pytest.param(_nested(40), "nested more than", id="nested-40"),
    pytest.param("---\nk: " + "{a: " * 50 + "1" + "}" * 50 + "\n---\nbody\n", "nested more than", id="nested-maps"),
    pytest.param("---\nk: '" + "x" * (MAX_FRONTMATTER_BYTES + 1) + "'\n---\nbody\n", "KiB cap", id="huge-frontmatter"),
    pytest.param(
        "---\nx: !!python/object/apply:os.system ['touch /tmp/lucasrag-pwned']\n---\nbody\n",
        "the YAML tag !!python/object/apply:os.system is not loaded",
        id="python-object-tag",
    ),
    pytest.param(
        "---\nx: !!python/name:os.system\n---\nbody\n",
        "the YAML tag !!python/name:os.system is not",
        id="python-name-tag",
    ),
    pytest.param("---\nx: !custom 1\n---\nbody\n", "the YAML tag !custom is not loaded", id="local-tag"),
    pytest.param("---\n? [a, b]\n: c\n---\nbody\n", "malformed frontmatter: YAML error", id="unhashable-key"),
]


@pytest.mark.parametrize("content, reason", REFUSED)
def test_hostile_frontmatter_is_refused_quickly(tmp_path, content, reason):
    t0 = time.perf_counter()
    note = parse_note(tmp_path, _write(tmp_path, "n.md", content), max_bytes=MiB)
    assert time.perf_counter() - t0 < 5  # bounded: never the minutes (or GB) an expansion would take
    assert note.status == "invalid" and reason in note.reason, note.reason
    assert not Path("/tmp/lucasrag-pwned").exists()


ACCEPTED = [
    pytest.param("---\r\ntitle: Windows\r\ntags: [a]\r\n---\r\nBody line.\r\n", "Windows", id="crlf"),
    pytest.param("\ufeff---\ntitle: Bom\n---\nBody.\n", "Bom", id="bom"),
    pytest.param("\ufeff---\r\ntitle: Both\r\n---\r\nBody.\r\n", "Both", id="bom-and-crlf"),
    pytest.param(_nested(30), "n", id="nested-30-is-fine"),
    pytest.param(_many_aliases(MAX_ALIASES), "n", id="aliases-at-the-limit"),
    pytest.param("---\nbase: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n---\nBody.\n", "n", id="merge-key"),
    pytest.param("---\ntitle: Long\n---\n" + "line\n" * 100_000, "Long", id="100k-lines"),
]


@pytest.mark.parametrize("content, title", ACCEPTED)
def test_unusual_but_honest_notes_parse(tmp_path, content, title):
    note = parse_note(tmp_path, _write(tmp_path, "n.md", content), max_bytes=MiB)
    assert note.status == "ok", note.reason
    assert note.title == title


# -- entries that are not plain files in the vault -------------------------------------


def _fifo(root: Path) -> str:
    os.mkfifo(root / "pipe.md")
    return "named pipe (FIFO), not a regular file"


def _socket(root: Path) -> str:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(root / "sock.md"))
    sock.close()  # the socket file stays
    return "a socket, not a regular file"


def _loop(root: Path) -> str:
    os.symlink("loop.md", root / "loop.md")
    return "symlink loop"


def _mutual_loop(root: Path) -> str:
    os.symlink("b.md", root / "a.md")
    os.symlink("a.md", root / "b.md")
    return "symlink loop"


def _outside(root: Path) -> str:
    os.symlink("/etc/passwd", root / "leak.md")
    return "symlink points outside the vault (→ /etc/passwd)"


def _outside_relative(root: Path) -> str:
    _write(root.parent, "secret.md", "---\ntitle: not yours\n---\nprivate\n")
    os.symlink("../secret.md", root / "up.md")
    return "symlink points outside the vault"


def _broken(root: Path) -> str:
    os.symlink("missing.md", root / "gone.md")
    return "broken symlink"


def _device(root: Path) -> str:
    os.symlink("/dev/zero", root / "zero.md")  # outside the vault first of all
    return "outside the vault"


SPECIAL = [
    pytest.param(_fifo, id="fifo"),
    pytest.param(_socket, id="socket"),
    pytest.param(_loop, id="symlink-loop"),
    pytest.param(_mutual_loop, id="mutual-symlink-loop"),
    pytest.param(_outside, id="symlink-to-etc-passwd"),
    pytest.param(_outside_relative, id="symlink-up-and-out"),
    pytest.param(_broken, id="broken-symlink"),
    pytest.param(_device, id="symlink-to-device"),
]


@pytest.mark.parametrize("make", SPECIAL)
def test_special_entries_are_reported_not_read(tmp_path, make):
    root = tmp_path / "vault"
    _write(root, "good.md", GOOD)
    reason = make(root)
    t0 = time.perf_counter()
    notes = scan_vault(root, max_bytes=MiB)
    assert time.perf_counter() - t0 < 5  # a FIFO never blocks the scan
    by_status = {n.path: n for n in notes}
    assert by_status.pop("good.md").status == "ok"
    assert by_status and all(n.status == "invalid" and reason in n.reason for n in by_status.values()), [
        (n.path, n.reason) for n in by_status.values()
    ]
    assert all(n.body == "" for n in by_status.values())  # nothing of the target was read


def test_a_symlink_inside_the_vault_is_read_as_its_target(tmp_path):
    _write(tmp_path, "real/note.md", GOOD)
    os.symlink("real/note.md", tmp_path / "alias.md")
    (tmp_path / "linked-dir").symlink_to(tmp_path.parent)  # a symlinked folder is never walked
    notes = {n.path: n for n in scan_vault(tmp_path, max_bytes=MiB)}
    assert set(notes) == {"alias.md", "real/note.md"}
    assert notes["alias.md"].status == "ok" and notes["alias.md"].body == notes["real/note.md"].body


def test_a_file_that_vanishes_or_changes_after_the_scan_is_reported(tmp_path):
    gone = _write(tmp_path, "gone.md", GOOD)
    changed = _write(tmp_path, "changed.md", GOOD)
    seen = {p.name: p.stat() for p in iter_vault_files(tmp_path)}
    gone.unlink()
    changed.write_text(GOOD + "more\n")
    assert "vanished" in parse_note(tmp_path, gone, max_bytes=MiB, scanned=seen["gone.md"]).reason
    note = parse_note(tmp_path, changed, max_bytes=MiB, scanned=seen["changed.md"])
    assert note.status == "invalid" and "changed between the scan and the read" in note.reason
    assert parse_note(tmp_path, changed, max_bytes=MiB).status == "ok"  # the next scan reads it


def test_a_file_name_that_is_not_utf8_is_reported(tmp_path):
    name = os.fsdecode(b"caf\xe9.md")
    _write(tmp_path, name, GOOD)
    (note,) = scan_vault(tmp_path, max_bytes=MiB)
    assert note.status == "invalid" and "file name is not valid UTF-8" in note.reason
    note.path.encode("utf-8")  # storable in the catalogue


def test_the_fingerprint_takes_any_file_name(tmp_path):
    from lucasrag.vault_files import vault_fingerprint

    _write(tmp_path, os.fsdecode(b"caf\xe9.md"), GOOD)
    os.mkfifo(tmp_path / "pipe.md")
    os.symlink("loop.md", tmp_path / "loop.md")
    first = vault_fingerprint(tmp_path)
    assert first == vault_fingerprint(tmp_path)


def test_file_names_as_strings_give_the_paths_relative_paths(tmp_path):
    """The scan reads names as strings (``vault_file_names``): the same files, order and relative paths as Paths."""
    from lucasrag.safe_read import vault_relpath
    from lucasrag.vault_files import vault_file_names

    for rel in ("a.md", "b/c d.md", "b/e/f.md", "z/ü.md", os.fsdecode(b"caf\xe9.md"), ".hidden/x.md", "b/.y.md"):
        _write(tmp_path, rel, GOOD)
    os.symlink("a.md", tmp_path / "alias.md")
    names = vault_file_names(tmp_path)
    assert [Path(n) for n in names] == iter_vault_files(tmp_path) and len(names) == 6
    assert [vault_relpath(tmp_path, n) for n in names] == [vault_relpath(tmp_path, Path(n)) for n in names]
