"""Dependencies point one way: surfaces (lucasrag_cli) → harness (lucasrag_harness: the lab, which uses the
product) → write side (lucasrag_assets) / read side (lucasrag_query) → core (lucasrag). The write side and
the read side never import each other. And no test module imports
another (or conftest): tests share through fixtures of ``pytest_plugins`` plugins.

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
    "lucasrag_assets": {"lucasrag_query", "lucasrag_cli", "lucasrag_harness"},
    "lucasrag_harness": set(),  # the lab uses the product; its commands are a plugin of the CLI
    "lucasrag_cli": {"lucasrag_harness"},  # the lab's commands come in through the plugin entry points
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
    assert packages <= set(FORBIDDEN)


@pytest.mark.parametrize(
    ("package", "source", "caught"),
    [
        ("lucasrag", "from lucasrag_assets.ingest import run_ingest\n", True),
        ("lucasrag", "def f():\n    import lucasrag_assets.rules.routing.router\n", True),
        ("lucasrag", "def f():\n    from lucasrag_harness.local_servers import start_services\n", True),
        ("lucasrag_query", "from lucasrag_cli import app\n", True),
        ("lucasrag_query", "async def f():\n    from lucasrag_harness.evaluation import recall\n", True),
        ("lucasrag_assets", "if True:\n    from lucasrag_cli._console import fail\n", True),
        ("lucasrag_assets", "def f():\n    from lucasrag_harness.care_training import training\n", True),
        ("lucasrag_assets", "from lucasrag_query.policy import apply_policy\n", True),
        ("lucasrag_cli", "from lucasrag_harness.commands import register\n", True),
        ("lucasrag_harness", "from lucasrag_assets.ingest import run_ingest\n", False),
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


# --------------------------------------------------------------------------- tests share through fixtures

TESTS = REPO / "tests"


def _is_test_module(name: str) -> bool:
    """A dotted name that ends at a test module or conftest (``test_query``, ``tests.test_locomo``)."""
    last = name.rpartition(".")[2]
    return last.startswith("test_") or last == "conftest"


def imports_of_test_modules(source: str) -> list[tuple[int, str]]:
    """(line, name) of every import in ``source`` of a test module or of conftest: ``import test_x``,
    ``from tests.test_x import y``, ``from tests import test_x``, ``from . import test_x``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if _is_test_module(module):
                found.append((node.lineno, module))
            elif node.level or module.rpartition(".")[2] == "tests":  # from a test package: names may be modules
                found += [(node.lineno, f"{module}.{a.name}") for a in node.names if _is_test_module(a.name)]
    return found


def imports_between_tests(root: Path) -> list[str]:
    return [
        f"{path.relative_to(root)}:{line} imports {name} (share through a fixture in a pytest_plugins plugin)"
        for path in sorted(root.rglob("*.py"))
        for line, name in imports_of_test_modules(path.read_text())
    ]


def test_no_test_module_imports_another():
    assert imports_between_tests(TESTS) == []


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("import test_query as query_checks\n", True),
        ("import pytest\nimport test_graph\n", True),
        ("def f():\n    from tests.test_locomo import _sample\n", True),
        ("from tests import test_locomo\n", True),
        ("from . import test_query\n", True),
        ("from conftest import make_settings\n", True),
        ("import services_fixtures\n", False),
        ("from lucasrag_query import query\n", False),
        ("from lucasrag.testing import test_mode\n", False),  # a name, not a module of the tests
    ],
)
def test_the_test_import_checker_catches_an_injected_import(tmp_path, source, caught):
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_injected.py").write_text(source)
    found = imports_between_tests(tmp_path)
    assert bool(found) is caught, found
    if caught:
        assert found[0].startswith("sub/test_injected.py:")
