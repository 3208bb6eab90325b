"""Why, from the description: a named change whose body states a reason carries it, as a
verbatim quotation that the check (rule 8) holds to the cited change's words."""

from __future__ import annotations

from datetime import UTC, timedelta
from functools import cache

import pytest

from digest.check import check_story
from digest.compose import compose
from digest.compose.body import ATTRIBUTIONS
from digest.model import Activity, Sentence, Window, cited_numbers
from digest.reading.bodies import clean_body
from digest.reading.why import MAX_QUOTE_WORDS, quotation, stated_reason
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config, window

# The share of named changes with a stated reason whose sentence carries it.
TARGET = 0.7


def test_a_why_section_wins_over_a_summary_and_the_first_paragraph() -> None:
    body = (
        "Some opening words that say what the change does here.\n\n"
        "## Summary\nMoves the gate into a new job for all runners.\n\n"
        "## Why\nOne slow-test failure no longer holds the merge queue for hours.\n"
    )
    assert stated_reason(body) == "One slow-test failure no longer holds the merge queue for hours."


def test_an_impact_line_and_the_first_prose_paragraph_are_read() -> None:
    assert stated_reason("**Impact:** All OSDC clusters get the new DNS cache soon.") == (
        "All OSDC clusters get the new DNS cache soon."
    )
    assert stated_reason("Allows forward pass to be reproducible with a seed.") == (
        "Allows forward pass to be reproducible with a seed."
    )


def test_boilerplate_links_and_mentions_are_never_quoted() -> None:
    changesets = "This PR was opened by the [Changesets release](https://x) GitHub action. When"
    assert quotation(changesets, "Version Packages") is None
    assert quotation("Thanks @someone for the report that this crashes on load.", "Fix") is None
    assert quotation("See https://example.com for why the cache must go away now.", "Fix") is None


def test_the_state_of_the_work_or_its_review_is_no_reason() -> None:
    for body in (
        "Note: still a WIP for native histograms and summaries, which come next.",
        "Addresses correctness and convention divergences flagged in PR review.",
        "This applies the review feedback from the maintainers on the loader.",
        # a hedge is no reason
        "Re-initializing the git repo should work, though.",
        "Hopefully this stops the deploy job from failing on a fresh runner.",
    ):
        assert quotation(body, "Add start timestamp synthesis") is None, body
    said = "Queries over long ranges no longer time out when the cache is cold."
    assert quotation(said, "Add start timestamp synthesis") == said.rstrip(".")


def test_a_quotation_that_restates_the_title_is_left_out() -> None:
    assert quotation("Add the widget cache to the store.", "Add widget cache to the store") is None


def test_a_reason_too_long_to_quote_whole_is_never_cut_before_its_point() -> None:
    reason = (
        "The old fixed retry pattern was too short for CI, where consolidation can take "
        "minutes to finish and the nodes come back only after every pod on them is gone"
    )
    assert len(reason.split()) > MAX_QUOTE_WORDS
    assert quotation(reason, "Refactor smoke helpers") is None
    shorter = "The old fixed retry pattern failed in CI, where consolidation takes minutes."
    assert quotation(f"{reason}. {shorter}", "Refactor smoke helpers") == shorter.rstrip(".")


def test_a_clause_of_a_sentence_too_long_to_quote_is_quoted_when_it_stands_alone() -> None:
    body = (
        "A small cleanup of the public headers - `frob_t` is part of the stable ABI from "
        "version 3.12 onwards so the guard can be relaxed to match the documentation. "
        "Nobody asked for it."
    )
    assert quotation(body, "Expose frob function on stable ABI") == (
        "`frob_t` is part of the stable ABI from version 3.12 onwards so the guard can be "
        "relaxed to match the documentation"
    )


def test_a_clause_the_next_one_leans_back_on_is_never_quoted_alone() -> None:
    """The point of "… its own module-scope variable — this shrinks the output" is after
    the dash: the clause before it, quoted alone, stops before it."""
    setup = (
        "Identical templates hoisted from different fragments, elements or branches now "
        "share a single factory instead of each emitting its own module-scope variable"
    )
    for after in ("this shrinks the generated output", "otherwise every page parses it again"):
        assert quotation(f"{setup} — {after}.", "perf: dedupe hoisted templates") is None
    # a clause that stands alone is still quoted
    alone = f"{setup} — Nobody relied on the old variables in any released widget version."
    assert quotation(alone, "perf: dedupe hoisted templates") is not None


def test_a_sentence_with_a_bracketed_number_is_never_quoted_as_it_would_read_as_a_citation() -> (
    None
):
    body = "The annotation was using args[1] (the string) instead of args[0], the vector of rows."
    assert quotation(body, "Fix the annotation position") is None


@pytest.mark.parametrize(
    "aside",
    [
        "I am not 100% sure why this code was originally written in this way at all.",
        "This is intended for the next commit, which moves the fixtures elsewhere.",
        "This PR was authored with the assistance of a coding assistant for the tests.",
        "See the inline comments for the rationale behind each of the new checks.",
        "This is part of the implementation of the proposal for faster queries.",
        "Temporary debug commit to surface what the deploy service is returning now.",
        "The rest of the change follows from the example below and the new flag:",
        # what the tests show, and a sentence that leans on the one before it
        "This makes the test intent misleading when debugging failures of the renderer.",
        "In the reproduction this happens because two components render after a block.",
        "As a result production builds could leave the eager state not working correctly.",
        # what another pull request does: context, not this change's reason
        "PR #3300 drafts the idea of embedding the comparison results into each page.",
        # where a bug came from, and how "this" is done where the sentence never says what
        # (svelte's "Regression from #18039 - …", "We can avoid this by checking …")
        "Regression from #18039 - each await expression needs its own entry, so users wait.",
        "We can avoid this by checking if a decrement is queued before the batch ends.",
        "This is fixed by flushing the queue before the users' effects are scheduled.",
        "Else context is not restored correctly and the expression afterwards breaks for users.",
        # how the change was merged or split off
        "Extracted from #18047 and will self-merge this bit so that runs are kept around.",
        "Didn't include this in the previous commit, in case it causes regressions for users.",
        # leaning on the sentence before, or cut at an abbreviation before its example
        "To allow this, modify all the channels-last dialect ops to lower with permutes, e.g.",
        "This stops the runners from stalling for users when a region has no capacity, e.g.",
        "Also addresses a bug in the fake tracing of the pooling op that users would hit.",
        "Moreover, in older widget versions, this could lead to an import error for users.",
        # a "this" that points at the fault told before it, not at the change
        "This causes every multi-process collective to fail at init time for users.",
        "This was missed because the type of the first argument used to be a set.",
        # what the title says, in the third person
        "Adds adaptive avg_pool2d dialect op to be used for the next spec version of it.",
        # an order restating the title, though it names users
        "Allow users to set a maximum number of warnings via a new command-line option.",
        # a test note, a release-process note, a sentence leaning on the one before it
        "Tested against the staging cluster that everything works as expected for users.",
        "No changeset because the bug this fixes has not been released to users yet.",
        "Consequently the widgets inside no longer update and cause warnings for users.",
        "It handles building the runner, pushing it to the device and failing fast for users.",
        "Applied across all thirty node functions of the compiler to stop the crashes.",
        # what the change is not, what already was, and its scope or size
        "The goal is not to make the widget server fully runtime agnostic for users.",
        "That path is already supported through the widget config and its users' hooks.",
        "The default hook returns true, preserving existing behavior for widget subclasses.",
        "This is done for conv, depthwise conv, transpose conv and bmm so users can plan.",
        "This is a substantial commit which introduces shaders via custom ops for users.",
        "A common pattern from the CI logs of the jobs that failed is the following",
        # code as the subject, or too much code to read
        "resetCounters used clear() to recycle maps, so the loop failed on the next pass.",
        "Summary: `cache_store::evict` fails when the entry's refcount falls to zero early.",
        "`a.b` and `c.d` now call `e()`, `f()` and `g()` to avoid a crash on reload.",
        # a regression guard, a definition of a piece of code
        "The first case is a regression guard for the crash fixed in this change for users.",
        "`collect_hooks` is the function which discovers fixtures and fails for users.",
        # what the change does, whatever its verb, and how it works (executorch)
        "This PR rewires all the widget sorts to go through the newer layer for users.",
        "This uses the fact that a widget without a cache can share the users' view.",
        # a doubt, or a shrug
        "If the compiler doesn't flip the sign, the maintainer isn't sure users care.",
        "Don't know how those got here, but users on Windows saw them in every file.",
    ],
)
def test_an_aside_a_step_or_a_pointer_is_no_reason(aside: str) -> None:
    assert quotation(aside, "Refactor smoke helpers") is None


def _activity(body: str) -> Activity:
    from datetime import datetime

    return Activity(
        repo="acme/widgets",
        sha="a" * 40,
        number=1,
        title="Add widget cache",
        body=body,
        landed_at=datetime(2026, 5, 4, 10, tzinfo=UTC),
    )


def test_rule_8_rejects_a_quotation_that_is_not_the_changes_words() -> None:
    change = _activity("The cache cuts page loads from 900 ms to 120 ms on a cold start.")
    span = window("2026-05-04T00:00:00+00:00", "2026-05-05T00:00:00+00:00")
    story = compose([change], config=example_config(), window=span)
    assert story.checks is not None and story.checks.problems == ()
    [sentence] = story.body
    assert "“The cache cuts page loads from 900 ms to 120 ms on a cold start”" in sentence.text
    for made_up in (
        sentence.text.replace("900 ms", "9000 ms"),  # a number it does not state
        sentence.text.replace("cuts page loads", "halves page loads"),  # not its words
        sentence.text.replace(" [1].", " [1], as [@alice](https://x) says."),  # markup
    ):
        lying = story.model_copy(update={"body": (Sentence(text=made_up, refs=(1,)),)})
        problems = check_story(
            lying, config=example_config(), events=None, ranking=_ranking(change)
        )
        assert any(p.startswith("rule 8") for p in problems.problems), made_up


def test_rule_8_lets_a_title_be_told_as_written_but_no_description_markup_along() -> None:
    """A title is untrusted text told as written (the platforms escape it), so the link a
    title carries is not a problem of the story; the same link from nowhere in the title is."""
    change = _activity("No reason given here.").model_copy(
        update={"title": "Add widget cache <https://evil.example|click>"}
    )
    span = window("2026-05-04T00:00:00+00:00", "2026-05-05T00:00:00+00:00")
    story = compose([change], config=example_config(), window=span)
    [sentence] = story.body
    assert "<https://evil.example|click>" in sentence.text
    assert story.checks is not None and story.checks.problems == ()
    elsewhere = sentence.text.replace(" [1]", " <https://other.example|here> [1]")
    lying = story.model_copy(update={"body": (Sentence(text=elsewhere, refs=(1,)),)})
    problems = check_story(lying, config=example_config(), events=None, ranking=_ranking(change))
    assert any("carries Markdown" in p for p in problems.problems), elsewhere


def _ranking(change: Activity):
    from digest.rank import rank
    from digest.reading.classify import classify

    return rank(classify([change], example_config()))


# ---------------------------------------------------------------- the figure


@cache
def why_figure() -> tuple[int, int]:
    """(changes with a sentence of their own whose body states a reason, those whose
    sentence carries it), over every Monday-to-Monday week of every activity file."""
    stated = carried = 0
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        activities = tuple(ReplaySource(path).read_all())
        by_sha = {a.sha: a for a in activities}
        first = min(a.landed_at for a in activities).astimezone(UTC)
        monday = first.replace(hour=0, minute=0, second=0, microsecond=0)
        monday -= timedelta(days=monday.weekday())
        while monday <= max(a.landed_at for a in activities):
            span = Window(since=monday, until=monday + timedelta(days=7))
            story = compose(activities, config=example_config(), window=span)
            for sentence in story.body:
                refs = cited_numbers(sentence.text)
                ref = story.reference(refs[0]) if refs else None
                change = by_sha.get(ref.sha) if ref else None
                # A change with a sentence of its own, not one of a list joined into one.
                if change is None or len(set(refs)) > 1:
                    continue
                if quotation(clean_body(change.body), change.title):
                    stated += 1
                    carried += any(f.split("“")[0] in sentence.text for f in ATTRIBUTIONS)
            monday += timedelta(days=7)
    return stated, carried


def why_table() -> str:
    stated, carried = why_figure()
    share = carried / stated if stated else 1.0
    return (
        f"named changes whose description states a reason: {stated}; "
        f"their sentences carrying it: {carried} ({share:.0%}, target {TARGET:.0%})"
    )


def test_most_named_changes_with_a_stated_reason_carry_it() -> None:
    stated, carried = why_figure()
    assert stated > 50 and carried / stated >= TARGET, why_table()


def test_a_quotation_never_opens_a_parenthesis_it_does_not_close() -> None:
    # "e.g." ends no sentence: the aside is quoted whole, its parenthesis closed
    body = (
        "## Why\n\nSet capacity to zero for runners outside the cluster's region "
        "(e.g. B200 in us-west-1), so no node is ever requested there."
    )
    said = quotation(body, "Set proactive_capacity to 0")
    assert said is not None and said.count("(") == said.count(")") == 1, said
    assert said in body and said.endswith("so no node is ever requested there")
    # a sentence split inside its parenthesis stops before it
    split = (
        "## Why\n\nSet capacity to zero for runners whose nodepool excludes the region (B200. "
        "Those are reserved), so no node is requested."
    )
    said = quotation(split, "Set proactive_capacity to 0")
    assert said is not None and "(" not in said, said
    assert said.endswith("excludes the region…") and said.removesuffix("…") in split


def test_a_sentence_that_says_what_the_change_lets_happen_wins_over_a_preamble() -> None:
    body = (
        "## Why\n\nWith the CI in a stable state for a good time, we are in a position now "
        "to gate merges on staging.\n\nThe full battery takes 2-3 hours end-to-end. "
        "Splitting the gates lets fast failures block merges immediately.\n"
    )
    assert quotation(body, "Split pre-merge CI into fast and slow gates") == (
        "Splitting the gates lets fast failures block merges immediately"
    )
    # No sentence states an effect: the first one is the reason, as before.
    plain_body = "## Why\n\nThe old retry loop gave up after ten seconds on slow runners.\n"
    assert (
        stated_reason(plain_body) == "The old retry loop gave up after ten seconds on slow runners."
    )


def test_a_sentence_that_says_what_in_other_words_is_no_reason() -> None:
    body = "Introduce a backend-aware pass manager infrastructure for the Qualcomm backend."
    assert quotation(body, "Support backend awareness pass infrastructure") is None
    why = "Introduce a pass manager so that each backend can skip passes it cannot lower."
    assert quotation(why, "Support backend awareness pass infrastructure") == why.rstrip(".")


def test_a_sentence_that_says_what_the_change_now_does_or_what_it_is_for_is_a_reason() -> None:
    body = (
        "The client code moved into its own module.\n\n"
        "Discovery now drops the secondary address labels and caps requests at ten a second "
        "to stay under the provider's limit.\n"
    )
    assert quotation(body, "Set a rate cap for instance discovery") == (
        "Discovery now drops the secondary address labels and caps requests at ten a second "
        "to stay under the provider's limit"
    )
    no_longer = "Parsing an empty header no longer panics on the first read of a stream."
    assert quotation(no_longer, "Handle empty headers") == no_longer.rstrip(".")


def test_a_second_paragraph_gives_only_a_sentence_that_states_an_effect() -> None:
    # svelte's shape: a first paragraph with no quotable reason, then an aside that leans
    # on it ("This fixes it …", "Until then this is …")
    body = (
        "While looking into the parser I realised that our code for parentheses is "
        "convoluted and that this fails to parse:\n\n"
        "This fixes it and simplifies the code a good bit.\n"
    )
    assert quotation(body, "fix: handle parens in template expressions more robustly") is None
    hedged = (
        "Move the calculation of blockers into the analysis phase and then only push the "
        "right thunks in the transform phase.\n\n"
        "Until then this is the most pragmatic and least invasive change we can make.\n"
    )
    assert quotation(hedged, "fix: correctly calculate `@const` blockers") is None


@pytest.mark.parametrize(
    "reason",
    [
        # a gerund opens a reason; "This avoids …" tells what the change lets happen
        "Adding a handler for widgets enables them to run on the GPU instead of the CPU.",
        "This avoids stalling the whole queue and only waits for the work of the backend.",
        # code users call, in backticks, may be the subject
        "`$state.snapshot` infers BigInt properties as `never` because `bigint` is missing.",
        # an order with its purpose
        "Enable errexit so the installer stops as soon as one of its steps fails.",
    ],
)
def test_a_reason_in_the_changes_own_shape_is_quoted(reason: str) -> None:
    assert quotation(reason, "Refactor smoke helpers") == reason.rstrip(".")


def test_a_squash_of_commits_gives_no_reason() -> None:
    # a body that lists its commits' messages: each paragraph is a step of the work
    squashed = (
        "* fix: handle nested slot props in the type checker\n\n"
        "* test: add a fixture for the regression\n\n"
        "The restore logic was too broad, so users lost styles in conditionally shown parts."
    )
    assert quotation(squashed, "fix: keep styles of nested slots") is None


@pytest.mark.parametrize(
    "reason",
    [
        # "this" opening a sentence with a verb of effect says what the change is for (svelte)
        "This prevents the sort of bug where a derived reads a field of an undefined value.",
    ],
)
def test_a_this_that_says_what_the_change_lets_happen_is_a_reason(reason: str) -> None:
    assert quotation(reason, "Refactor smoke helpers") == reason.rstrip(".")


def test_an_issue_link_opening_a_paragraph_leaves_its_prose_quotable() -> None:
    body = (
        "### Summary\nFixes #18924\nExtends widget support to integer tensors.\n"
        "Previously the handler only accepted booleans and raised an error for other dtypes.\n"
    )
    said = quotation(body, "Support integer tensors in the widget handler")
    assert (
        said == "Previously the handler only accepted booleans and raised an error for other dtypes"
    )


@pytest.mark.parametrize(
    "aside",
    [
        "(because the batch is not running, it later runs into the invariant and fails)",
        "— Unify and improve the Android developer story so that users fail less often",
        "Validated on the Uno board with the keyword model: the sources compile and fail less.",
    ],
)
def test_a_parenthesis_a_dash_or_a_note_of_validation_is_no_reason(aside: str) -> None:
    assert quotation(aside, "Refactor smoke helpers") is None


def test_a_measured_result_is_quoted_before_a_stated_effect() -> None:
    # executorch's "Avoid repeated recompiles in constant fusion" and "Per weight constant
    # cache": the figures are what readers missed
    body = (
        "Recompiling after each fused op lets the pass run slowly on large graphs.\n\n"
        "On an internal VGF quant export test, this reduced FuseConstantArgsPass time from "
        "64.8s to 5.2s by avoiding recompiles after each fused op.\n"
    )
    assert quotation(body, "Arm backend: Avoid repeated recompiles in constant fusion") == (
        "On an internal VGF quant export test, this reduced FuseConstantArgsPass time from "
        "64.8s to 5.2s by avoiding recompiles after each fused op"
    )
    results = "Share one weight blob across methods.\n\n## Results\n\nPeak GPU memory: 35.4 GB → 17.6 GB (-50%)\n"
    assert (
        quotation(results, "Per weight constant cache")
        == "Peak GPU memory: 35.4 GB → 17.6 GB (-50%)"
    )


@pytest.mark.parametrize(
    "setting",
    [
        "Increase std from 0.05 to 0.1, matching the convention for the same code path.",
        "Bumped plan workflow timeout from 30m to 45m to accommodate queuing delays.",
        "Base node count: 5 -> 6, so the cluster keeps up with queued jobs at peak.",
    ],
)
def test_a_setting_the_change_moves_is_no_measured_result(setting: str) -> None:
    from digest.reading.why import measured

    assert measured(f"Widgets keep their state.\n\n{setting}\n") == []


def test_mechanics_are_no_reason_but_what_a_change_prevents_is() -> None:
    # "This PR updates the CMake files to enable …" says how; the next sentence says why
    body = (
        "This PR updates the CMake files to enable native Windows builds for the backend. "
        "This avoids stalling the whole queue and only waits for the work submitted by it."
    )
    said = quotation(body, "Support Windows native build")
    assert (
        said == "This avoids stalling the whole queue and only waits for the work submitted by it"
    )
    # the title's own verb again is the title again
    again = "This PR enables the `MM` and `AddMM` operators in the backend using the new flow."
    assert quotation(again, "Enable `MM` and `AddMM` with new flow") is None
    # … while a verb of what it spares users is a reason
    spares = "Prevents undersized GPU buffer allocations from attacker-controlled tensor sizes."
    assert quotation(spares, "Fix integer overflow in multiply_integers") == spares.rstrip(".")
    # what the code does instead is mechanics too
    instead = "Instead use a sentinel and only forward when the argument was passed by the user."
    assert quotation(instead, "Stop forwarding descending unless passed") is None


def test_what_was_wrong_before_is_quoted_ahead_of_how_it_works() -> None:
    body = (
        "The pass resolves parameters by the argument's own index from here on. "
        "Previously only the first tensor of a concatenation was dequantized, so its outputs "
        "were wrong."
    )
    said = quotation(body, "Fix quantized constant folding")
    assert said is not None and said.startswith("Previously only the first tensor"), said
    # a sentence that opens on "However" or "But" leans on the one before it
    leaning = "But the discard path also calls it, running the unlink logic twice over again."
    assert quotation(leaning, "Prevent batch unlinking twice") is None


def test_where_code_came_from_is_no_reason_and_an_example_ends_no_sentence() -> None:
    ported = "Ported from the delegate PR (#18785) Metal shader, with its kernels and tests kept."
    assert quotation(ported, "Add a gated delta rule kernel") is None
    aside = "Memory use drops for long prompts (e.g. 32k tokens), so that larger models fit."
    assert quotation(aside, "Add a paged cache") == aside.rstrip(".")
