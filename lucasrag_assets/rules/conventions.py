"""A vault's own conventions, read once per scan: ``<vault>/.lucasrag/vault.yaml`` and Obsidian's
template settings. Pure functions, no Dagster; nothing here writes to the vault.

``vault.yaml`` (every key optional)::

    date_order: DMY   # or MDY: how to read 04.03.2021; unset → such dates are undated, with a warning
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from lucasrag.vault_files import template_folders
from lucasrag.vault_settings import SettingsFileUnreadable, load_settings_yaml
from lucasrag_assets.rules.dates import DATE_ORDERS, DateOrder

VAULT_SETTINGS = ".lucasrag/vault.yaml"


@dataclass(frozen=True)
class VaultConventions:
    date_order: DateOrder | None = None
    templates: dict[str, str] = field(default_factory=dict)  # folder → why it is one
    warnings: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        """Changes whenever a setting that changes how notes parse changes (memo key)."""
        text = json.dumps([self.date_order, sorted(self.templates.items())])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _date_order(root: Path) -> tuple[DateOrder | None, tuple[str, ...]]:
    path = root / VAULT_SETTINGS
    try:
        data = load_settings_yaml(root, path)
    except SettingsFileUnreadable as exc:
        return None, (f"{VAULT_SETTINGS} ignored: {str(exc).removeprefix(f'{path}: ')}",)
    except (OSError, yaml.YAMLError) as exc:
        return None, (f"{VAULT_SETTINGS} ignored: cannot read it ({type(exc).__name__})",)
    if data is None:
        return None, ()
    if not isinstance(data, dict):
        return None, (f"{VAULT_SETTINGS} ignored: expected 'key: value' lines",)
    value = data.get("date_order")
    if value is None:
        return None, ()
    order = str(value).strip().upper()
    if order not in DATE_ORDERS:
        return None, (f"{VAULT_SETTINGS}: date_order {value!r} ignored: expected one of {', '.join(DATE_ORDERS)}",)
    return order, ()  # type: ignore[return-value]


def load_conventions(root: Path) -> VaultConventions:
    """The vault's settings; a bad setting is ignored with a warning, never fatal."""
    order, warnings = _date_order(root)
    return VaultConventions(date_order=order, templates=template_folders(root), warnings=warnings)
