"""What every server LucasRAG runs itself needs: the error and status types, port and
log helpers, and an unprivileged system user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import errno
import logging
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lucasrag.data_folder import write_private
from lucasrag.services import ServiceError  # re-exported for the runners

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServiceStatus:
    service: str
    running: bool
    pid: int | None
    port: int | None
    address: str
    data_dir: Path
    detail: str = ""

    def as_dict(self) -> dict:
        return {
            "service": self.service,
            "running": self.running,
            "pid": self.pid,
            "port": self.port,
            "address": self.address,
            "data_dir": str(self.data_dir),
            "detail": self.detail,
        }


# --------------------------------------------------------------------------- helpers shared with neo4j.py


def port_in_use(host: str, port: int) -> bool:
    """True when nothing can bind ``host:port`` (the server sockets set SO_REUSEADDR, so do we)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return True
            raise ServiceError(f"cannot bind {host}:{port}: {exc}") from exc
    return False


def log_tail(path: Path, lines: int = 30, *, since: int = 0) -> str:
    """The last ``lines`` lines of a log file (from byte offset ``since``), for error messages."""
    try:
        with open(path, "rb") as fh:
            fh.seek(since)
            data = fh.read()
    except OSError:
        return f"(no log at {path})"
    text = data.decode("utf-8", "replace").rstrip()
    if not text:
        return f"(log {path} is empty)"
    return "\n".join(text.splitlines()[-lines:])


def connect_host(host: str) -> str:
    """The address a client should dial for a server listening on ``host``."""
    return "127.0.0.1" if host in ("", "*", "0.0.0.0") else ("::1" if host == "::" else host)


def service_password(path: Path) -> str:
    """The password in ``path`` (a server's, kept 0600 next to its data dir), generated on first use.

    Never printed or logged: ``services start`` exports it as ``$(cat PATH)``."""
    try:
        password = path.read_text().strip()
    except FileNotFoundError:
        password = ""
    if not password:
        password = secrets.token_urlsafe(32)  # URL- and shell-safe: no quoting needed in a DSN
        write_private(path, password + "\n")
    return password


# --------------------------------------------------------------------------- the system user


def ensure_system_user(name: str) -> pwd.struct_passwd:
    """The unprivileged user PostgreSQL runs as when we are root (``useradd --system`` if missing)."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    proc = subprocess.run(
        [
            useradd,
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            "/usr/sbin/nologin",
            name,
        ],
        capture_output=True,
        text=True,
    )
    try:
        return pwd.getpwnam(name)  # also covers a concurrent useradd (exit 9, "already exists")
    except KeyError:
        raise ServiceError(
            f"PostgreSQL refuses to run as root and the system user {name!r} could not be created: "
            f"{(proc.stderr or proc.stdout).strip()}"
        ) from None


def _search_bit(st: os.stat_result, user: pwd.struct_passwd) -> int:
    """The x bit that governs ``user`` on a file with ``st``: owner's, else group's, else other's
    (a group member is judged by the group bits alone, whatever the other bits say)."""
    if user.pw_uid == 0 or st.st_uid == user.pw_uid:
        return stat.S_IXUSR
    groups = {user.pw_gid} | {g for g in os.getgrouplist(user.pw_name, user.pw_gid)}
    return stat.S_IXGRP if st.st_gid in groups else stat.S_IXOTH


def _can_traverse(path: Path, user: pwd.struct_passwd) -> bool:
    st = path.stat()
    return bool(st.st_mode & _search_bit(st, user))


def make_traversable(path: Path, user: pwd.struct_passwd, *, include_self: bool = False) -> None:
    """Give ``user`` search (x) permission on every ancestor of ``path`` that denies it.

    Only the search bit is added (no listing), and only on directories we own:
    e.g. pytest's 0700 ``/tmp/pytest-of-root``, ``tempfile.mkdtemp`` dirs or the 0700
    ``LUCASRAG_DATA``. A directory whose group has no rights is given to ``user``'s group
    with ``g+x`` (0710: no other account gains anything, see lucasrag.data_folder); else ``o+x``.
    """
    path = path.resolve()
    for parent in [*reversed(path.parents), *([path] if include_self else [])]:
        if _can_traverse(parent, user):
            continue
        st = parent.stat()
        if st.st_uid != os.geteuid():
            raise ServiceError(
                f"{parent} is not traversable by user {user.pw_name!r} and is not ours to change; "
                f"choose a data directory elsewhere (LUCASRAG_DATA)"
            )
        mode = stat.S_IMODE(st.st_mode)
        if mode & stat.S_IRWXG == 0 and _search_bit(st, user) == stat.S_IXOTH:
            # a group with no rights: hand it to the user's group with g+x (0710), opening nothing to others
            os.chown(parent, -1, user.pw_gid)
            os.chmod(parent, mode | stat.S_IXGRP)
            log.info("made %s traversable (group %s, g+x)", parent, user.pw_name)
        else:
            os.chmod(parent, mode | _search_bit(st, user))
            log.info("made %s traversable for %s", parent, user.pw_name)


def chown_tree(path: Path, user: pwd.struct_passwd) -> None:
    """chown ``path``'s top level to ``user``; recurse only into entries owned by someone else."""
    if not path.exists():
        return
    st = os.lstat(path)
    if st.st_uid != user.pw_uid or st.st_gid != user.pw_gid:
        os.lchown(path, user.pw_uid, user.pw_gid)
    if not path.is_dir() or path.is_symlink():
        return
    for child in path.iterdir():
        cst = os.lstat(child)
        if cst.st_uid != user.pw_uid or cst.st_gid != user.pw_gid:
            _chown_all(child, user)


def _chown_all(path: Path, user: pwd.struct_passwd) -> None:
    os.lchown(path, user.pw_uid, user.pw_gid)
    if not path.is_dir() or path.is_symlink():
        return
    for root, dirs, files in os.walk(path):
        for name in [root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)]:
            st = os.lstat(name)
            if st.st_uid != user.pw_uid or st.st_gid != user.pw_gid:
                os.lchown(name, user.pw_uid, user.pw_gid)


# --------------------------------------------------------------------------- the server
