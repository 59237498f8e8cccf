"""Vault-level routing rules: ``<vault>/.lucasrag/routing.yaml`` (a person's decision per folder or tag).

```yaml
folders:                 # vault-relative folder → workspace; the deepest matching folder wins
  01 Projects: technical
  02 Areas/Personal/Finance: administrative
tags:                    # a note tag → workspace; used when no folder rule matches
  recipe: personal
```

A note's own ``workspace:`` frontmatter still wins over a rule; a rule wins over the
router's content scores. ``lucasrag route suggest`` proposes folder rules from the
last ingest (:func:`suggest_folder_rules`); nothing is written without ``--write``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from lucasrag.vault_settings import SettingsFileUnreadable, load_settings_yaml
from lucasrag.vocabulary import WORKSPACES


class RoutingRulesError(ValueError):
    """routing.yaml exists but cannot be used; the message names the file and the entry."""


def routing_rules_path(vault: Path) -> Path:
    return vault / ".lucasrag" / "routing.yaml"


@dataclass(frozen=True)
class RoutingRules:
    folders: Mapping[str, str] = field(default_factory=dict)  # normalised folder (no slashes at the ends) → ws
    tags: Mapping[str, str] = field(default_factory=dict)  # case-folded tag → ws

    def match(self, path: str, tags: Iterable[str] = ()) -> tuple[str, str] | None:
        """``(workspace, reason)`` of the rule that covers the note at ``path``, or None."""
        parents = PurePosixPath(path).parts[:-1]
        for depth in range(len(parents), 0, -1):  # the deepest folder speaks loudest
            folder = "/".join(parents[:depth])
            if folder in self.folders:
                return self.folders[folder], f"folder rule {folder}/ → {self.folders[folder]} (routing.yaml)"
        for tag in tags:
            ws = self.tags.get(str(tag).casefold())
            if ws:
                return ws, f"tag rule #{tag} → {ws} (routing.yaml)"
        return None

    def __bool__(self) -> bool:
        return bool(self.folders or self.tags)


def _normalise_folder(name: object) -> str:
    return str(name).strip().strip("/")


def parse_routing_rules(raw: object, source: str = "routing.yaml") -> RoutingRules:
    """Validate the YAML mapping of a routing.yaml; RoutingRulesError names the bad entry."""
    if raw is None:
        return RoutingRules()
    if not isinstance(raw, dict):
        raise RoutingRulesError(f"{source}: expected a mapping with 'folders' and/or 'tags'")
    unknown = set(raw) - {"folders", "tags"}
    if unknown:
        raise RoutingRulesError(f"{source}: unknown key(s) {', '.join(sorted(map(str, unknown)))}: use folders, tags")
    parsed: dict[str, dict[str, str]] = {}
    for section, key_of in (("folders", _normalise_folder), ("tags", lambda t: str(t).strip().lstrip("#").casefold())):
        entries = raw.get(section) or {}
        if not isinstance(entries, dict):
            raise RoutingRulesError(f"{source}: '{section}' must map names to workspaces")
        parsed[section] = {}
        for name, ws in entries.items():
            if ws not in WORKSPACES:
                raise RoutingRulesError(
                    f"{source}: {section[:-1]} {name!r} → {ws!r}: expected one of {', '.join(WORKSPACES)}"
                )
            key = key_of(name)
            if not key:
                raise RoutingRulesError(f"{source}: empty {section[:-1]} name")
            parsed[section][key] = ws
    return RoutingRules(folders=parsed["folders"], tags=parsed["tags"])


def load_routing_rules(vault: Path) -> RoutingRules:
    """The vault's routing rules; empty when the file is absent."""
    path = routing_rules_path(vault)
    try:
        raw = load_settings_yaml(vault, path)  # a regular file inside the vault, bounded
    except SettingsFileUnreadable as exc:
        raise RoutingRulesError(str(exc)) from None
    except yaml.YAMLError as exc:
        raise RoutingRulesError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from exc
    if raw is None and not path.is_file():
        return RoutingRules()
    return parse_routing_rules(raw, str(path))


#: A folder rule is proposed when at least this many notes sit in the folder …
SUGGEST_MIN_NOTES = 3
#: … and at least this share of them point to the same workspace.
SUGGEST_MIN_SHARE = 0.8


@dataclass(frozen=True)
class FolderSuggestion:
    folder: str
    workspace: str
    agreeing: int
    notes: int

    @property
    def share(self) -> float:
        return self.agreeing / self.notes


def suggest_folder_rules(
    notes: Sequence[tuple[str, str | None]],
    existing: RoutingRules = RoutingRules(),  # noqa: B008 - frozen, never mutated
    *,
    min_notes: int = SUGGEST_MIN_NOTES,
    min_share: float = SUGGEST_MIN_SHARE,
) -> list[FolderSuggestion]:
    """Folder rules worth proposing from ``(path, workspace-or-suggestion)`` pairs.

    Every folder (at any depth) whose notes agree enough is a candidate; a candidate
    is dropped when an ancestor is already proposed (or ruled) with the same workspace,
    so the proposal stays short. Notes without a guess (None) count against agreement.
    """
    per_folder: dict[str, Counter] = {}
    for path, ws in notes:
        parents = PurePosixPath(path).parts[:-1]
        for depth in range(1, len(parents) + 1):
            per_folder.setdefault("/".join(parents[:depth]), Counter())[ws] += 1
    chosen: dict[str, str] = dict(existing.folders)
    out: list[FolderSuggestion] = []
    for folder in sorted(per_folder, key=lambda f: (f.count("/"), f)):  # ancestors first
        counts = per_folder[folder]
        total = sum(counts.values())
        ws, agreeing = max(((w, n) for w, n in counts.items() if w), key=lambda kv: kv[1], default=(None, 0))
        if ws is None or total < min_notes or agreeing / total < min_share:
            continue
        inherited = next(
            (chosen[a] for a in (folder.rsplit("/", k)[0] for k in range(1, folder.count("/") + 1)) if a in chosen),
            None,
        )
        if folder in existing.folders or inherited == ws:
            continue
        chosen[folder] = ws
        out.append(FolderSuggestion(folder, ws, agreeing, total))
    return out


def rules_yaml(rules: RoutingRules, suggestions: Sequence[FolderSuggestion] = ()) -> str:
    """routing.yaml text: the existing rules plus the suggestions, each with its evidence."""
    lines = [
        "# LucasRAG routing rules (docs/routing.md). Folder or tag → workspace; frontmatter still wins.",
        "folders:",
    ]
    for folder, ws in sorted(rules.folders.items()):
        lines.append(f"  {yaml.safe_dump(folder).strip().removesuffix('...').strip()}: {ws}")
    for s in suggestions:
        key = yaml.safe_dump(s.folder).strip().removesuffix("...").strip()
        lines.append(f"  {key}: {s.workspace}  # suggested: {s.agreeing} of {s.notes} notes")
    if not rules.folders and not suggestions:
        lines[-1] = "folders: {}"
    if rules.tags:
        lines.append("tags:")
        lines += [
            f"  {yaml.safe_dump(t).strip().removesuffix('...').strip()}: {ws}" for t, ws in sorted(rules.tags.items())
        ]
    return "\n".join(lines) + "\n"
