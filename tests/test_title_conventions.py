"""Titles of every convention read as sentences: the clause an editor would write for each
synthetic title of tests/data/title_conventions.jsonl, its kind and its product.

The clause is what a story says after the subject: the title split (`split_title`), its
verb read (`split_verb`), the clause built (`clause`) and the article put back
(`with_article`), as `digest.compose` does. The expected clauses were written by hand
before the code that reads them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from digest.english.articles import with_article
from digest.english.case import acronym_case, headline_case
from digest.english.clauses import clause, split_kind_verb
from digest.reading.title_tags import is_product_tag, product_in_paths, type_prefix
from digest.reading.titles import split_title

_DATA = Path(__file__).parent / "data" / "title_conventions.jsonl"
CASES = [json.loads(line) for line in _DATA.read_text(encoding="utf-8").splitlines() if line]


def predicate(title: str) -> str:
    parts = split_title(title)
    verb, obj = split_kind_verb(parts.subject, parts.kind)
    return with_article(clause(obj, verb=verb, kind=parts.kind))


def test_the_set_covers_every_convention() -> None:
    assert len(CASES) >= 150
    assert len({c["title"] for c in CASES}) == len(CASES)
    notes = {c["note"] for c in CASES}
    for convention in (
        "upper-case type word",
        "stacked type words",
        "conventional commit with scope",
        "area prefix",
        "go package prefix",
        "crate prefix",
        "sub-product tag",
        "area tag, not a product",
        "emoji",
        "adverb-first imperative",
        "verb that is also a noun",
        "noun-phrase title",
        "semicolon list",
        "coordinated verbs",
        "article agreement",
        "identifier keeps its case",
        "fault stated as a sentence",
    ):
        assert convention in notes


@pytest.mark.parametrize("case", CASES, ids=[c["title"] for c in CASES])
def test_each_title_reads_as_an_editor_would_write_it(case: dict[str, str]) -> None:
    """A case with a `gap` is one the code does not yet read as an editor would, and says
    why: it is expected to fail, and passes the day the gap is closed (strict xfail)."""
    if "gap" in case:
        if predicate(case["title"]) == case["clause"]:
            pytest.fail(f"the gap is closed, drop it from the data: {case['title']}")
        pytest.xfail(case["gap"])
    parts = split_title(case["title"])
    assert predicate(case["title"]) == case["clause"]
    if "kind" in case:
        assert parts.kind == case["kind"]
    assert parts.product == case.get("product")


@pytest.mark.parametrize(
    ("text", "kinds", "rest"),
    [
        ("TST FIX Make X pass", ("test", "fix"), "Make X pass"),
        ("CI Move slow tests", ("ci",), "Move slow tests"),
        ("CI jobs for ARM", (), "CI jobs for ARM"),
        ("CI/CD pipeline docs", (), "CI/CD pipeline docs"),
        ("API reference for widgets", (), "API reference for widgets"),
        ("API: Deprecate X", ("api",), "Deprecate X"),
        ("BUG, TST: Fix seed", ("fix", "test"), "Fix seed"),
        ("FEAT", (), "FEAT"),
        ("GPU kernels for X", (), "GPU kernels for X"),
    ],
)
def test_type_words_are_read_by_position_not_by_spelling_alone(
    text: str, kinds: tuple[str, ...], rest: str
) -> None:
    found, _, remainder = type_prefix(text)
    assert (found, remainder) == (kinds, rest)


@pytest.mark.parametrize(
    ("tag", "prefix", "product"),
    [
        ("ty", True, True),
        ("uv-resolver", True, True),
        ("polars-plan", True, True),
        ("ruff_linter", True, True),
        ("create-vite", False, True),
        ("parser", True, False),
        ("docs", True, False),
        ("css", False, False),
        ("MLX", True, False),
        ("Arm", True, False),
        ("net/http", True, False),
        ("gemma4_31b", True, False),
        ("bundled-dev", False, False),
        ("glob-import", False, False),
        ("FIX", True, False),
        ("optimizer", False, False),
        ("optimizer", True, False),
        ("partitioner", True, False),
        ("quantized", True, False),
        ("exir", True, True),
        ("blog", False, False),
    ],
)
def test_a_product_is_told_from_an_area_by_its_shape(tag: str, prefix: bool, product: bool) -> None:
    """A tag on its own (`[tag]`, `tag:`) may be a crate of ordinary words; a scope must
    have a part that is no English word."""
    assert is_product_tag(tag, prefix=prefix) is product


def test_a_product_is_confirmed_by_the_files_it_touches() -> None:
    assert product_in_paths("ty", ["crates/ty_python_semantic/src/types.rs"])
    assert product_in_paths("uv-resolver", ["crates/uv-resolver/src/lib.rs"])
    assert product_in_paths("create-vite", ["packages/create-vite/index.ts"])
    assert product_in_paths("polars-plan", ["polars-plan/src/lib.rs"])
    assert not product_in_paths("ty", ["crates/ruff_linter/src/rules.rs", "typing.py"])
    assert not product_in_paths("cuda", ["backends/cuda/runtime.cpp"])


@pytest.mark.parametrize(
    ("text", "headline"),
    [
        ("ci-infra adds proactive_capacity", "CI-INFRA ADDS proactive_capacity"),
        ("uv implements From<OwnedFd> for Socket", "UV IMPLEMENTS From<OwnedFd> FOR SOCKET"),
        (
            "polars uses HashMap<K, V> and torch.compile",
            "POLARS USES HashMap<K, V> AND torch.compile",
        ),
        ("uv moves src/cli/main.rs", "UV MOVES src/cli/main.rs"),
        (
            "polars adds Expr.is_empty and LazyFrame.gather",
            "POLARS ADDS Expr.is_empty AND LazyFrame.gather",
        ),
        ("vite uses node_modules/.vite as cacheDir", "VITE USES node_modules/.vite AS cacheDir"),
        ("vite adds `--force` and getConfig()", "VITE ADDS `--force` AND getConfig()"),
        ("vite adds the --force flag", "VITE ADDS THE --force FLAG"),
        (
            "ExecuTorch adds e.g. Python 3.15 wheels on macOS",
            "EXECUTORCH ADDS E.G. PYTHON 3.15 WHEELS ON MACOS",
        ),
        ("ExecuTorch adds ScalelessRMSNorm", "EXECUTORCH ADDS SCALELESSRMSNORM"),
        (
            "PEFT fixes a bug targeting an nn.Parameter",
            "PEFT FIXES A BUG TARGETING AN nn.Parameter",
        ),
        ("vite fixes a cache key for /@fs/ paths", "VITE FIXES A CACHE KEY FOR /@fs/ PATHS"),
        # a plural or possessive ending on code is the code's
        ("polars uses `Series`s and `df`'s schema", "POLARS USES `Series`s AND `df`'s SCHEMA"),
        # a pre-release's letters are part of its version: "2.14.0A1" is none
        ("pydantic 2.14.0a1 is out", "PYDANTIC 2.14.0a1 IS OUT"),
        ("astro 5.0.0-beta.2 is out", "ASTRO 5.0.0-beta.2 IS OUT"),
        ("vite 8.0.16 is out", "VITE 8.0.16 IS OUT"),
    ],
)
def test_a_headline_is_upper_case_but_for_identifiers(text: str, headline: str) -> None:
    assert headline_case(text) == headline


def test_a_headline_keeps_the_case_of_words_run_together_in_what_a_change_did() -> None:
    text = "uses config.Secret for ServiceAccountKey and PrivateKey"
    assert headline_case(text, compounds=True) == (
        "USES config.Secret FOR ServiceAccountKey AND PrivateKey"
    )
    assert headline_case("ExecuTorch") == "EXECUTORCH"  # a project's name is upper-cased


@pytest.mark.parametrize(
    ("text", "cased"),
    [
        ("truncates the list of files on hmr update", "truncates the list of files on HMR update"),
        ("fixes class keys in ssr", "fixes class keys in SSR"),
        ("documents the public apis", "documents the public APIs"),
        # names, paths, files, code and links keep their case
        ("updates ci-infra runners", "updates ci-infra runners"),
        ("splits api.ts and `ui` out of src/cli/", "splits api.ts and `ui` out of src/cli/"),
        ("links https://x.example/api and maps", "links https://x.example/api and maps"),
        # a plural keeps its lower-case "s"
        ("adds a cache for uris and maps", "adds a cache for URIs and maps"),
    ],
)
def test_prose_writes_technical_abbreviations_in_capitals(text: str, cased: str) -> None:
    assert acronym_case(text) == cased
