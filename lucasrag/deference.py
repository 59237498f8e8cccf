"""The deference list: ``<vault>/.lucasrag/deference.yaml``."""

from __future__ import annotations

from pathlib import Path

import yaml

from lucasrag.vault_settings import SettingsFileUnreadable, load_settings_yaml
from lucasrag.vocabulary import DeferenceSubject


class DeferenceConfigError(ValueError):
    """deference.yaml exists but cannot be used; the message says why and where."""


def deference_path(vault: Path) -> Path:
    return vault / ".lucasrag" / "deference.yaml"


def load_deference(vault: Path) -> tuple[DeferenceSubject, ...]:
    """The subjects of the vault's deference list; none when the file is absent."""
    path = deference_path(vault)
    try:
        raw = load_settings_yaml(vault, path) or {}
    except SettingsFileUnreadable as exc:
        raise DeferenceConfigError(str(exc)) from None
    except yaml.YAMLError as exc:
        raise DeferenceConfigError(f"{path}: not valid YAML ({exc})") from exc
    entries = raw.get("subjects") if isinstance(raw, dict) else None
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise DeferenceConfigError(f"{path}: 'subjects' must be a list")
    subjects = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise DeferenceConfigError(f"{path}: subject #{i + 1} needs a non-empty 'name'")
        aliases = entry.get("aliases") or []
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise DeferenceConfigError(f"{path}: aliases of {entry['name']!r} must be a list of strings")
        subjects.append(DeferenceSubject(entry["name"].strip(), tuple(a.strip() for a in aliases if a.strip())))
    return tuple(subjects)
