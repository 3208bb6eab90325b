"""A change is named only when its sentence comes out clean (docs/DIGEST.md, "The naming
test"); otherwise it is counted, unless it leads or readers must hear of it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from digest.compose import compose
from digest.config import WireConfig
from digest.model import Activity, Story, Window
from tests.test_audience import START, USERS, change


def day_story(activity: list[Activity]) -> Story:
    """The story of one day of `activity` in a project of users."""
    window = Window(since=START, until=START + timedelta(days=1))
    return compose(activity, config=WireConfig(projects=[USERS]), window=window)


def test_a_change_whose_sentence_would_paste_title_fragments_is_counted_not_named() -> None:
    activity = [
        change("Add streaming decoder for large files", "src/decoder.py", n=1),
        change("Add widget export (experimental, behind a flag)", "src/export.py", n=2),
        change("Add cat op + ValueList graph support", "src/ops.py", n=3),
        change("Improve error messages of the parser", "src/parser.py", n=4),
    ]
    story = day_story(activity)
    text = " ".join(s.text for s in story.body)
    assert "streaming decoder" in text and "error messages" in text
    assert "(experimental" not in text and "+" not in text
    # counted, not dropped, and cited by the count so a reader can find them
    named = {"Add streaming decoder for large files", "Improve error messages of the parser"}
    assert {r.title for r in story.references} == {
        *named,
        "Add widget export (experimental, behind a flag)",
        "Add cat op + ValueList graph support",
    }
    assert re.search(r"lands two more changes \[\d\]\[\d\]", text), text


def test_a_clause_that_opens_with_no_verb_we_know_is_not_clean() -> None:
    from digest.english.clean import is_clean
    from digest.reading.classify import classify_one

    assert not is_clean("astros unable to properly handle snippet props")  # a name conjugated
    assert is_clean("only deepcopies non-updated fields in `model_copy()`")
    assert is_clean("syncs the vendored stubs")
    # a word no lexicon knows (a typo of a verb) opens no noun phrase we can name
    assert not classify_one(change("upgade Go modules", "go.mod"), USERS).clean
    # a title's opening clause pasted after our verb
    assert not is_clean("fixes For new-style dtypes use the old printing path")
    assert not is_clean("adds How to swapped in/out features for transposed")
    assert not is_clean("fixes module structure since transformers > 5.5")
    assert is_clean("fixes `a > b` comparisons of widgets")  # code keeps its signs
    # braces that spell several names in one, out of code
    assert not is_clean("adds `null_on_oob` in {Expr/Series}.gather")
    assert is_clean("adds `null_on_oob` in `{Expr,Series}.gather`")
    assert not is_clean("avoids UB in safe_[add,sub,mul] helpers")
    assert is_clean("fixes `args[0,1]` slicing") and is_clean("reads values[0] of a row")
    assert classify_one(change("Upgrade Go modules", "go.mod"), USERS).clean
    # a title-cased word alone says nothing of what changed; a new thing's name may
    assert not is_clean("sets Directory")
    assert is_clean("adds Mica") and is_clean("sets `Directory`")


def test_a_change_that_must_be_told_but_reads_badly_is_told_by_its_quoted_title() -> None:
    only = change("fix: slot props - nested slots of templates", "src/slots.ts", n=1)
    story = day_story([only])
    said = story.body[0].text
    assert said.startswith("widgets fixes “slot props - nested slots of templates” [1]"), said
    # A fault stated as a sentence reads as one now, and needs no quotation.
    stated = change("fix: Renderer unable to handle nested slot props", "src/slots.ts", n=1)
    said = day_story([stated]).body[0].text
    assert said.startswith("widgets fixes Renderer being unable to handle nested slot props [1]"), (
        said
    )
    # A title that opens with "Fix" is quoted after its verb: "fixes “Fix …”" said it twice
    twice = change("fix: Fix .vue files with Cloudflare prerenderEnvironment: node", "src/a.ts")
    said = day_story([twice]).body[0].text
    assert "fixes “.vue files with Cloudflare prerenderEnvironment: node” [1]" in said, said


def test_a_change_that_must_be_told_keeps_its_words_without_the_titles_asides() -> None:
    from digest.english.clean import tidy

    assert tidy("mitigates CVE-2026-1 + CVE-2026-2 (DirtyFrag LPE) on all nodes") == (
        "mitigates CVE-2026-1 and CVE-2026-2 on all nodes"
    )
    assert tidy("adds `f(x)` support") == "adds `f(x)` support"  # code keeps its brackets
    # an aside that is part of a word stays: taking it out would glue two words together
    assert tidy("uses `auxdata` in (arg)sort loops") == "uses `auxdata` in (arg)sort loops"


def test_a_name_or_a_tool_is_never_conjugated_as_a_verb() -> None:
    from digest.english.clean import knows_verb
    from digest.reading.classify import classify_one

    # "pre-commit" is a tool: "pre-commits autoupdate" is no sentence
    assert not classify_one(change("pre-commit autoupdate", ".pre-commit-config.yaml"), USERS).clean
    assert not knows_verb("register-tile")
    # verbs the lexicon lacks but English makes, and phrasal verbs, are verbs
    for verb in ("deduplicate", "precompute", "sympify", "re-enable", "clean up", "quantize"):
        assert knows_verb(verb), verb
    # a typo for the name of the change's own folder is no verb: "netrifies image validation"
    typo = change("fix: netrify image validation", "packages/netlify/src/image.ts")
    assert not classify_one(typo, USERS).clean
    assert classify_one(change("sympify the inputs", "sympy/core/x.py"), USERS).clean


def test_a_round_of_review_is_internal_work() -> None:
    from digest.reading.classify import classify_one

    for title in (
        "Address review feedback on device tensor helpers",
        "Apply review feedback to SDConfig and refresh path",
        "PR comments",
        "Fixing the review findings on the parser",
        "Apply suggestions from code review",
        "Address the third review round",
        "fix: address review feedback from the maintainers",
    ):
        assert classify_one(change(title, "src/widgets/core.py"), USERS).internal, title


def test_code_moved_within_the_code_is_internal_work() -> None:
    from digest.reading.classify import classify_one

    for title in (
        "Inline `set_default`",
        "Extract parsing into a helper",
    ):
        assert classify_one(change(title, "src/widgets/core.py"), USERS).internal, title
    # … not a feature that extracts, nor inline styles users write
    for title in (
        "Extract text from PDF files",
        "Keep inline styles on hydration",
        "inline styles are kept",
    ):
        assert not classify_one(change(title, "src/widgets/core.py"), USERS).internal, title


def test_a_folder_named_with_a_plain_word_is_no_place_in_a_sentence() -> None:
    activity = [
        change(
            "Discover private NIC addresses from IPAM",
            "discovery/cloud/instance.go",
            n=1,
            # (a fourth change is named when its sentence can say why)
            body="Instances behind NAT only have private addresses, so users could not scrape them.",
        ),
        change("Add `least()` and `greatest()` functions", "promql/functions.go", n=2),
        change("Speed up label matching for long lists", "model/labels/matcher.go", n=3),
        change("Add `info()` for target metadata", "promql/info.go", n=4),
    ]
    story = day_story(activity)
    text = " ".join(s.text for s in story.body)
    assert "private NIC addresses from IPAM" in text
    assert " in Discovery" not in text and " in Model" not in text
    assert " in promql" in text or "promql" in " ".join(s.heading for s in story.sections)


def test_a_title_that_adds_to_its_own_pull_request_is_told_without_its_also() -> None:
    from digest.compose.phrases import event_predicate
    from digest.reading.classify import classify_one

    event = classify_one(change("Also capture logs from non-propagating loggers"), USERS)
    assert event_predicate(event, max_words=12) == "captures logs from non-propagating loggers"


def test_a_package_deeper_in_the_tree_is_still_a_place() -> None:
    from digest.compose.phrases import names_a_place
    from digest.reading.classify import classify_one

    adapter = change("Enforce remote image dimensions", "packages/integrations/netlify/src/a.ts")
    assert names_a_place("Netlify", classify_one(adapter, USERS))
    layout = change("Discover private NIC addresses", "discovery/cloud/instance.go")
    assert not names_a_place("Discovery", classify_one(layout, USERS))
    # A part of a package's code, however deep, is laid out, not named ("… in Core") …
    inner = change("Preserve CSS propagation", "packages/widgets/src/core/render.ts")
    assert not names_a_place("Core", classify_one(inner, USERS))
    # … unless the title's own prefix names it.
    tagged = change("Runtime: keep the event loop alive", "src/runtime/loop.ts")
    assert names_a_place("Runtime", classify_one(tagged, USERS))


def test_a_folder_inside_a_package_is_no_subject_and_a_package_is_one() -> None:
    activity = [
        change(
            "Avoid a full reload on stylesheet edits",
            "packages/widgets/src/widget-plugin-hot-reload/index.ts",
            n=1,
        ),
        change("Push down slices into scans", "crates/widgets-plan/src/slice.rs", n=2),
        change("Add a retry option to the client", "src/client.py", n=3),
    ]
    text = " ".join(s.text for s in day_story(activity).body)
    assert "widget-plugin-hot-reload" not in text, text
    assert "widgets-plan pushes down slices" in text, text


def test_a_prefix_naming_a_folder_and_an_acronym_is_the_part_the_sentence_names() -> None:
    activity = [
        change("AWS SD: Set the directory of instances", "discovery/aws/ec2.go", n=1),
        change("OCI SD: drop secondary VNIC labels", "discovery/oci/oci.go", n=2),
        change("Add a retry option to the client", "client/retry.go", n=3),
    ]
    text = " ".join(s.text for s in day_story(activity).body)
    assert "in AWS SD" in text and "in OCI SD" in text, text


def test_a_capital_only_the_title_gave_goes_when_the_description_writes_the_word_lower() -> None:
    from digest.compose.phrases import event_predicate
    from digest.reading.classify import classify_one

    said = "Some classes have auxiliary modules that take no positional argument."
    opener = classify_one(change("FIX Auxiliary modules requiring x argument", body=said), USERS)
    assert event_predicate(opener, max_words=12).startswith("fixes auxiliary modules")
    # a name its description writes capitalised keeps its capital
    name = "The pool shared by Rayon deadlocks when Rayon is busy."
    deadlock = classify_one(change("Fix Rayon deadlock in the pool", body=name), USERS)
    assert "Rayon deadlock" in event_predicate(deadlock, max_words=12)


def test_a_titles_own_also_and_etc_do_not_reach_a_sentence() -> None:
    from digest.compose.phrases import event_predicate
    from digest.english.clean import is_clean
    from digest.reading.classify import classify_one

    radix = classify_one(change("Use radixsort also for descending sorts"), USERS)
    assert event_predicate(radix, max_words=12) == "uses radixsort for descending sorts"
    assert not is_clean("makes a bug sweep for missing error handling, etc")


def test_a_title_the_platform_cut_mid_word_is_quoted_without_the_cut_word() -> None:
    from digest.compose.phrases import quoted_title
    from digest.reading.classify import classify_one

    cut = 'Revert "Add recurrent gated delta rule custom op for Qwen3.5 attentio…'
    event = classify_one(change(cut), USERS)
    quoted = quoted_title(event, max_words=12)
    assert quoted == "“Add recurrent gated delta rule custom op for Qwen3.5…”", quoted


@pytest.mark.parametrize(
    ("title", "paths", "named"),
    [
        # Go's unexported names: lower camel case
        ("Implement widgetStaleReader methods properly", ("tsdb/head.go",), False),
        ("Unexport sortedWidgetRefs", ("tsdb/head.go", "tsdb/head_test.go"), False),
        ("Fix panic in widgetStaleReader on empty blocks", ("tsdb/head.go",), True),
        ("Fix stale widgetSigs maps breaking fill_left", ("promql/engine.go",), True),
        # … which in TypeScript are what users call
        ("Support `transformWidget` in plugins", ("src/plugin.ts",), True),
        # Python's private names (polars' "Move/genericize `_balanced_reduce`", pydantic's
        # "… when synthesizing `_build_sources` …")
        ("Simplify `_balanced_reduce` in the utils", ("py/widgets/_utils.py",), False),
        ("Add support for _widget_forward core op", ("backends/ops.py",), True),
        ("Skip `_unsigned_subtract` for user dtypes", ("src/widgets/ops.c", "py/a.py"), True),
    ],
)
def test_a_change_told_by_a_name_its_code_keeps_private_is_counted_not_named(
    title: str, paths: tuple[str, ...], named: bool
) -> None:
    from digest.reading.classify import classify_one

    assert classify_one(change(title, *paths), USERS).clean is named
