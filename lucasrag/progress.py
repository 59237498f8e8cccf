"""Progress reporting: the one protocol long stages report into.

The stages (indexing a workspace, a migration) call ``update``; who listens is the caller's
choice: the CLI passes a progress bar (``lucasrag_cli._progress``), the Dagster UI reports
through logs and metadata and gets :class:`NullProgress`.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def update(self, stage: str, done: int, total: int) -> None:
        """``done`` of ``total`` units of ``stage`` are finished (called repeatedly, ``done`` grows)."""


class NullProgress:
    """Listens to nothing: the default when no one shows progress."""

    def update(self, stage: str, done: int, total: int) -> None:
        pass
