"""`lucasrag ingest` refuses a vault that is not a folder, saying which mistake it is."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from lucasrag_cli import app


@pytest.mark.parametrize(
    ("make_vault", "expected"),
    [
        (lambda tmp: (tmp / "passwd").write_text("root:x:0:0\n") and tmp / "passwd", "is a file, not a folder"),
        (lambda tmp: tmp / "no such folder", "does not exist"),
    ],
    ids=["a file", "missing"],
)
def test_ingest_names_what_is_wrong_with_the_vault(tmp_path, make_vault, expected):
    vault = make_vault(tmp_path)
    result = CliRunner().invoke(app, ["ingest", "--vault", str(vault)], env={"LUCASRAG_DATA": str(tmp_path / "data")})
    assert result.exit_code == 2, result.output
    assert expected in " ".join(result.output.split())
    assert not (tmp_path / "data").exists()  # refused before anything was written
