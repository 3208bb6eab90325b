"""Each name of `bot/` and `digest/` has one address: where it is defined.

A caller (in bot/, tests/ or bench/) imports a name from the module that defines it, never
from a module that merely imports it too (a re-export left behind by a move), and never a
name private to another module (`_name`). Only a package's `__init__` may gather names of
its modules, as the front door it documents (`bot.store`, `bot.web`, `bot.realtime`).
Read from the source with `ast`, like tests/test_architecture.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALLERS = ("bot", "digest", "tests", "bench")
PACKAGES = ("bot", "digest")


def source_of(module: str) -> Path | None:
    """The file of a `bot` or `digest` module, or None when `module` is no module."""
    path = ROOT.joinpath(*module.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def defined_and_imported(path: Path) -> tuple[set[str], set[str]]:
    """The names a module binds at its top level (also under `if`), split into those it
    defines and those it imports."""
    defined: set[str] = set()
    imported: set[str] = set()
    body = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while body:
        node = body.pop(0)
        if isinstance(node, ast.If | ast.Try):
            body += node.body + node.orelse
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
    return defined, imported


def from_imports(top: str) -> list[tuple[str, int, str, str]]:
    """(file, line, module, name) of every `from bot.… import name` (or `digest.…`) under
    `top`."""
    found = []
    for path in sorted((ROOT / top).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").split(".")[0] in PACKAGES
            ):
                rel = str(path.relative_to(ROOT))
                found += [(rel, node.lineno, str(node.module), a.name) for a in node.names]
    return found


def offenders() -> tuple[list[str], list[str]]:
    """Imports of a name through a module that only passes it along, and of private names."""
    passed_along, private = [], []
    for top in CALLERS:
        for rel, line, module, name in from_imports(top):
            path = source_of(module)
            if path is None or source_of(f"{module}.{name}") is not None:
                continue  # not a bot module, or `from bot.x import submodule`
            where = f"{rel}:{line}: {module}.{name}"
            if name.startswith("_"):
                private.append(where)
            defined, imported = defined_and_imported(path)
            if path.name != "__init__.py" and name in imported and name not in defined:
                passed_along.append(where)
    return passed_along, private


def test_names_are_imported_from_where_they_are_defined() -> None:
    passed_along, _ = offenders()
    assert passed_along == [], "import these from their own module:\n" + "\n".join(passed_along)


def test_no_private_name_is_imported_from_another_module() -> None:
    _, private = offenders()
    assert private == [], "make these public, or keep them in their module:\n" + "\n".join(private)


def test_only_a_package_gathers_names_with_all() -> None:
    gathering = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name != "__init__.py"
        and any(
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    ]
    assert gathering == []


def test_the_check_sees_a_re_export_and_a_private_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from bot.store.types import utcnow\n_SECRET = 1\n\ndef own(): ...\n")
    defined, imported = defined_and_imported(module)
    assert "utcnow" in imported and "utcnow" not in defined
    assert {"_SECRET", "own"} <= defined
