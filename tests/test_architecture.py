"""The house rules of imports, read from the source with `ast`.

Packages of `bot/` have ranks (see `bot/__init__.py`); a module may import its own package
and packages of lower rank, never higher. Platforms of the same rank do not import each
other. `digest` imports nothing of `bot`, and its packages have ranks of their own, in the
order of the pipeline (`DIGEST_RANKS`): reading a change comes before ranking it, ranking
before composing, composing before rewriting and printing. No import loop exists between
modules, and no module outgrows a reader's sitting (`MAX_LINES`).
Imports under `if TYPE_CHECKING:` are for type checkers only and are not counted.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package (the first component under bot/) → rank; a module directly in bot/ is its own name
RANKS = {
    "errors": 0,
    "settings": 0,
    "settings_sections": 0,
    "config_errors": 0,
    "metrics": 0,
    "logs": 0,
    "progress": 0,
    "store": 1,
    "migrations": 1,
    "delivery": 2,
    "acks": 3,
    "schedule": 4,
    "commands": 5,
    "chat": 6,
    "slack": 7,
    "discord": 7,
    "web": 7,
    "realtime": 7,
    "app": 8,
}

# package (the first component under digest/) → rank, in the order of the pipeline
DIGEST_RANKS = {
    "errors": 0,
    "model": 0,
    "backoff": 0,
    "prose_settings": 0,
    "config": 1,
    "english": 1,
    "untrusted": 1,
    "reading": 2,
    "rank": 3,
    "budget": 3,
    "sources": 3,
    "select": 4,
    "check": 5,
    "compose": 6,
    "prose": 7,
    "render": 7,
    "pipeline": 8,
}
# A module past this is read in more than one sitting: split it where its concepts part,
# not at a line count.
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts  # a package folder has no suffix
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def runtime_imports(path: Path) -> set[str]:
    """Absolute names of `bot`/`digest` modules a file imports at run time (any depth)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if _type_checking_block(node):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module_name(path if path.name == "__init__.py" else path.parent)
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # `from bot.commands import grammar` imports the module bot.commands.grammar
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name.split(".")[0] in {"bot", "digest"}}


def _sources(top: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / top).rglob("*.py"))}


MODULES = {**_sources("bot"), **_sources("digest")}


def _existing(name: str) -> str | None:
    """The module an imported name refers to (`bot.store.Store` → `bot.store`)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = {_existing(imported) for imported in runtime_imports(path)}
        edges[name] = {t for t in targets if t and t != name}
    return edges


def rank_of(module: str) -> tuple[str, int] | None:
    parts = module.split(".")
    if parts[0] != "bot" or len(parts) == 1:
        return None
    area = parts[1]
    return area, RANKS[area]


def digest_rank_of(module: str) -> tuple[str, int] | None:
    parts = module.split(".")
    if parts[0] != "digest" or len(parts) == 1:
        return None
    return parts[1], DIGEST_RANKS[parts[1]]


def _not_lower(source: int, destination: int) -> bool:
    return destination >= source


def downward_offenders(
    edges: dict[str, set[str]], rank: Callable, against: Callable[[int, int], bool] = _not_lower
) -> list[str]:
    """Imports from one package to another whose rank is `against` the source's (by
    default: the same or a higher rank)."""
    offenders = []
    for name, targets in edges.items():
        source = rank(name)
        if source is None:
            continue
        for target in targets:
            destination = rank(target)
            if destination is None or destination[0] == source[0]:
                continue
            if against(source[1], destination[1]):
                offenders.append(f"{name} (rank {source[1]}) imports {target}")
    return sorted(offenders)


def test_every_bot_package_has_a_rank() -> None:
    areas = {module.split(".")[1] for module in MODULES if module.startswith("bot.")}
    assert areas <= set(RANKS), f"give these a rank in RANKS: {sorted(areas - set(RANKS))}"


def test_digest_imports_nothing_of_bot() -> None:
    offenders = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        if name.startswith("digest")
        for target in targets
        if target.startswith("bot")
    ]
    assert offenders == []


def test_every_digest_package_has_a_rank() -> None:
    areas = {module.split(".")[1] for module in MODULES if module.startswith("digest.")}
    missing = sorted(areas - set(DIGEST_RANKS))
    assert missing == [], f"give these a rank in DIGEST_RANKS: {missing}"


def test_digest_imports_point_down_the_pipeline() -> None:
    offenders = downward_offenders(graph(), digest_rank_of)
    assert offenders == [], "imports against the pipeline:\n" + "\n".join(offenders)


def test_the_pipeline_check_sees_an_import_back_up() -> None:
    edges = {"digest.reading.titles": {"digest.compose.phrases", "digest.model"}}
    assert downward_offenders(edges, digest_rank_of) == [
        "digest.reading.titles (rank 2) imports digest.compose.phrases"
    ]


def test_no_module_outgrows_a_sitting() -> None:
    long = {
        name: lines
        for name, path in MODULES.items()
        if "migrations" not in name
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these where their concepts part (over {MAX_LINES} lines): {long}"


def test_bot_imports_point_down() -> None:
    def against(source: int, destination: int) -> bool:
        # a package may import one of its own rank, but platforms never each other
        return destination > source or destination == source == RANKS["slack"]

    offenders = downward_offenders(graph(), rank_of, against)
    assert offenders == [], "upward or sideways imports:\n" + "\n".join(offenders)


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import loop as a list of modules, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := walk(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := walk(node)):
            return cycle
    return None


def _package_inits_excluded(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ re-exporting its modules is not a loop with them.
    return {
        node: {t for t in targets if not node.startswith(t + ".") and not t.startswith(node + ".")}
        for node, targets in edges.items()
    }


def test_no_import_loop() -> None:
    cycle = find_cycle(_package_inits_excluded(graph()))
    assert cycle is None, "import loop: " + " → ".join(cycle or [])


@pytest.mark.parametrize(
    ("edges", "loop"),
    [
        ({"a": {"b"}, "b": {"a"}}, True),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, False),
    ],
)
def test_cycle_finder(edges: dict[str, set[str]], loop: bool) -> None:
    assert (find_cycle(edges) is not None) is loop


def test_rank_check_sees_an_upward_import(tmp_path: Path) -> None:
    source = tmp_path / "bot" / "store" / "bad.py"
    source.parent.mkdir(parents=True)
    source.write_text("from bot.app.service import Service\nfrom bot.settings import Settings\n")
    imported = runtime_imports(source)
    assert {"bot.app.service", "bot.settings"} <= imported
    assert rank_of("bot.store.bad")[1] < rank_of("bot.app.service")[1]


def test_type_checking_imports_are_not_counted(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.app import service\n"
    )
    assert runtime_imports(source) == set()


def test_every_name_callers_import_from_a_bot_module_exists() -> None:
    """Every `from bot.x import Name` in bot/, tests/ and bench/ names a module that has
    `Name`, so an import a move left stale fails here (see tests/test_imports.py)."""
    import importlib

    def exists(module_name: str, name: str) -> bool:
        module = importlib.import_module(module_name)
        return hasattr(module, name) or f"{module_name}.{name}" in MODULES

    missing = []
    for top in ("bot", "tests", "bench"):
        for path in sorted((ROOT / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
                    continue
                if not node.module.startswith("bot.") or node.module.startswith("bot.migrations"):
                    continue
                missing += [
                    f"{path.relative_to(ROOT)}: {node.module}.{alias.name}"
                    for alias in node.names
                    if not exists(node.module, alias.name)
                ]
    assert missing == []
