"""Commands from plugins: every entry point of the ``lucasrag.commands`` group is a function that takes the
Typer app and adds its commands (simonw/llm's ``register_commands`` hook, with plain entry points).

The lab registers ``eval``, ``services`` and ``reranker`` this way (``lucasrag_harness.commands``); a plain
``pip install lucasrag`` has none of them, ``pip install 'lucasrag[harness]'`` brings them.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import typer

GROUP = "lucasrag.commands"


def load_plugins(app: typer.Typer) -> list[str]:
    """Let every installed plugin add its commands; a plugin that fails to load is reported and skipped."""
    loaded = []
    for entry in entry_points(group=GROUP):
        try:
            entry.load()(app)
        except Exception as exc:  # a broken plugin must not take the product's commands down with it
            print(f"lucasrag: plugin {entry.name!r} ({entry.value}) not loaded: {exc}", file=sys.stderr)
            continue
        loaded.append(entry.name)
    return loaded
