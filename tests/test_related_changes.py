"""Related changes folded into one sentence are each told: changes of one shape share a
clause with a citation per slot, and titles that differ by a name are never one change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from digest.compose import compose
from digest.compose.citations import MARKER
from digest.compose.slots import merged_predicate
from digest.config import Project, WireConfig
from digest.model import Activity, FileChange, Window
from digest.reading.classify import classify
from digest.select import same_change

WIDGETS = Project(repo="acme/widgets", name="Widgets")
CONFIG = WireConfig(projects=(WIDGETS,))
START = datetime(2026, 5, 4, tzinfo=UTC)


def change(title: str, n: int, path: str = "src/widgets/ops.cc") -> Activity:
    return Activity(
        repo="acme/widgets",
        sha=f"{n + 1:040x}",
        number=300 + n,
        title=title,
        landed_at=START + timedelta(hours=n),
        files=(FileChange(path=path, additions=40 + n, deletions=3),),
    )


OPS = [
    change("Adding backend support for scatter.src core ATen op", 0),
    change("Adding backend support for randn core ATen op", 1),
    change("Adding backend support for tan core ATen op", 2),
]


def test_titles_that_differ_by_a_name_are_two_changes_and_a_retelling_is_one() -> None:
    scatter, randn, _ = classify(OPS, CONFIG)
    assert not same_change(scatter, randn)
    twice = classify(
        [
            change("Fix shop deployment workflow error", 3),
            change("Fix shop deployment workflow error 2", 4),
        ],
        CONFIG,
    )
    assert same_change(*twice)
    # a noun's number tells no change apart: one sentence, not "X [1] and X, with …"
    plural = classify(
        [
            change("Keep SD clients from defeating dead-code elimination", 5),
            change("Keep SD client from defeating dead-code elimination", 6),
        ],
        CONFIG,
    )
    assert same_change(*plural)


def test_parts_of_one_series_are_one_change_however_the_part_is_written() -> None:
    # executorch's "MLX delegate (part 1)", "MLX delegate part 3" and "Mlx delegate part2"
    parts = classify(
        [
            change("Widget delegate (part 1)", 7),
            change("Widget delegate part 3", 8),
            change("widget delegate part2", 9),
        ],
        CONFIG,
    )
    assert {e.obj.lower() for e in parts} == {"widget delegate"}
    assert same_change(parts[0], parts[1]) and same_change(parts[0], parts[2])


def test_changes_of_one_shape_share_a_clause_with_a_citation_a_slot() -> None:
    # A crowded week, where a unit folds the changes like its lead.
    others = [
        change(f"Add the {word} option to the {area} module", 10 + i, f"src/widgets/{area}.py")
        for i, (word, area) in enumerate(
            [("retry", "net"), ("timeout", "net"), ("color", "ui"), ("theme", "ui"),
             ("cache", "store"), ("ttl", "store"), ("depth", "tree"), ("width", "tree"),
             ("seed", "rand"), ("scale", "rand"), ("limit", "queue"), ("batch", "queue")]
        )
    ]  # fmt: skip
    week = Window(since=START, until=START + timedelta(days=7))
    story = compose([*OPS, *others], config=CONFIG, window=week)
    text = " ".join(s.text for s in story.body)
    numbers = {r.sha: r.n for r in story.references}
    first = story.body[0].text
    assert first.startswith("Widgets adds backend support for ") and "core ATen ops." in first
    for op, name in zip(OPS, ("scatter.src", "randn", "tan"), strict=True):
        assert f"{name} [{numbers[op.sha]}]" in first, text


def test_a_slot_merge_declines_changes_that_differ_by_more_than_a_slot() -> None:
    merged = merged_predicate(
        ["adds backend support for tan", "fixes a crash in the scheduler when idle"], OPS[:2]
    )
    assert merged is None
    assert merged_predicate(["adds X for a", "adds X for a"], OPS[:2]) is None


def test_a_slot_merge_makes_the_shared_head_noun_plural_not_what_follows_it() -> None:
    merged = merged_predicate(
        ["adds a proxy option to the client", "adds a retry option to the client"], OPS[:2]
    )
    assert _read(merged, OPS[:2]) == "adds proxy [1] and retry [2] options to the client"
    flows = merged_predicate(
        ["adds support for `tanh` with the new flow", "adds support for `mean` with the new flow"],
        OPS[:2],
    )
    assert _read(flows, OPS[:2]) == "adds support for `tanh` [1] and `mean` [2] with the new flow"


def _read(merged: str | None, activities: list[Activity]) -> str | None:
    """`merged` with its citation markers as the numbers of `activities`, from [1]."""
    numbers = {f"{a.repo}@{a.sha}": n for n, a in enumerate(activities, start=1)}
    return None if merged is None else MARKER.sub(lambda m: f"[{numbers[m[1]]}]", merged)


def test_a_shared_head_noun_reads_as_a_plural_and_keeps_clear_of_topics() -> None:
    two = [change("Add a TOML parser", 0), change("Add a YAML parser", 1)]
    parsers = merged_predicate(["adds a TOML parser", "adds a YAML parser"], two)
    assert _read(parsers, two) == "adds TOML [1] and YAML [2] parsers"  # no "a" before a plural
    ops = merged_predicate(["adds TOSA dialect unary ops", "adds TOSA dialect reduction ops"], two)
    assert _read(ops, two) == "adds TOSA dialect unary [1] and reduction [2] ops"
    kernels = ["fuses quant add kernel", "fuses quant mul kernel"]
    reserved = merged_predicate(kernels, two, reserved=frozenset({"kernels"}))
    # "kernels" would name the project's Kernels topic, and misattribute the sentence.
    assert _read(reserved, two) == "fuses quant add [1] and mul [2] kernel"


def test_slots_that_begin_or_end_on_a_function_word_are_no_shared_shape() -> None:
    texts = [
        "prevents deadlock when using `to_pandas()` in multithreaded context",
        "prevents deadlock when using `to_arrow()` in a multithreaded context",
    ]
    assert merged_predicate(texts, [change("a", 0), change("b", 1)]) is None


def test_a_quiet_day_of_one_shape_is_one_sentence_that_passes_its_checks() -> None:
    """Three tests of one shape on a quiet day: told one by one they repeat themselves (rule
    6 fails, and a story that fails its checks is not delivered); told as one, each named."""
    tests = [
        change(f"Add a16w8 per-op test for {op}", n, path=f"src/widgets/quant/{op}.py")
        for n, op in enumerate(["mean_dim", "reciprocal", "exp"])
    ]
    day = Window(since=START, until=START + timedelta(days=1))
    story = compose(tests, config=CONFIG, window=day)
    assert [s.text for s in story.body] == [
        "Widgets adds an a16w8 per-op test for exp [1], reciprocal [2] and mean_dim [3]."
    ]
    assert story.checks is not None and story.checks.problems == ()


def test_a_unit_of_changes_of_other_shapes_says_or_counts_each_not_one_name_for_all() -> None:
    from digest.compose.release import unit_phrase
    from digest.select import Unit

    lead, *others = classify(
        [
            change("Update dependency postcss to v8.5.10", 20, "package.json"),
            change("Update dependency fastify to v5.8.5", 21, "package.json"),
            change("Update dependency fast-xml-parser to v5.7.0", 22, "package.json"),
        ],
        CONFIG,
    )
    said = unit_phrase(Unit(lead, 1.0, related=tuple(others)), max_words=12)
    assert said.count("postcss") == 1 and "fastify" in said, said
    assert "with one more related change" in said, said
    # The lead's citation stands beside its own words, before the others are said.
    assert said.index("postcss") < said.index(lead.activity.sha) < said.index("fastify"), said
    # and each related change's beside its own: fastify's before the one counted
    fastify, parser = (e.activity.sha for e in others)
    assert (
        said.index("fastify")
        < said.index(fastify)
        < said.index("more related")
        < said.index(parser)
    ), said


def test_slots_after_a_preposition_each_keep_it_and_the_noun_counts_them() -> None:
    two = [change("Fix dead link to Rust source", 0), change("Fix dead link to the API docs", 1)]
    links = merged_predicate(
        ["fixes the dead link to Rust source", "fixes the dead link to `codegen` docs"], two
    )
    # pydantic's "fixes the dead link to Rust source [2] and `…` docs [3]" read as one link.
    assert _read(links, two) == "fixes the dead links to Rust source [1] and to `codegen` docs [2]"


def test_a_slot_never_splits_a_code_span() -> None:
    # numpy's "`inexact [7] and `floating [8] | object_`".
    texts = ["adds typing for `inexact | object_`", "adds typing for `floating | object_`"]
    assert merged_predicate(texts, [change("a", 0), change("b", 1)]) is None


def test_titles_alike_in_different_places_are_no_piece_of_work() -> None:
    # "ExecuTorch's MLX backend adds turbo quant support [3] and short function support [4]"
    # credited the runtime's change to the MLX backend
    quant = change("[MLX] Add turbo quant support", 0, path="backends/mlx/quant.py")
    short = change("Add short function support", 1, path="runtime/platform/compiler.h")
    week = Window(since=START, until=START + timedelta(days=7))
    story = compose([quant, short], config=CONFIG, window=week)
    together = [s.text for s in story.body if len(s.refs) > 1]
    assert not together, together
    # a name that ends in "s" owns with the apostrophe alone
    told = " ".join(s.text for s in story.body)
    assert "Widgets' MLX backend adds" in told and "Widgets's" not in told, told
