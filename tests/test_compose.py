"""Composition on real activity: the showcase window, every day of a quarter, quiet windows."""

from __future__ import annotations

from datetime import timedelta

import pytest

from digest.compose import compose
from digest.config import WireConfig
from digest.errors import UnknownTopicError
from digest.model import Story
from tests.digest_data import SHOWCASE_WINDOW, both_files, example_config, executorch, window


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
    assert story.lede.startswith("A quiet day for ExecuTorch on xnnpack, whose only change")


def test_unknown_topic_lists_the_known_ones() -> None:
    with pytest.raises(UnknownTopicError) as error:
        showcase_story(topic="quantum")
    assert "unknown topic 'quantum'" in str(error.value)
    assert "XNNPACK" in str(error.value) and "Arm" in str(error.value)


def test_names_come_from_configuration_not_from_the_text() -> None:
    bare = compose(both_files(), config=WireConfig(), window=window(*SHOWCASE_WINDOW))
    assert "EXECUTORCH" in bare.headline
    assert all("ExecuTorch" not in s.text for s in bare.body)
    configured = showcase_story()
    assert any(s.text.startswith("ExecuTorch") for s in configured.body)


def test_hostile_titles_cannot_forge_citations() -> None:
    from datetime import UTC, datetime

    from digest.model import Activity

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
