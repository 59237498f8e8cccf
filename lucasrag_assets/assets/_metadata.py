"""Small helpers that turn tables into Dagster metadata."""

import polars as pl


def markdown_table(frame: pl.DataFrame, limit: int = 200) -> str:
    """A Markdown table for the Dagster UI (first ``limit`` rows)."""
    if frame.is_empty():
        return "_none_"
    header = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
    rows = frame.head(limit).iter_rows()
    body = "\n".join(
        "| " + " | ".join("" if v is None else str(v).replace("|", "\\|") for v in row) + " |" for row in rows
    )
    more = f"\n\n_{len(frame) - limit} more rows_" if len(frame) > limit else ""
    return header + body + more
