"""The deference list: ``<vault>/.lucasrag/deference.yaml``.

```yaml
subjects:
  - name: Grandad Tom              # required
    aliases: [grandad, grandpa tom] # optional: other ways the vault names the subject
    withhold: every-reference       # optional: every-reference (default) | charged-only
    since: 2012-10-01               # optional: references written before this date are released unless charged
```

Every error names the file, the subject and the fix; an unknown key is an error (a misspelt
``witheld:`` must not silently fall back to the default).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import yaml

from lucasrag.vault_settings import SettingsFileUnreadable, load_settings_yaml
from lucasrag.vocabulary import WITHHOLD_POLICIES, DeferenceSubject

SUBJECT_KEYS = ("name", "aliases", "withhold", "since")


class DeferenceConfigError(ValueError):
    """deference.yaml exists but cannot be used; the message says why and where."""


def deference_path(vault: Path) -> Path:
    return vault / ".lucasrag" / "deference.yaml"


def _since(value: object, where: str) -> date | None:
    """``since:`` as written: a date (YAML reads 2012-10-01 as one), ``YYYY-MM-DD``, ``YYYY-MM`` or a year."""
    if value is None:
        return None
    if isinstance(value, date):
        return value
    text = str(value).strip()
    for pad in ("", "-01", "-01-01"):  # a day, a month, a year
        try:
            return date.fromisoformat(text + pad)
        except ValueError:
            continue
    raise DeferenceConfigError(f"{where}: 'since' must be a date like 2012-10-01 (or 2012-10, 2012), not {value!r}")


def _subject(entry: object, i: int, path: Path) -> DeferenceSubject:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
        raise DeferenceConfigError(f"{path}: subject #{i + 1} needs a non-empty 'name'")
    name = entry["name"].strip()
    where = f"{path}: subject {name!r}"
    unknown = sorted(str(k) for k in entry if k not in SUBJECT_KEYS)
    if unknown:
        raise DeferenceConfigError(
            f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"a subject takes {', '.join(SUBJECT_KEYS)}"
        )
    aliases = entry.get("aliases") or []
    if isinstance(aliases, str):
        aliases = [aliases]
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise DeferenceConfigError(f"{where}: 'aliases' must be a list of strings, e.g. [grandad, grandpa tom]")
    withhold = entry.get("withhold") or "every-reference"
    if withhold not in WITHHOLD_POLICIES:
        raise DeferenceConfigError(
            f"{where}: 'withhold' must be one of {', '.join(WITHHOLD_POLICIES)}, not {withhold!r} "
            "(every-reference withholds each passage that refers to the subject until released; "
            "charged-only only passages inferred or marked charged)"
        )
    return DeferenceSubject(
        name, tuple(a.strip() for a in aliases if a.strip()), withhold, _since(entry.get("since"), where)
    )


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
    subjects = [_subject(entry, i, path) for i, entry in enumerate(entries)]
    seen: dict[str, str] = {}
    for s in subjects:
        for n in s.names:
            other = seen.setdefault(n.casefold(), s.name)
            if other != s.name:
                raise DeferenceConfigError(
                    f"{path}: {n!r} names both {other!r} and {s.name!r}; give each subject names of its own"
                )
    return tuple(subjects)
