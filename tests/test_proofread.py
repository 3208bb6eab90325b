"""The language check: each rule on a bad and a good sentence, then every story of the
real activity files and of synthetic titles of every shape, composed as the CLI does."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from digest.check.proofread import Problem, proofread, proofread_sentences
from digest.compose import compose
from digest.model import Activity, FileChange, Story, Window
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config


def rules(*sentences: str, titles: tuple[str, ...] = (), headline: str | None = None) -> list[str]:
    return [p.rule for p in proofread_sentences(sentences, titles=titles, headline=headline)]


@pytest.mark.parametrize(
    ("rule", "bad", "good"),
    [
        (
            "lands-capital",
            "uv also lands Ignore malformed PEP 723 scripts during project checks [2].",
            "uv also ignores malformed PEP 723 scripts during project checks [2].",
        ),
        (
            "pasted-title",
            "ExecuTorch relands Add int4 kernels [1].",
            "ExecuTorch relands int4 kernels [1].",
        ),
        (
            "plan-fragment",
            "Teams building on the CLI: plan for `--fix` to `uv check` [1]",
            "Teams building on the CLI: plan for the new `--fix` flag of `uv check` [1]",
        ),
        (
            "plan-fragment",
            "Teams building on NXP: plan for Add Tensor with new Neutron flow [1]",
            "Teams building on NXP: plan for fused SDPA with dynamic input_pos [1]",
        ),
        (
            "generic-folder",
            "uv landed 7 changes, chiefly in crates.",
            "uv landed 7 changes, chiefly in the resolver.",
        ),
        (
            "generic-folder",
            "uv landed 7 changes, chiefly in uv-resolver, docs and tests.",
            "uv landed 7 changes, chiefly in uv-resolver and uv-python.",
        ),
        (
            "generic-folder",
            "pydantic also uses locked dependencies in CI in .github [2].",
            "pydantic also uses locked dependencies in CI [2].",
        ),
        (
            "generic-folder",
            "If you depend on test in ao, watch your builds [3].",
            "If you depend on the quantizer in ao, watch your builds [3].",
        ),
        (
            "doubled-word",
            "pydantic fixes the the validator [1].",
            "pydantic fixes the validator [1].",
        ),
        (
            "doubled-word",
            "pydantic validates falsy outputs in pydantic in pydantic [4].",
            "pydantic validates falsy outputs [4].",
        ),
        (
            "no-finite-verb",
            "Python 3.15 wheels for macOS [1].",
            "uv adds Python 3.15 wheels for macOS [1].",
        ),
        (
            "no-finite-verb",
            "Teams building on Arm: the new TOSA lowering [2]",
            "Check what now blocks merges in ci-infra: the change splits the gates [1]",
        ),
        (
            "no-finite-verb",
            "A quiet day for vite and its change set [1].",
            "A quiet day for vite, whose only change set `minimumReleaseAge=1440` for renovate.",
        ),
    ],
)
def test_each_rule_catches_its_slip_and_passes_good_english(rule: str, bad: str, good: str) -> None:
    assert rule in rules(bad)
    assert rules(good) == []


@pytest.mark.parametrize(
    ("rule", "bad", "good"),
    [
        ("capital-after-verb", "peft adds FEAT Add AdaMSS [1].", "peft adds AdaMSS [1]."),
        (
            "capital-after-verb",
            "ruff adds Lazily materialize protocol attributes [1].",
            "ruff lazily materializes protocol attributes [1].",
        ),
        (
            "capital-after-verb",
            "ruff adds Sync vendored typeshed stubs [2].",
            "ruff syncs vendored typeshed stubs [2].",
        ),
        (
            "capital-after-verb",
            "peft makes CI FIX Some test require torchvision [3].",
            "peft makes some tests require torchvision [3].",
        ),
        ("type-word", "peft fixes TST bug with hard-coded device [1].", "peft fixes CI jobs [1]."),
        (
            "semicolon-list",
            "torchtitan supports gpt-oss PP; fixes qwen3 MoE expert bias update [1].",
            "torchtitan supports gpt-oss PP and fixes qwen3 MoE expert bias update [1].",
        ),
        (
            "semicolon-list",
            "It adds X; drops Y; some other cleanups in Config [2].",
            "ExecuTorch backed out X and Y; in all, two changes were backed out.",
        ),
        (
            "unconjugated-verb",
            "ExecuTorch tunes the kernels and fix the tests [1].",
            "ExecuTorch tunes the kernels and fixes the tests [1].",
        ),
        (
            "unconjugated-verb",
            "ExecuTorch adds a CMSIS Pack test and fix pack build infrastructure [2].",
            "ExecuTorch adds a CMSIS Pack test and fixes pack build infrastructure [2].",
        ),
        (
            "wrong-article",
            "ci-infra adds a xlarge runner pool [1].",
            "ci-infra adds an xlarge runner pool [1].",
        ),
        (
            "wrong-article",
            "uv adds an unit test [1].",
            "uv adds a unit test and an SDK sample [1].",
        ),
        (
            "wrong-article",
            "In all, one changes were backed out.",
            "In all, one change was backed out.",
        ),
    ],
)
def test_each_title_convention_rule_catches_its_slip(rule: str, bad: str, good: str) -> None:
    assert rule in rules(bad)
    assert rules(good) == []


@pytest.mark.parametrize(
    ("name", "bad", "good"),
    [
        (
            "torchtitan",
            "torchtitan multi-turns retrieval-augmented GRPO [1].",
            "torchtitan adds multi-turn retrieval-augmented GRPO [1].",
        ),
        (
            "pydantic",
            "pydantic onlied deepcopies non-updated fields [1].",
            "pydantic only deepcopied non-updated fields [1].",
        ),
        ("polars", "It fullied resolves leaks [2].", "It fully resolves leaks [2]."),
        (
            "polars",
            "polars also always rechunks sorts [3].",
            "polars also always rechunks sorts [3].",
        ),
    ],
)
def test_a_word_in_the_verbs_place_that_is_no_verb_is_caught(
    name: str, bad: str, good: str
) -> None:
    """Right after the subject ("<project>", "It", "<project> also") a verb must stand."""
    found = [p.rule for p in proofread_sentences([bad], names=[name])]
    assert ("noun-as-verb" in found) is (bad != good)
    assert proofread_sentences([good], names=[name]) == []


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        (
            "ci-infra moves runners to new tiers once a rate limit is.",
            "ci-infra moves runners to new tiers [1].",
        ),
        ("ci-infra retries uploads when a job fails and.", "ci-infra retries uploads [1]."),
        ("ci-infra moves runners onto per-size tiers and move.", "ci-infra moves runners [1]."),
    ],
)
def test_a_lede_cut_mid_phrase_is_caught(bad: str, good: str) -> None:
    assert [p.rule for p in proofread_sentences([bad], lede=bad)] == ["cut-ending"]
    assert proofread_sentences([good], lede=good) == []
    assert proofread_sentences([bad]) == []  # a body sentence is not read for its ending


def test_a_headline_cut_mid_phrase_or_with_a_wrong_article_is_caught() -> None:
    assert rules(headline="CI-INFRA MOVES RUNNERS ONTO PER-SIZE NODEPOOL TIERS AND MOVE") == [
        "cut-ending"
    ]
    assert rules(headline="CI-INFRA ADDS RUNNERS FOR THE") == ["cut-ending"]
    assert rules(headline="CI-INFRA ADDS A XLARGE POOL") == ["wrong-article"]
    assert rules(headline="CI-INFRA MOVES RUNNERS ONTO PER-SIZE NODEPOOL TIERS") == []


def test_the_same_predicate_twice_in_a_story_is_repeated() -> None:
    once = ["fastapi updates release notes [1].", "It also fixes the docs build [2]."]
    twice = [*once, "In addition, fastapi updates release notes [3]."]
    assert rules(*once) == []
    problems = proofread_sentences(twice)
    assert [(p.rule, p.text) for p in problems] == [("repeated-predicate", "update release notes")]
    assert problems[0].sentence == twice[-1]
    # The same verb with another object, a quotation, or the lede summing up the body: fine.
    assert rules("X adds QNN support for tan [1].", "X adds QNN support for scatter [2].") == []
    assert (
        rules("Its description says “Notes: A” [1].", "Its description says “Notes: B” [2].") == []
    )
    lede = "fastapi updates release notes."
    assert proofread_sentences([lede, once[0]], lede=lede) == []
    # Each project's own count in a story of several is no claim said twice.
    counts = [
        "vite updates one dependency [1].",
        "It makes two changes and updates one dependency.",
        "Meanwhile, ci-infra updates a dependency [2] and makes a documentation change [3].",
        "It makes a documentation change [4].",
    ]
    assert rules(*counts) == []
    # … but the same change of one thing, told twice, is.
    assert rules("X updates a dependency on zlib [1].", "It updates a dependency on zlib [2].")


def test_a_hyphenated_verb_is_finite_and_a_followed_topic_is_no_folder() -> None:
    assert (
        rules("ExecuTorch right-sizes operator registry from selective build metadata [1].") == []
    )
    assert rules("It also auto-routes SlidingWindow conv2d to im2col via a heuristic [2].") == []
    everything = [
        a for path in sorted(ACTIVITY.glob("*.jsonl")) for a in ReplaySource(path).read_all()
    ]
    since = datetime(2026, 4, 1, tzinfo=UTC)
    story = compose(
        everything,
        config=example_config(),
        window=Window(since=since, until=since + timedelta(days=1)),
        topic="Docs",
    )
    assert story.lede.startswith("On Docs, ") or "on Docs" in story.lede, story.lede
    assert proofread(story, config=example_config()) == []


@pytest.mark.parametrize("connective", ["also", "In addition,", "Elsewhere,", "Meanwhile,"])
def test_a_connective_used_twice_is_repeated(connective: str) -> None:
    once = [f"{connective} uv adds A [1].", "uv fixes B [2]."]
    twice = [*once, f"{connective} uv drops C [3]."]
    if connective == "also":
        once = ["uv also adds A [1].", "uv fixes B [2]."]
        twice = [*once, "uv also drops C [3]."]
    assert rules(*once) == []
    problems = proofread_sentences(twice)
    assert [p.rule for p in problems] == ["repeated-connective"]
    assert problems[0].sentence == twice[-1]


def test_an_adverb_of_place_is_no_connective() -> None:
    assert (
        rules(
            "uv also adds A [1].", "Beyond these, uv lands 8 more changes: 3 in CI and 5 elsewhere."
        )
        == []
    )


def test_the_project_is_no_place_in_its_own_sentence() -> None:
    bad = "pydantic validates falsy `AliasGenerator` outputs in pydantic [4]."
    problems = proofread_sentences([bad], names=["pydantic"])
    assert [(p.rule, p.text) for p in problems] == [("own-name", "in pydantic")]
    good = "Watch your builds on Arm in ExecuTorch: X was backed out [2]"
    assert proofread_sentences([good], names=["ExecuTorch"]) == []
    # A title's own "in Polars SQL" names a product, not the place of our sentence.
    titled = "polars uses true division for the `/` operator in Polars SQL [6]."
    assert [p.rule for p in proofread_sentences([titled], names=["polars"])] == ["own-name"]
    title = "fix: Use true division for the `/` operator in Polars SQL (#27600)"
    assert proofread_sentences([titled], names=["polars"], titles=[title]) == []


def test_a_stand_in_after_a_connective_is_lower_case() -> None:
    assert "capital-after-connective" in rules("Separately, It updates two dependencies [1].")
    assert rules("Separately, it updates two dependencies [1].") == []


def test_words_quoted_from_a_cited_title_are_the_titles_own() -> None:
    sentence = "pydantic fixes typo in docs [1]. "
    assert rules(sentence) == ["generic-folder"]
    assert rules(sentence, titles=("Fix typo in docs",)) == []
    assert rules("pydantic also runs X [1].", "pydantic drops Y [2].", titles=("Also run X",)) == []


def test_the_headline_is_read_lower_cased_and_a_problem_names_its_rule_and_words() -> None:
    assert rules(headline="PYDANTIC USES STANDARD LIBRARY `LazyLock`") == []
    assert rules(headline="UV ADDS THE THE WHEELS") == ["doubled-word"]
    problem = proofread_sentences(["uv lands Factor out precedence [4]."])[0]
    assert problem == Problem(
        "lands-capital", "lands Factor", "uv lands Factor out precedence [4]."
    )


# ---------------------------------------------------------------- every story of the corpus

_REPLAYS = (
    "pytorch-executorch-2026-q2.jsonl",
    "pydantic-pydantic-2026-q2.jsonl",
    "pytorch-ci-infra-2026-05.jsonl",
    "pola-rs-polars-2026-q2.jsonl",
    "vitejs-vite-2026-q2.jsonl",
)
_QUARTER = (datetime(2026, 4, 1, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=UTC))


def windows() -> list[Window]:
    """Every day of the quarter, and every Monday-to-Monday week that overlaps it."""
    start, end = _QUARTER
    days = [start + timedelta(days=n) for n in range((end - start).days)]
    first_monday = start - timedelta(days=start.weekday())
    weeks = [first_monday + timedelta(weeks=n) for n in range(((end - first_monday).days + 6) // 7)]
    return [Window(since=d, until=d + timedelta(days=1)) for d in days] + [
        Window(since=w, until=w + timedelta(days=7)) for w in weeks
    ]


# Titles of every shape the language rules handle, on an unconfigured repository whose code
# lives in container folders (src/, crates/, packages/, tests/, docs/, .github/).
_SYNTHETIC = [
    ("feat(parser): add TOML tables", "ana", ("src/widgets/parser/toml.py",)),
    ("fix!: drop Python 3.9", "ana", ("src/widgets/compat.py", "pyproject.toml")),
    ("chore(deps): bump ruff from 0.5.0 to 0.6.0", "renovate[bot]", ("requirements-dev.txt",)),
    ("Bump aiohttp from 3.13.4 to 3.14.0", "dependabot[bot]", ("uv.lock",)),
    ("Bump cryptography from 46.0.7 to 48.0.1", "dependabot[bot]", ("uv.lock",)),
    ("Update dependency eslint to v9", "renovate[bot]", ("packages/ui/package.json",)),
    ("[CRCR] Retry flaky uploads", "bo", ("src/widgets/upload.py",)),
    ("Arm backend: Validate TOSA resize parameters", "bo", ("src/widgets/arm/resize.py",)),
    ("Qualcomm AI Engine Direct - Refactor llama runner", "cy", ("src/widgets/qnn/runner.py",)),
    ("2/x: Introduce a model cache", "cy", ("src/widgets/cache.py",)),
    ("[1/N][ez] Move helpers", "cy", ("src/widgets/helpers.py",)),
    (":sparkles: Add dark mode", "di", ("packages/ui/theme.ts",)),
    ("✨ Add dark mode to the console 🎉", "di", ("packages/ui/console.ts",)),
    (
        "Ignore malformed PEP 723 scripts during project checks (#123)",
        "ed",
        ("crates/widgets-cli/src/check.rs",),
    ),
    (
        "Factor out configured package index precedence",
        "ed",
        ("crates/widgets-resolver/src/index.rs",),
    ),
    ("Add `--fix` to `uv check`", "ed", ("crates/widgets-cli/src/fix.rs",)),
    ("Clean up stale caches", "fi", ("src/widgets/cache.py",)),
    ("Roll back the lockfile pin", "fi", ("src/widgets/pins.py",)),
    ("Opt in to strict mode", "fi", ("src/widgets/strict.py",)),
    ("Set up nightly wheels", "gu", (".github/workflows/nightly.yml",)),
    ("Speed up schema building", "gu", ("src/widgets/schema.py",)),
    ("Python 3.15 wheels for macOS", "gu", (".github/workflows/wheels.yml",)),
    ("Support for TypedDict extra items", "ha", ("src/widgets/typed_dict.py",)),
    ("Adds JSON schema titles", "ha", ("src/widgets/json_schema.py",)),
    ("Fixed flaky test", "ha", ("tests/test_flaky.py",)),
    ("Adding Qwen3 support", "io", ("src/widgets/models/qwen3.py",)),
    ("Globally serialize worker execution, add logging", "io", ("src/widgets/worker.py",)),
    ("Don't link libdl when cross-compiling", "io", ("src/widgets/build.py",)),
    ("Module implements Closeable", "jo", ("src/widgets/module.py",)),
    ("Addition of new APIs for plugins", "jo", ("src/widgets/plugins.py",)),
    ("MoE prefill perf improvement", "jo", ("src/widgets/moe.py",)),
    ("Integer overflow in Allocator::allocate()", "ka", ("src/widgets/alloc.py",)),
    ("Use locked dependencies in CI", "ka", (".github/workflows/ci.yml",)),
    (
        "Validate falsy `AliasGenerator` outputs",
        "ka",
        ("src/widgets/alias.py", "tests/test_alias.py"),
    ),
    ("Use standard library `LazyLock`", "lu", ("crates/widgets-core/src/lib.rs",)),
    ("Fix typos in internals documentation", "lu", ("docs/internals.md",)),
    ('Revert "Add dark mode"', "lu", ("packages/ui/theme.ts",)),
    ("Deprecate the legacy loader", "mo", ("src/widgets/loader.py",)),
    ("Stop using deprecated PassManager", "mo", ("src/widgets/passes.py",)),
    ("Add regression test for pickling", "mo", ("tests/test_pickle.py",)),
]


def synthetic_activity() -> list[Activity]:
    """Three synthetic changes a day from 2026-08-03 on, so each is told in some story."""
    start = datetime(2026, 8, 3, 9, tzinfo=UTC)
    return [
        Activity(
            repo="acme/widgets",
            sha=f"{n:040x}",
            number=1000 + n,
            title=title,
            author=author,
            landed_at=start + timedelta(days=n // 3, hours=n % 3),
            files=tuple(FileChange(path=p, additions=12, deletions=3) for p in paths),
        )
        for n, (title, author, paths) in enumerate(_SYNTHETIC)
    ]


def corpus() -> list[tuple[str, Story]]:
    config = example_config()
    stories = []
    for name in _REPLAYS:
        activity = tuple(ReplaySource(ACTIVITY / name).read_all())
        for window in windows():
            label = f"{name.rsplit('-', 2)[0]} {window.since:%Y-%m-%d}+{(window.until - window.since).days}d"
            stories.append((label, compose(activity, config=config, window=window)))
    synthetic = synthetic_activity()
    start = datetime(2026, 8, 3, tzinfo=UTC)
    for day in range(len(_SYNTHETIC) // 3 + 1):
        window = Window(since=start + timedelta(days=day), until=start + timedelta(days=day + 1))
        stories.append((f"synthetic day {day}", compose(synthetic, config=config, window=window)))
    for weeks in (1, 2):
        window = Window(since=start, until=start + timedelta(weeks=weeks))
        stories.append((f"synthetic {weeks}w", compose(synthetic, config=config, window=window)))
    return stories


# Every story of the corpus reads without a slip; a rule named here would be allowed this
# many (none is).
_RATCHET: dict[str, int] = {}


def test_every_story_of_the_corpus_reads_without_a_slip() -> None:
    config = example_config()
    per_story: dict[str, list[Problem]] = {}
    for label, story in corpus():
        per_story[label] = proofread(story, config=config)
    assert len(per_story) > 200
    by_rule = Counter(p.rule for problems in per_story.values() for p in problems)
    worst = sorted(per_story.items(), key=lambda item: -len(item[1]))[:8]
    report = [
        f"{sum(by_rule.values())} problems in {sum(bool(p) for p in per_story.values())} stories: {dict(by_rule)}"
    ]
    for label, problems in worst:
        report += [f"  {label}: {p.rule}: {p.text!r} in {p.sentence!r}" for p in problems[:4]]
    print("\n".join(report))
    over = {rule: n for rule, n in by_rule.items() if n > _RATCHET.get(rule, 0)}
    assert not over, "\n".join(report)
