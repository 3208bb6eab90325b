"""Composition on real activity: the showcase window, every day of a quarter, quiet windows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from digest.check.proofread_rules import CONNECTIVES
from digest.compose import compose
from digest.compose.body import ATTRIBUTIONS
from digest.config import Project, TopicRule, WireConfig
from digest.english.clauses import clause, shorten
from digest.errors import UnknownTopicError
from digest.model import Activity, FileChange, Story, Window
from digest.reading.why import plain
from digest.render import render_markdown, render_plain
from digest.sources.replay import ReplaySource
from tests.digest_data import (
    ACTIVITY,
    CI_INFRA,
    EXECUTORCH,
    ROOT,
    SHOWCASE_WINDOW,
    both_files,
    days_and_weeks,
    example_config,
    executorch,
    hourly_changes,
    window,
)

CITE = re.compile(r"\[(\d+)\]")
# A number said in prose: digits, not inside a version, identifier, quote or citation.
NUMBER = re.compile(r"(?<![\w.#:\[-])\d+(?![\w.:\]-])")
QUOTED = re.compile(r"“[^”]*”|`[^`]*`")


def showcase_story(**kwargs: object) -> Story:
    return compose(both_files(), config=example_config(), window=window(*SHOWCASE_WINDOW), **kwargs)


def cited(story: Story) -> set[tuple[str, int | None]]:
    return {(r.repo, r.number) for r in story.references}


def test_showcase_window_cites_the_showcase_changes_and_passes_every_check() -> None:
    story = showcase_story()
    assert {
        ("pytorch/executorch", 19752),
        ("pytorch/executorch", 19751),
        ("pytorch/ci-infra", 611),
        ("pytorch/ci-infra", 619),
    } <= cited(story)
    assert story.checks is not None
    assert story.checks.problems == ()
    assert "EXECUTORCH BACKS OUT XNNPACK SERIALIZATION" in story.headline


def test_executorch_leads_with_the_back_out() -> None:
    story = showcase_story()
    executorch_sentences = [s for s in story.body if "ExecuTorch" in s.text]
    lead = story.reference(executorch_sentences[0].refs[0])
    assert lead is not None and lead.number == 19752
    # The second project's first sentence opens with "Meanwhile", used once a story.
    lead_sentence = executorch_sentences[0].text.removeprefix("Meanwhile, ")
    assert lead_sentence.startswith("ExecuTorch backs out XNNPACK serialization")


def test_pre_merge_gate_split_is_an_immediate_item_of_ci_infra() -> None:
    story = showcase_story()
    immediate = [i for i in story.action_items if i.urgency == "immediate"]
    assert len(immediate) == 1
    ref = story.reference(immediate[0].refs[0])
    assert ref is not None and (ref.repo, ref.number) == ("pytorch/ci-infra", 619)
    assert immediate[0].repo == "pytorch/ci-infra"
    back_out = [i for i in story.action_items if i.urgency == "monitor"]
    assert [story.reference(i.refs[0]).number for i in back_out] == [19752]  # type: ignore[union-attr]


def test_references_are_numbered_by_first_citation() -> None:
    story = showcase_story()
    order: list[int] = []
    for sentence in story.body:
        order += [n for n in sentence.refs if n not in order]
    for item in story.action_items:
        order += [n for n in item.refs if n not in order]
    assert order == [r.n for r in story.references] == list(range(1, len(story.references) + 1))


def test_same_window_composes_to_the_same_ids() -> None:
    first, second = showcase_story(), showcase_story()
    assert first.id == second.id
    assert [i.id for i in first.action_items] == [i.id for i in second.action_items]
    later = compose(
        both_files(),
        config=example_config(),
        window=window("2026-05-25T00:00:00+00:00", "2026-05-26T13:00:00+00:00"),
    )
    assert later.id != first.id


def test_headline_reads_like_news() -> None:
    story = showcase_story()
    assert story.headline == story.headline.upper()
    assert story.headline[-1].isalnum()
    assert len(story.headline) <= 110
    assert all(s.text.endswith(".") for s in story.body)
    # Only a count of what the story does not name may go uncited.
    assert all(s.refs or " more change" in s.text for s in story.body)


def test_every_day_of_the_executorch_quarter_passes_the_integrity_checks() -> None:
    """Rules 1, 3 and 4 on every day (compose raises otherwise); coverage ≥ 0.67 on weekdays."""
    config = example_config()
    day = window("2026-04-01T00:00:00+00:00", "2026-04-02T00:00:00+00:00")
    weekdays = 0
    while day.since.month < 7:
        story = compose(executorch(), config=config, window=day)
        checks = story.checks
        assert checks is not None
        assert checks.dangling_citations == 0
        assert checks.action_integrity == 1.0
        assert checks.canonical_names == 1.0
        if day.since.weekday() < 5:
            weekdays += 1
            assert checks.coverage >= 0.67, (day, checks)
            assert checks.reverts_cited == 1.0, (day, checks)
        day = type(day)(since=day.until, until=day.until + timedelta(days=1))
    assert weekdays == 65


def test_a_quiet_window_gives_an_explicit_no_news_story() -> None:
    story = compose(
        [],
        config=example_config(),
        window=window("2026-08-01T00:00:00+00:00", "2026-08-02T00:00:00+00:00"),
        repos=["pytorch/executorch"],
    )
    assert story.is_empty
    assert story.headline == "NO NEWS FROM EXECUTORCH"
    assert "Nothing landed in ExecuTorch" in story.lede
    assert story.checks is not None and story.checks.problems == ()


def test_topic_narrows_the_story() -> None:
    story = showcase_story(topic="xnnpack")
    assert [r.number for r in story.references] == [19752]
    # One change on the topic: a quiet day's story, which names the topic.
    assert story.lede == "A quiet day for ExecuTorch on xnnpack: one change landed."


def test_unknown_topic_lists_the_known_ones() -> None:
    with pytest.raises(UnknownTopicError) as error:
        showcase_story(topic="quantum")
    assert "unknown topic 'quantum'" in str(error.value)
    assert "XNNPACK" in str(error.value) and "Arm" in str(error.value)


def test_names_come_from_configuration_not_from_the_text() -> None:
    bare = compose(both_files(), config=WireConfig(), window=window(*SHOWCASE_WINDOW))
    assert "EXECUTORCH" in bare.headline
    # unconfigured, a project is called as its own prose spells it, the same way throughout
    assert all("Executorch" not in s.text and "executorch" not in s.text for s in bare.body)
    configured = showcase_story()
    assert any(s.text.startswith("ExecuTorch") for s in configured.body)


def test_hostile_titles_cannot_forge_citations() -> None:
    hostile = Activity(
        repo="pytorch/executorch",
        sha="f" * 40,
        number=1,
        title="Add [3] fake citation and <!channel> ping",
        landed_at=datetime(2026, 5, 25, 1, tzinfo=UTC),
    )
    story = compose([hostile], config=example_config(), window=window(*SHOWCASE_WINDOW))
    assert story.checks is not None and story.checks.dangling_citations == 0
    assert "[3]" not in story.body[0].text and "(3)" in story.body[0].text


# ---------------------------------------------------------------- shape on every window

_CONNECTIVES = ("also", "In addition", "Elsewhere", "Meanwhile", "Beyond these")
_IMPERATIVE = (
    "Check ",
    "Review ",
    "Watch ",
    "Plan ",
    "Try ",
    "Consider ",
    "Upgrade ",
    "Take ",
    "Stop ",
)


def every_window() -> list[tuple[str, tuple[Activity, ...], Window]]:
    """Every UTC day and every Monday-to-Monday week of the three activity files."""
    return [
        (path.name, activities, span)
        for path in (EXECUTORCH, CI_INFRA, ACTIVITY / "pydantic-pydantic-2026-q2.jsonl")
        for activities in [tuple(ReplaySource(path).read_all())]
        for span in days_and_weeks(activities)
    ]


def sentence_faults(text: str) -> list[str]:
    """What a sentence of ours must never do (issue: citations, numbers, fragments)."""
    faults = []
    cites = CITE.findall(text)
    if len(cites) > 3:
        faults.append("more than three citations")
    if len(cites) != len(set(cites)):
        faults.append("a citation twice")
    numbers = NUMBER.findall(QUOTED.sub(" ", text))
    if len(numbers) != len(set(numbers)):
        faults.append("a number twice")
    if re.search(r"\bplan for\b|Teams building on|\blands [A-Z]", text):
        faults.append("a template fragment")
    return faults


def test_every_day_and_week_reads_without_template_faults() -> None:
    config = example_config()
    failures: dict[str, list[str]] = {}
    for name, activities, span in every_window():
        story = compose(activities, config=config, window=span)
        label = f"{name} {span.label()}"
        assert story.checks is not None and story.checks.problems == (), (label, story.checks)
        texts = [story.lede, *(s.text for s in story.body), *(i.text for i in story.action_items)]
        faults = [f"{fault}: {text}" for text in texts for fault in sentence_faults(text)]
        whole = " ".join(texts[: 1 + len(story.body)])
        faults += [
            f"“{word}” twice" for word in _CONNECTIVES if len(re.findall(rf"\b{word}\b", whole)) > 1
        ]
        faults += [
            f"action not imperative: {i.text}"
            for i in story.action_items
            if not i.text.startswith(_IMPERATIVE) or ": " not in i.text or not i.refs
        ]
        if re.search(r"\blanded \d+ changes\b", story.lede):
            faults.append(f"lede is a count: {story.lede}")
        if faults:
            failures[label] = faults
    assert failures == {}


def test_composing_is_byte_identical_run_to_run_and_across_hash_seeds() -> None:
    script = (
        "import sys; sys.path.insert(0, '.');"
        "from tests.digest_data import executorch, example_config, window;"
        "from digest.compose import compose; from digest.render import render_plain;"
        "s = compose(executorch(), config=example_config(),"
        " window=window('2026-04-06T00:00:00+00:00', '2026-05-25T00:00:00+00:00'));"
        "sys.stdout.write(render_plain(s) + s.model_dump_json())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1 and len(next(iter(outputs))) > 1000


def test_a_week_is_sectioned_under_the_lede_and_counts_the_rest() -> None:
    story = compose(
        executorch(),
        config=example_config(),
        window=window("2026-05-18T00:00:00+00:00", "2026-05-25T00:00:00+00:00"),
    )
    headings = [s.heading for s in story.sections]
    assert len(headings) >= 3 and headings[-1] == "In brief"
    assert not {"backends", "src", "tests", "docs", "examples"} & {h.lower() for h in headings}
    named = {n for s in story.body for n in s.refs}
    assert len(named) >= 12  # a week's budget, not a day's five sentences
    brief = [s.text for s in story.body[story.sections[-1].start :]]
    assert any("more changes:" in text and not CITE.search(text) for text in brief)
    assert "This week" in story.lede
    plain = render_plain(story)
    assert "\nIn brief\n" in plain
    markdown = render_markdown(story)
    assert "#### In brief" in markdown


def test_headline_keeps_code_spans_and_tails_never_name_the_project() -> None:
    activity = Activity(
        repo="pydantic/pydantic",
        sha="a" * 40,
        number=7,
        title="Use standard library `LazyLock` (#7)",
        landed_at=datetime(2026, 6, 2, 3, tzinfo=UTC),
        files=(FileChange(path="pydantic/_internal/lock.py", additions=40, deletions=9),),
    )
    story = compose(
        [activity],
        config=WireConfig(),
        window=window("2026-06-02T00:00:00+00:00", "2026-06-03T00:00:00+00:00"),
    )
    assert story.headline == "PYDANTIC USES STANDARD LIBRARY `LazyLock`"
    assert " in pydantic" not in story.body[0].text


def test_seven_weeks_get_a_handful_of_action_items_and_every_immediate_one() -> None:
    story = compose(
        executorch(),
        config=example_config(),
        window=window("2026-04-01T00:00:00+00:00", "2026-05-20T00:00:00+00:00"),
    )
    by_urgency: dict[str, list[str]] = {}
    for item in story.action_items:
        by_urgency.setdefault(item.urgency, []).append(item.text)
    immediate = by_urgency.pop("immediate", [])
    assert immediate, "the window has a CI-gate change"
    assert sum(map(len, by_urgency.values())) <= 5
    assert len(by_urgency["monitor"]) <= 3
    places = [text.split(":")[0] for text in by_urgency["monitor"]]
    assert len(places) == len(set(places))  # one [monitor] item a topic
    counted = [s.text for s in story.body if "more changes" in s.text and "backs out" in s.text]
    assert counted and not CITE.search(counted[0])  # the other reverts are counted
    assert story.checks is not None and story.checks.problems == ()


_FEATURES = (
    "exporter",
    "tracer",
    "scheduler",
    "allocator",
    "profiler",
    "linker",
    "parser",
    "cache",
)
_WORK = (
    ("Read TOML manifests", "config"),
    ("Speed up YAML dumping", "dump"),
    ("Stream JSON lines to stdout", "cli"),
    ("Accept CSV headers in any case", "csv"),
    ("Cache Parquet footers", "store"),
    ("Log Avro schema mismatches", "avro"),
)


def test_a_week_of_reverts_in_many_topics_watches_the_three_most_significant() -> None:
    start = datetime(2026, 6, 1, tzinfo=UTC)
    reverts = [
        Activity(
            repo="acme/widget",
            sha=f"{n:040x}",
            number=n,
            title=f'Revert "Add a {feature} for {n} workers"',
            landed_at=start + timedelta(hours=n),
            files=(FileChange(path=f"widget/{feature}/x.py", additions=n * 40, deletions=3),),
        )
        for n, feature in enumerate(_FEATURES, 1)
    ]
    work = [
        Activity(
            repo="acme/widget",
            sha=f"{100 + n:040x}",
            number=100 + n,
            title=title,
            landed_at=start + timedelta(hours=20 + n),
            files=(FileChange(path=f"widget/{folder}/x.py", additions=20, deletions=3),),
        )
        for n, (title, folder) in enumerate(_WORK)
    ]
    story = compose(
        [*reverts, *work],
        config=WireConfig(),
        window=window(start.isoformat(), "2026-06-08T00:00:00+00:00"),
    )
    monitor = [i for i in story.action_items if i.urgency == "monitor"]
    numbers = {story.reference(n).number for item in monitor for n in item.refs}  # type: ignore[union-attr]
    assert len(monitor) == 3 and numbers == {8, 7, 6}  # the largest reverts, one a topic
    body = " ".join(s.text for s in story.body)
    # two back-outs named, the other six counted; the one of those an item watches is said
    assert body.count("backs out “") == 2, body
    assert "backs out six more changes, one of them cited in the action items." in body
    assert story.checks is not None and story.checks.problems == ()


def test_the_showcase_back_out_is_watched_on_its_backend() -> None:
    (watch,) = [i for i in showcase_story().action_items if i.urgency == "monitor"]
    assert watch.text.startswith(
        "Check whether ExecuTorch's XNNPACK backend still does what you rely on: "
        "XNNPACK serialization was backed out"
    )


def _opening_subject(text: str) -> str:
    """ "ExecuTorch", "it" or "ExecuTorch's Arm backend": what opens the sentence."""
    text = re.sub(rf"^({'|'.join(CONNECTIVES)}), ", "", text, flags=re.I)
    backend = re.match(r"\S+'s (\S+ ){1,3}?backend\b", text)
    return backend.group(0) if backend else text.split()[0]


def test_a_day_gives_a_repeated_subject_a_stand_in() -> None:
    body = [s.text for s in showcase_story().body]
    # Moving to another part of ci-infra, the sentence says so and "it" stands in for the name.
    moved = re.search(r"(\w+(?: \w+){0,2}), it adds dedicated nodepool fleets", " ".join(body))
    assert moved is not None and moved.group(1).lower() in CONNECTIVES
    subjects = [_opening_subject(text) for text in body]
    assert all(a != b for a, b in pairwise(subjects)), subjects


# The frames a quotation of a description opens with ("its description says ").
FRAMES = "|".join(re.escape(frame.split("“")[0]) for frame in ATTRIBUTIONS)


def test_a_quoted_title_is_whole_or_ends_in_an_ellipsis() -> None:
    """A quotation (a backed-out or relanded title) is the title as written, or a cut of it
    marked with "…", across every day and week of the corpus. A quotation of a change's
    description ("its description says “…”") is its words, verbatim (rule 8 checks which)."""
    config = example_config()
    quotes = cut = described = 0
    for name, activities, span in every_window():
        story = compose(activities, config=config, window=span)
        titles = [ref.title.lower() for ref in story.references]
        texts = [story.headline, story.lede, *(s.text for s in story.body)]
        texts += [item.text for item in story.action_items]
        bodies = " ".join(
            plain(a.body) for a in activities if a.sha in {r.sha for r in story.references}
        )
        found = [m for text in texts for m in re.finditer(rf"({FRAMES})?“([^”]*)”", text)]
        for said, quote in (m.groups() for m in found):
            if said:
                described += 1
                assert quote.rstrip("…") in bodies, f"{name} {span.label()}: “{quote}”"
                continue
            quotes += 1
            label = f"{name} {span.label()}: “{quote}”"
            if quote.endswith("…"):
                cut += 1
                assert any(quote[:-1].lower() in title for title in titles), label
            else:  # whole: in some title, and no word of it follows the quotation there
                rests = [t.split(quote.lower(), 1)[1] for t in titles if quote.lower() in t]
                assert any(not re.match(r"\s*\w", rest) for rest in rests), label
    assert quotes > 50 and cut > 0 and described > 50, (quotes, cut, described)


def test_an_object_closing_on_the_projects_own_name_drops_it_but_a_quotation_keeps_it() -> None:
    def landed(title: str, hour: int) -> Activity:
        return Activity(
            repo="pytorch/executorch",
            sha=f"{hour:040x}",
            title=title,
            landed_at=datetime(2026, 6, 2, hour, tzinfo=UTC),
            files=(FileChange(path="extension/image/processor.cpp", additions=120, deletions=3),),
        )

    story = compose(
        [
            landed("Add ImageProcessor library to ExecuTorch", 3),
            landed('Revert "Add Arduino library support for ExecuTorch"', 5),
        ],
        config=example_config(),
        window=window("2026-06-02T00:00:00+00:00", "2026-06-03T00:00:00+00:00"),
    )

    body = " ".join(s.text for s in story.body)
    assert "adds an ImageProcessor library [" in body
    assert "“Add Arduino library support for ExecuTorch”" in body
    assert "library to ExecuTorch" not in body + story.lede + story.headline.title()


def test_backend_folders_come_from_the_project() -> None:
    """A change under `<backend folder>/<topic>/` happens in "<Project>'s <Topic> backend";
    the folders are the project's `backend_folders`, so a project without any names none."""
    change = Activity(
        repo="acme/engine",
        sha="b" * 40,
        number=9,
        title="Add int4 kernels (#9)",
        landed_at=datetime(2026, 6, 2, 3, tzinfo=UTC),
        files=(FileChange(path="drivers/vulkan/int4.cpp", additions=200, deletions=0),),
    )
    span = window("2026-06-02T00:00:00+00:00", "2026-06-03T00:00:00+00:00")

    def first_sentence(**project: object) -> str:
        vulkan = TopicRule(name="Vulkan", paths=("drivers/vulkan/**",))
        engine = Project(repo="acme/engine", name="Engine", topics=(vulkan,), **project)
        return compose([change], config=WireConfig(projects=[engine]), window=span).body[0].text

    assert first_sentence(backend_folders=("drivers",)).startswith("Engine's Vulkan backend adds")
    assert not first_sentence().startswith("Engine's")


def test_no_frame_of_a_quotation_is_heard_more_than_twice_in_a_story() -> None:
    from digest.compose.body import MAX_FRAME_USES
    from tests.digest_data import every_story

    for label, story in every_story():
        text = " ".join(s.text for s in story.body)
        for frame in ATTRIBUTIONS:
            assert text.count(frame.split("“")[0]) <= MAX_FRAME_USES, (label, frame)


def test_no_opening_claims_two_changes_are_alike() -> None:
    """ "Likewise" and "Similarly" joined unrelated fixes: another change of the same kind
    opens with a connective that adds, not one that compares."""
    from tests.digest_data import every_story

    for label, story in every_story():
        text = " ".join(s.text for s in story.body)
        assert not re.search(r"\b(Likewise|Similarly|Along the same lines),", text), label


def test_restructured_texts_code_reads_as_markdowns() -> None:
    from digest.untrusted import clean_fragment

    assert clean_fragment("ENH: add ``np.matvec`` for ``object`` arrays") == (
        "ENH: add `np.matvec` for `object` arrays"
    )


def _day_of(*titles: str) -> Story:
    """The story of one day of acme/widgetry whose changes have `titles`, an hour apart."""
    start = datetime(2026, 5, 4, tzinfo=UTC)
    window = Window(since=start, until=start + timedelta(days=1))
    return compose(hourly_changes(*titles), config=WireConfig(), window=window)


@pytest.mark.parametrize(
    "title", ['Revert "PR 16708"', "Revert #16708", 'Revert "pull request 16708"']
)
def test_a_revert_whose_title_names_only_a_pull_request_is_not_quoted_as_a_title(
    title: str,
) -> None:
    story = _day_of(title, "Fix crash on exit when the cache is missing")
    told = " ".join(s.text for s in story.body)
    assert "backs out an earlier change (#16708) [1]" in told, told
    assert "“" not in told and "PR 16708" not in story.headline, story.headline
    items = " ".join(i.text for i in story.action_items)
    assert "an earlier change (#16708) was backed out" in items, items


def test_a_project_that_fixes_its_own_inability_now_does_the_thing() -> None:
    story = _day_of(
        "Widgetry unable to handle nested snippet props", "Add a retry option to the client"
    )
    told = " ".join(s.text for s in story.body)
    assert "now handles nested snippet props [" in told, told
    assert "being unable" not in told, told


def test_a_lede_never_cuts_an_inability_before_its_verb() -> None:
    # cut for the lede to "Widgetry is unable", it read "… and makes Widgetry unable."
    story = _day_of(
        "fix: Widgetry is unable to properly handle nested slot props in strict mode",
        "Add a retry option to the client",
    )
    assert "unable." not in story.lede and "makes Widgetry" not in story.lede, story.lede
    assert "handles nested slot props" in story.lede, story.lede


def test_a_cut_never_ends_on_a_purpose_without_its_object() -> None:
    # "keeps AWS SDK clients out of interfaces to shrink." dropped "the binary"
    cut = shorten("split the parser into modules to speed the cold start", max_words=8)
    assert cut == "split the parser into modules", cut


def test_a_fix_of_a_list_of_things_conjugates_none_of_them() -> None:
    # "fix: error prefix, primary-only route, rate cap" read "… and rates cap"
    said = clause("error prefix, primary-only route, rate cap", kind="fix")
    assert said == "fixes error prefix, primary-only route and rate cap", said


@pytest.mark.parametrize(
    ("title", "told"),
    [
        # a thing, not an action: backed out in our words
        ("Revert widget detection that caused build regression", "backs out widget detection"),
        ('Revert "the streaming cache"', "backs out the streaming cache"),
        # a statement, or an action, stays quoted
        ('Revert "fix: parser is broken"', "backs out “parser is broken”"),
        ('Revert "Add a retry option to the client"', "backs out “Add a retry option"),
    ],
)
def test_a_revert_of_a_thing_is_told_in_our_words_and_of_a_statement_quoted(
    title: str, told: str
) -> None:
    story = _day_of(title, "Fix crash on exit when the cache is missing")
    body = " ".join(s.text for s in story.body)
    assert told in body, body
