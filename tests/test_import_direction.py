"""Dependencies point one way: surfaces (lucasrag_cli) → write side (lucasrag_assets) /
read side (lucasrag_query) / harness (lucasrag_harness) → core (lucasrag).

An AST walk over every module, so an import inside a function (a lazy import) counts
as much as one at the top; relative imports are resolved against the module's package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: package → the top-level packages none of its modules may import
FORBIDDEN = {
    "lucasrag": {"lucasrag_assets", "lucasrag_query", "lucasrag_cli", "lucasrag_harness"},
    "lucasrag_query": {"lucasrag_assets", "lucasrag_cli", "lucasrag_harness"},
    "lucasrag_harness": {"lucasrag_assets", "lucasrag_cli"},
    "lucasrag_assets": {"lucasrag_cli"},
}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, *, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import statement in ``source``, wherever it stands."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def violations(root: Path, forbidden: dict[str, set[str]] = FORBIDDEN) -> list[str]:
    """``path:line imports X`` for every module under ``root`` that imports a forbidden package."""
    problems = []
    for package, banned in forbidden.items():
        for path in sorted((root / package).rglob("*.py")):
            module = _module_name(path, root)
            for line, name in imported_modules(path.read_text(), module, is_package=path.name == "__init__.py"):
                top = name.split(".")[0]
                if top in banned:
                    problems.append(f"{path.relative_to(root)}:{line} imports {name} ({package} must not import {top})")
    return problems


def test_packages_import_only_downstream():
    assert violations(REPO) == []


def test_every_package_is_checked():
    packages = {p.parent.name for p in REPO.glob("*/__init__.py")}
    assert set(FORBIDDEN) | {"lucasrag_cli"} <= packages


@pytest.mark.parametrize(
    ("package", "source", "caught"),
    [
        ("lucasrag", "from lucasrag_assets.ingest import run_ingest\n", True),
        ("lucasrag", "def f():\n    import lucasrag_assets.rules.routing\n", True),
        ("lucasrag", "def f():\n    from lucasrag_harness.services import start_services\n", True),
        ("lucasrag_query", "from lucasrag_cli import app\n", True),
        ("lucasrag_query", "async def f():\n    from lucasrag_harness.evaluation import recall\n", True),
        ("lucasrag_assets", "if True:\n    from lucasrag_cli._console import fail\n", True),
        ("lucasrag_harness", "from lucasrag_assets.ingest import run_ingest\n", True),
        ("lucasrag_assets", "from lucasrag.entities import note_meta\n", False),
        ("lucasrag_query", "from lucasrag.settings import Settings\n", False),
        ("lucasrag", "from .vocabulary import WORKSPACES\n", False),
    ],
)
def test_the_checker_catches_an_injected_import(tmp_path, package, source, caught):
    (tmp_path / package / "sub").mkdir(parents=True)
    (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / package / "sub" / "__init__.py").write_text("")
    (tmp_path / package / "sub" / "injected.py").write_text(source)
    found = violations(tmp_path)
    assert bool(found) is caught, found
    if caught:
        assert found[0].startswith(f"{package}/sub/injected.py:")


def test_relative_imports_resolve_against_the_package():
    # ``from ..x import y`` in lucasrag/sub/mod.py is lucasrag.x; in a package's __init__ one dot is the package.
    assert imported_modules("from ..x import y\n", "lucasrag.sub.mod") == [(1, "lucasrag.x")]
    assert imported_modules("from .x import y\n", "lucasrag.sub", is_package=True) == [(1, "lucasrag.sub.x")]
