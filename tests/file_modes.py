"""What another account could read: shared by the permission tests of every writer."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def loose_entries(root: Path) -> list[tuple[str, str]]:
    """Every directory / regular file under ``root`` (root included) with a group or other bit."""
    found = []
    for path in [root, *root.rglob("*")]:
        st = os.lstat(path)
        if (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)) and st.st_mode & 0o077:
            found.append((str(path.relative_to(root)), oct(stat.S_IMODE(st.st_mode))))
    return found
