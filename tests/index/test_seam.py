"""The index layer's seam: LightRAG is imported only by ``lucasrag/index/_lightrag/``, and that
package only from inside ``lucasrag/index/`` — everything else goes through ``lucasrag.index``."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: every top-level package (core, read side, write side, CLI, harness) and the benchmark scripts
PACKAGES = (*sorted(p.parent.name for p in REPO.glob("*/__init__.py")), "benchmarks")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _modules(*, outside: str) -> list[Path]:
    return [
        p
        for package in PACKAGES
        for p in sorted((REPO / package).rglob("*.py"))
        if not p.is_relative_to(REPO / outside)
    ]


def _offenders(outside: str, forbidden: str) -> list[str]:
    return [
        f"{p.relative_to(REPO)} imports {name}"
        for p in _modules(outside=outside)
        for name in _imports(p)
        if name == forbidden or name.startswith(forbidden + ".")
    ]


@pytest.mark.parametrize(
    ("outside", "forbidden"),
    [
        ("lucasrag/index/_lightrag", "lightrag"),
        ("lucasrag/index", "lucasrag.index._lightrag"),
    ],
)
def test_only_the_seam_imports_what_is_behind_it(outside, forbidden):
    assert not _offenders(outside, forbidden)


def test_every_package_is_checked():
    assert {"lucasrag", "lucasrag_query", "lucasrag_assets", "lucasrag_cli", "lucasrag_harness"} <= set(PACKAGES)


def test_the_check_sees_an_offending_import(tmp_path):
    """The AST check itself: a module that imports LightRAG is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from lightrag.utils import GRAPH_FIELD_SEP\n")
    assert "lightrag.utils" in _imports(bad)
