"""The one console setup and error style of every ``lucasrag`` command."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import typer
from rich.console import Console

from lucasrag.settings import Settings, SettingsError, mask_secrets

# Wide tables when piped: a log or a test reads them, not a narrow terminal (unless COLUMNS says otherwise).
out = Console(width=None if sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit() else 200)
err = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr (passwords masked) and exit with ``code`` (2: bad input)."""
    err.print(f"[bold red]error:[/] {mask_secrets(message)}", highlight=False)
    raise typer.Exit(code)


def settings(**overrides) -> Settings:
    """The settings from the environment plus ``overrides``; a bad setting exits 2 with its reason."""
    try:
        return Settings.from_env(**overrides)
    except SettingsError as exc:
        fail(str(exc), 2)
