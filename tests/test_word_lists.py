"""A word list is written once: no module of `digest/` writes out by hand a list of words
that another module also writes. A list built from another (`FAULT_ADJECTIVES | words(…)`)
counts only the words it adds. Read from the source with `ast`."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Two lists are one written twice when they share this many words, and this share of the
# smaller one.
MIN_SHARED = 3
MIN_SHARE = 0.8


def written_lists(path: Path) -> dict[str, set[str]]:
    """Each module-level name of `path` assigned a collection of words, with the words its
    own assignment writes: the items of a set or tuple literal, and each word of a string
    given to `words("…")`. Regular expressions, dicts and `Literal[…]` types are not lists."""
    found: dict[str, set[str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        value = node.value
        if not names or isinstance(value, ast.Dict | ast.Subscript):
            continue
        if any(
            isinstance(n, ast.Call) and ast.unparse(n.func) == "re.compile" for n in ast.walk(value)
        ):
            continue
        spaced = {
            id(arg)
            for call in ast.walk(value)
            if isinstance(call, ast.Call) and ast.unparse(call.func) == "words"
            for arg in call.args
        }
        written: set[str] = set()
        for constant in ast.walk(value):
            if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                items = constant.value.split() if id(constant) in spaced else [constant.value]
                written |= {
                    w.lower() for w in items if w.replace("'", "").replace("-", "").isalpha()
                }
        if len(written) >= MIN_SHARED:
            found[names[0]] = written
    return found


def lists_written_twice(root: Path) -> list[str]:
    """Pairs of lists in different modules of `root` that are one list written twice."""
    lists = [
        (str(path.relative_to(root.parent)), name, written)
        for path in sorted(root.rglob("*.py"))
        for name, written in written_lists(path).items()
    ]
    twice = []
    for (one, name_one, a), (other, name_other, b) in itertools.combinations(lists, 2):
        shared = a & b
        if one != other and len(shared) >= max(MIN_SHARED, MIN_SHARE * min(len(a), len(b))):
            twice.append(f"{one}:{name_one} and {other}:{name_other} share {sorted(shared)}")
    return twice


def test_no_word_list_is_written_in_two_modules() -> None:
    twice = lists_written_twice(ROOT / "digest")
    assert twice == [], "write each list once and build the other from it:\n" + "\n".join(twice)


def test_a_list_written_twice_is_found_and_a_built_one_is_not(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "nouns.py").write_text('PROBLEMS = words("bug crash leak race hang")\n')
    (package / "articles.py").write_text(
        'FAULTS = frozenset({"bug", "crash", "leak", "hang"})\n'
        'MORE = PROBLEMS | words("error failure")\n'
        'PATTERN = re.compile("bug crash leak hang")\n'
    )
    assert lists_written_twice(package) == [
        "pkg/articles.py:FAULTS and pkg/nouns.py:PROBLEMS share ['bug', 'crash', 'hang', 'leak']"
    ]
