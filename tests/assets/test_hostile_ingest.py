"""A whole ingest of a hostile vault: a FIFO named pipe.md, a symlink
loop, a symlink to /etc/passwd, a YAML alias bomb and an object tag, next to the sample notes. The
ingest finishes, reports each bad entry with its reason, indexes the rest, reads nothing outside
the vault and changes no byte of it; the second ingest (memo path) does the same."""

import os

import pytest

from lucasrag_assets.ingest import run_ingest

pytestmark = pytest.mark.slow

BOMB = (
    "---\n"
    + 'a0: &a0 "lol"\n'
    + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10))
    + "---\nbody\n"
)

HOSTILE = {
    "pipe.md": "named pipe (FIFO), not a regular file",
    "loop.md": "symlink loop",
    "leak.md": "symlink points outside the vault (→ /etc/passwd)",
    "bomb.md": "YAML aliases",
    "tag.md": "the YAML tag !!python/object/apply:os.system is not loaded",
    "caf\\xe9.md": "file name is not valid UTF-8",
}


def _snapshot(root):
    return {
        str(p.relative_to(root)): (
            os.lstat(p).st_mode,
            os.lstat(p).st_mtime_ns,
            p.is_file() and not p.is_symlink() and p.read_bytes(),
        )
        for p in root.rglob("*")
    }


def test_hostile_vault_ingests_the_rest_and_reports_each_entry(tmp_path, copy_vault, settings_for):
    vault = copy_vault(tmp_path / "vault")
    os.mkfifo(vault / "pipe.md")
    os.symlink("loop.md", vault / "loop.md")
    os.symlink("/etc/passwd", vault / "leak.md")
    (vault / "bomb.md").write_text(BOMB)
    (vault / os.fsdecode(b"caf\xe9.md")).write_text("---\ntitle: latin-1 name\n---\nbody\n")
    (vault / "tag.md").write_text(
        "---\nx: !!python/object/apply:os.system ['touch /tmp/lucasrag-ingest-pwned']\n---\nb\n"
    )
    before = _snapshot(vault)
    settings = settings_for(vault, tmp_path / "data")
    for _ in range(2):  # fresh, then through the scan memo
        summary = run_ingest(settings)
        invalid = dict(summary.invalid)
        for name, reason in HOSTILE.items():
            assert reason in (invalid.get(name) or ""), (name, invalid.get(name))
        assert sum(summary.per_workspace.values()) > 10  # the sample notes are indexed
        assert all(path not in HOSTILE for path, _, _ in summary.quarantined)
    assert _snapshot(vault) == before
    assert not os.path.exists("/tmp/lucasrag-ingest-pwned")
    passwd = open("/etc/passwd").read().splitlines()[0]
    for path in settings.data.rglob("*"):
        if path.is_file():
            assert passwd.encode() not in path.read_bytes(), path
