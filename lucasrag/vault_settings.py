"""The vault's own settings files (``<vault>/.lucasrag/*.yaml``, ``.obsidian/*.json``), read as hostile
input like its notes: only a regular file inside the vault, never blocking, bounded in size, YAML within
the limits of :mod:`lucasrag.safe_yaml`.

A FIFO named ``deference.yaml`` would otherwise hang every ingest and every query; a symlink
``.obsidian/templates.json → /etc/shadow`` would be read from outside the vault; an alias bomb in
``routing.yaml`` would fill memory. Each of those raises :class:`SettingsFileUnreadable` with the reason,
which the callers report as they report a broken settings file.
"""

from __future__ import annotations

from pathlib import Path

from lucasrag.safe_read import UnreadableEntry, read_regular
from lucasrag.safe_yaml import FrontmatterRefused, load_frontmatter

#: Far beyond any hand-written settings file.
MAX_SETTINGS_BYTES = 1024 * 1024


class SettingsFileUnreadable(ValueError):
    """A settings file exists but is not read; ``str(exc)`` names it and says why."""


def read_settings_text(vault: Path, path: Path) -> str | None:
    """The UTF-8 text of the settings file ``path`` (inside ``vault``); None when there is none."""
    if not path.is_symlink() and not path.exists():
        return None
    try:
        raw = read_regular(vault, path, limit=MAX_SETTINGS_BYTES)
    except UnreadableEntry as exc:
        raise SettingsFileUnreadable(f"{path}: {exc}") from None
    if len(raw) > MAX_SETTINGS_BYTES:
        raise SettingsFileUnreadable(f"{path}: over the {MAX_SETTINGS_BYTES // 1024} KiB cap for a settings file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsFileUnreadable(
            f"{path}: not UTF-8 ({exc.reason} at byte {exc.start}): re-save it as UTF-8"
        ) from None


def load_settings_yaml(vault: Path, path: Path) -> object:
    """The YAML settings file ``path`` loaded within the limits of :mod:`lucasrag.safe_yaml` (plain
    values only); None when the file is absent or empty. Broken YAML raises ``yaml.YAMLError``."""
    text = read_settings_text(vault, path)
    if text is None:
        return None
    try:
        return load_frontmatter(text, what="settings file", max_bytes=MAX_SETTINGS_BYTES)
    except FrontmatterRefused as exc:
        raise SettingsFileUnreadable(f"{path}: {exc}") from None


__all__ = ["MAX_SETTINGS_BYTES", "SettingsFileUnreadable", "load_settings_yaml", "read_settings_text"]
