"""The article a title leaves out: put back where a sentence needs one, and only there."""

from __future__ import annotations

import pytest

from digest.compose import compose
from digest.compose.actions import write_actions
from digest.english.articles import indefinite_article, with_article
from digest.pipeline import load_composer
from digest.rank import rank
from digest.reading.classify import classify
from digest.select import group_units
from tests.digest_data import example_config, executorch, window


@pytest.fixture(scope="module", autouse=True)
def _lexicon() -> None:
    load_composer()


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        ("adds topk fallback kernel via MPSGraph", "adds a topk fallback kernel via MPSGraph"),
        # a fault is one of a kind, though the lexicon knows neither noun
        ("fixes missing init in WidgetSetup", "fixes a missing init in WidgetSetup"),
        ("avoids unnecessary rechunk when sorting", "avoids an unnecessary rechunk when sorting"),
        (
            "adds overall job status Grafana dashboard",
            "adds an overall job status Grafana dashboard",
        ),
        ("fixes missing `max_length` check on lazy", "fixes a missing `max_length` check on lazy"),
        ("adds `AliasGenerator` hook", "adds an `AliasGenerator` hook"),
        ("adds SDK wrapper for Rust", "adds an SDK wrapper for Rust"),
        # a modifier in -ing is no head; a verb that shows what exists takes "the"
        ("adds caching layer for reads", "adds a caching layer for reads"),
        ("shows copy button only on hover", "shows the copy button only on hover"),
        ("renders delete form if enabled", "renders the delete form if enabled"),
        ("shows warning when the cache is cold", "shows a warning when the cache is cold"),
        # a participle clause after the head says what the thing did ("fix: Incorrect sorted
        # fast-path returning nan"): the head is before it, a fault takes "a"
        ("fixes regression causing stale conftests", "fixes a regression causing stale conftests"),
        ("fixes adapter silently dropping errors", "fixes the adapter silently dropping errors"),
        (
            "implements checkpoint based on live series",
            "implements a checkpoint based on live series",
        ),
        # nouns of code the lexicon lacks, and "uses", which acts on what exists
        ("adds search API endpoint", "adds a search API endpoint"),
        ("adds tokenizer for the chat model", "adds a tokenizer for the chat model"),
        ("adds Rust backend for `Expr.has_nulls`", "adds a Rust backend for `Expr.has_nulls`"),
        (
            "uses retry interval for throttling updates",
            "uses the retry interval for throttling updates",
        ),
        ("adds RISC-V smoke test on QEMU", "adds a RISC-V smoke test on QEMU"),
        ("adds us-east-1 cluster", "adds a us-east-1 cluster"),
        ("adds unit test for Y", "adds a unit test for Y"),
        ("adds hourly job", "adds an hourly job"),
        ("adds ability to resume", "adds the ability to resume"),
        ("introduces new cache protocol", "introduces a new cache protocol"),
        ("adds Gemma 4 model, export, and runner", "adds a Gemma 4 model, export, and runner"),
        # a fault, fixed or kept from happening, takes "a"
        ("fixes typo in docs", "fixes a typo in docs"),
        (
            "fixes segfault in `parse` when input is empty",
            "fixes a segfault in `parse` when input is empty",
        ),
        ("fixes rounding sign error in the sampler", "fixes a rounding sign error in the sampler"),
        ("prevents deadlock due to plugin imports", "prevents a deadlock due to plugin imports"),
        ("fixes scheduler panic on shutdown", "fixes a scheduler panic on shutdown"),
        ("fixes duplicated row on resize", "fixes a duplicated row on resize"),
        # what exists already, or what a fix repairs that is no fault, takes "the"
        ("updates user guide", "updates the user guide"),
        ("stabilizes streaming engine", "stabilizes the streaming engine"),
        ("removes nightly FreeBSD job", "removes the nightly FreeBSD job"),
        (
            "removes unused parameter `strict` from `load`",
            "removes the unused parameter `strict` from `load`",
        ),
        (
            "exposes vectorcall function on the limited API",
            "exposes the vectorcall function on the limited API",
        ),
        ("fixes einsum return type docstring", "fixes the einsum return type docstring"),
        ("updates changelog", "updates the changelog"),
        ("truncates list of files on update", "truncates the list of files on update"),
        ("changes type of `Any` in the plugin", "changes the type of `Any` in the plugin"),
        ("respects caseSensitive option", "respects the caseSensitive option"),
        # any verb that takes an object: a title drops the article, a sentence keeps it
        # (vite, svelte, polars)
        ("bundles ViteTask client", "bundles the ViteTask client"),
        ("detects Deno workspace root", "detects the Deno workspace root"),
        (
            "ensures scheduled batch is flushed if not obsolete",
            "ensures the scheduled batch is flushed if not obsolete",
        ),
        (
            "stops inferring CSV schema if schema is set",
            "stops inferring the CSV schema if schema is set",
        ),
        (
            "handles i64 overflow during CSV schema inference",
            "handles an i64 overflow during CSV schema inference",
        ),
    ],
)
def test_a_bare_singular_object_gets_its_article(predicate: str, expected: str) -> None:
    assert with_article(predicate) == expected


@pytest.mark.parametrize(
    "predicate",
    [
        "adds OSS Buck build support and CI for Qualcomm backend",  # a mass noun
        "adds PR-blocking CI for QNN model tests",  # an acronym head
        "adds ENIConfig CRs and base node AZ labels",  # a plural, a name
        "adds tests for X",  # a plural
        "fixes missing inits in WidgetSetup",  # a plural the lexicon does not know
        "adds the thing",  # determined already
        "adds two kernels",  # a number
        "adds `foo`'s option",  # a possessive
        "adds KV cache compression for Qwen",  # a process, not a thing
        "adds `exp` support using new Neutron flow",  # a mass noun before a participle
        "adds per-pass compute dispatch ordering",  # a gerund head
        "adds fuse() to patterns",  # code
        "adds Yolo26 Sample for OpenVINO",  # a capitalized head: perhaps a name
        "fixes missing imports",  # a plural
        "cleans up use of private APIs",  # a particle, not the object, follows the verb
        "renames `foo` to `bar`",  # code names itself
        "drops Python 3.9 support",  # a mass noun
        "removes stale snapshots",  # a plural
        "reverts to older protocol",  # not a verb that takes an object here
        "fixes case 2 of the parser",  # a numbered name
        "adds",
        "makes it possible to pass memory mode",  # a pronoun
        "pins ruff to 0.6",  # a name, pinned
        "keeps props reactive on hydration",  # an object and its complement
        "surfaces console output from the worker",  # an amount
        "handles missing field defaults",  # a participle, not a gerund, opens the object
        "promotes InsertDataLayoutCastsPass up pass list",  # code, then a particle
        "only unlinks batch if done",  # an adverb before the verb
    ],
)
def test_an_object_that_needs_no_article_or_may_not_is_left_as_it_is(predicate: str) -> None:
    assert with_article(predicate) == predicate


@pytest.mark.parametrize(
    ("word", "article"),
    [
        ("apple", "an"),
        ("banana", "a"),
        ("`max_length`", "a"),
        ("`AliasGenerator`", "an"),
        ("MLX", "an"),
        ("XNNPACK", "an"),
        ("CUDA", "a"),
        ("TOSA", "a"),
        ("one-off", "a"),
        ("unit", "a"),
        ("unused", "an"),
        ("hour", "an"),
        ("_ENABLE_VGF", "an"),
        ("O(1)", "an"),
    ],
)
def test_a_or_an_goes_by_sound(word: str, article: str) -> None:
    assert indefinite_article(word) == article


def test_the_body_lede_and_items_have_articles() -> None:
    story = compose(
        executorch(),
        config=example_config(),
        window=window("2026-04-20T00:00:00+00:00", "2026-04-21T00:00:00+00:00"),
    )

    assert "adds a topk fallback kernel via MPSGraph" in " ".join(s.text for s in story.body)
    # The day's CI gate no longer leads a library's story, so the kernel does.
    assert story.lede.startswith("ExecuTorch adds a topk fallback kernel via MPSGraph")
    # Its item, written before the story leaves it out for quoting what the body quotes.
    day = window("2026-04-20T00:00:00+00:00", "2026-04-21T00:00:00+00:00")
    changes = [a for a in executorch() if day.contains(a.landed_at)]
    picks = group_units(rank(classify(changes, example_config())), per_project=8)
    items = [text for text, *_ in write_actions(picks, config=example_config())]
    assert any("adds a topk fallback kernel" in text for text in items), items


def test_the_headline_keeps_the_title_telegraphic() -> None:
    story = compose(
        executorch(),
        config=example_config(),
        window=window("2026-04-07T00:00:00+00:00", "2026-04-08T00:00:00+00:00"),
    )

    # "(part 1)" of a series is no news of its own: the headline and body leave it out
    assert story.headline == "EXECUTORCH ADDS MLX DELEGATE"
    assert story.body[0].text.startswith("ExecuTorch adds an MLX delegate")
    assert "(part 1)" not in story.body[0].text


@pytest.mark.parametrize(
    ("text", "agreed"),
    [
        (
            "deprecates setting the dtype of an numpy.ndarray",
            "deprecates setting the dtype of a numpy.ndarray",
        ),
        ("fixes a error in the parser", "fixes an error in the parser"),
        # read letter by letter where no vowel says it as a word
        ("targets an nn.Parameter", "targets an nn.Parameter"),
        # "a" as a name, not an article
        ("takes options a and b", "takes options a and b"),
    ],
)
def test_a_pasted_article_agrees_with_the_sound_after_it(text: str, agreed: str) -> None:
    from digest.english.articles import agree_articles

    assert agree_articles(text) == agreed
