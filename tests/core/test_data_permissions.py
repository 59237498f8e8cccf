"""LUCASRAG_DATA holds every note's text: after an ingest run under a permissive umask, nothing in
it is readable by another account (folders 0700, files 0600), and a loose existing folder is
tightened with a notice."""

import logging
import os
import stat
from pathlib import Path

import pytest
from file_modes import loose_entries

from lucasrag.data_folder import open_data_folder, tighten, write_private


@pytest.fixture
def permissive_umask():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_ingest_leaves_only_owner_readable_files(tmp_path, monkeypatch, permissive_umask, copy_vault, settings_for):
    from lucasrag_assets.ingest import run_ingest

    monkeypatch.delenv("DAGSTER_HOME")  # the Dagster instance lives in the data folder too
    settings = settings_for(copy_vault(tmp_path / "vault"), tmp_path / "data")
    run_ingest(settings)
    files = [p for p in settings.data.rglob("*") if p.is_file()]
    kinds = {p.suffix for p in files}
    assert {".sqlite", ".parquet", ".json", ".db"} <= kinds  # embedding cache, catalogue, LightRAG, Dagster
    assert len(files) > 20
    assert loose_entries(settings.data) == []


def test_existing_loose_folder_is_tightened_once_with_a_notice(tmp_path, caplog, permissive_umask):
    root = tmp_path / "data"
    (root / "indexes" / "technical").mkdir(parents=True)
    (root / "indexes" / "technical" / "kv.json").write_text("{}")
    (root / "notes.parquet").write_text("x")
    os.chmod(root / "notes.parquet", 0o755)
    os.symlink("/etc/passwd", root / "link")  # not followed: /etc/passwd keeps its mode
    before = os.stat("/etc/passwd").st_mode
    with caplog.at_level(logging.WARNING, logger="lucasrag.data_folder"):
        open_data_folder(root)
    assert loose_entries(root) == []
    assert stat.S_IMODE(os.stat(root / "notes.parquet").st_mode) == 0o700  # owner bits kept
    assert os.stat("/etc/passwd").st_mode == before
    notices = [r.getMessage() for r in caplog.records]
    assert len(notices) == 1 and "tightened 5 entries" in notices[0], notices


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_new_folder_is_private_whatever_the_umask(tmp_path, caplog, umask):
    old = os.umask(umask)
    try:
        with caplog.at_level(logging.WARNING, logger="lucasrag.data_folder"):
            root = open_data_folder(tmp_path / "deep" / f"data{umask}")
        write_private(root / "services" / "secret", "pw")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(root / "services" / "secret").st_mode) == 0o600
    assert caplog.records == []  # a new folder is no news
    assert tighten(root) == [root / "services"] if umask != 0o077 else tighten(root) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="PostgreSQL runs as its own user only when we are root")
def test_the_postgres_user_keeps_its_way_in_and_no_one_else(tmp_path, permissive_umask):
    """As root, PostgreSQL runs as lucasrag-pg: the folders above its data dir become 0710 with its
    group (search only), so tightening never locks a running server out, and others get nothing."""
    from lucasrag_harness.local_servers._process import _can_traverse, ensure_system_user

    user = ensure_system_user("lucasrag-pg")
    root = open_data_folder(tmp_path / "data")
    pg = root / "services" / "postgres" / "pgdata"
    pg.mkdir(parents=True)
    (root / "indexes").mkdir()
    for path in (pg.parent, pg):
        os.chown(path, user.pw_uid, user.pw_gid)
    tighten(root)
    for folder in (root, root / "services"):
        st = os.stat(folder)
        assert (stat.S_IMODE(st.st_mode), st.st_gid) == (0o710, user.pw_gid), folder
    assert stat.S_IMODE(os.stat(root / "indexes").st_mode) == 0o700
    assert _can_traverse(root / "services", user) and _can_traverse(root, user)
    assert tighten(root) == []  # stable


def test_the_lucasrag_command_writes_privately_from_the_first_write(tmp_path):
    """The console script (``lucasrag_cli:main``) sets a 077 umask before any subcommand runs, whatever the
    shell's: every file the CLI, `lucasrag mcp` or `lucasrag watch` writes is private from its creation."""
    import subprocess
    import sys

    probe = (
        "import os, sys\n"
        "from lucasrag_cli import main\n"
        "sys.argv = ['lucasrag', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "open(os.environ['PROBE'], 'w').write('x')\n"
        "print(oct(os.umask(0)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PROBE": str(tmp_path / "written")},
        preexec_fn=lambda: os.umask(0o022),  # a permissive shell
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "0o77"
    assert stat.S_IMODE((tmp_path / "written").stat().st_mode) == 0o600


def test_the_mcp_token_folder_is_the_owners_alone(tmp_path, permissive_umask, settings_for):
    from lucasrag_query.mcp.auth import load_or_create_token, token_path

    settings = settings_for(tmp_path / "vault", tmp_path / "data")
    load_or_create_token(settings)
    assert stat.S_IMODE(token_path(settings).parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(token_path(settings).stat().st_mode) == 0o600


def test_the_dagster_ui_processes_start_under_a_private_umask(repo):
    """``scripts/dagster-ui`` sets the umask before it starts ``dagster dev`` (webserver, daemon, code server
    and run workers inherit it)."""
    script = (repo / "scripts" / "dagster-ui").read_text()
    assert script.index("\numask 077\n") < script.index("\nexec dagster dev")


def _umasks(pid: int) -> dict[int, str]:
    """The umask of ``pid`` and of every process below it (Linux /proc)."""
    found, todo = {}, [pid]
    while todo:
        p = todo.pop()
        status = Path(f"/proc/{p}/status").read_text()
        found[p] = next(line.split()[1] for line in status.splitlines() if line.startswith("Umask:"))
        for task in Path(f"/proc/{p}/task").iterdir():
            todo += [int(c) for c in (task / "children").read_text().split()]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("command", [["watch", "--debounce", "0.5"], ["mcp", "--http", "--watch", "--debounce", "0.5"]])
def test_the_long_lived_writers_write_privately(tmp_path, command, notes_vault):
    """`lucasrag watch` and `lucasrag mcp --watch` started from a permissive shell: the ingest they run on a
    change (in the child process the watcher keeps) leaves nothing another account can read."""
    import signal
    import subprocess
    import sys
    import time

    vault = notes_vault(tmp_path / "vault", {"a.md": "---\nworkspace: technical\n---\nnginx reload notes.\n"})
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}  # the instance lives in the data folder
    env.update(LUCASRAG_VAULT=str(vault), LUCASRAG_DATA=str(data))
    if command[0] == "mcp":
        from ui_fixtures import free_port

        command = [*command, "--port", str(free_port())]
    log = (tmp_path / "out.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "lucasrag_cli", *command],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: os.umask(0o022),  # a permissive shell
    )
    try:
        time.sleep(3)
        (vault / "b.md").write_text("---\nworkspace: personal\n---\nA walk by the river.\n")
        deadline = time.monotonic() + 240
        while (
            time.monotonic() < deadline and not (data / "catalog" / "notes.parquet").exists() and server.poll() is None
        ):
            time.sleep(1)
        time.sleep(2)  # the ingest's last writes after the catalogue
        assert (data / "catalog" / "notes.parquet").exists(), (tmp_path / "out.log").read_text()[-3000:]
        # The server (and any ingest process it keeps, which inherits its umask) runs under 077: the
        # end-of-ingest tighten would hide a loose first write from the mode check below.
        umasks = _umasks(server.pid)
        assert set(umasks.values()) == {"0077"}, umasks
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    assert loose_entries(data) == []
    assert "tightened" not in (tmp_path / "out.log").read_text()
