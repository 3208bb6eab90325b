"""The checker on the showcase story: it reports exactly the defects DIGEST.md names."""

from __future__ import annotations

import pytest

from digest.check import check_story, require_integrity
from digest.errors import StoryCheckError
from digest.prose.engine import window_events
from digest.rank import rank
from digest.reading.classify import classify
from digest.render import parse_plain, render_plain
from tests.digest_data import (
    SHOWCASE,
    SHOWCASE_WINDOW,
    both_files,
    example_config,
    executorch,
    window,
)


@pytest.fixture(scope="module")
def showcase_checks():
    story = parse_plain(SHOWCASE.read_text(encoding="utf-8"))
    return story, check_story(story, config=example_config())


def test_showcase_parses_into_its_parts(showcase_checks) -> None:
    story, _ = showcase_checks
    assert story.headline.startswith("PYTORCH FIXES PRECISION DRIFT IN INDUCTOR")
    assert len(story.body) == 6
    assert [i.urgency for i in story.action_items] == ["plan", "monitor", "plan", "immediate"]
    assert [(r.n, r.repo, r.number) for r in story.references][:4] == [
        (1, "pytorch/pytorch", 183932),
        (2, "pytorch/pytorch", 183946),
        (3, "pytorch/pytorch", 184129),
        (4, "pytorch/executorch", 19752),
    ]


def test_rule_1_dangling_citations(showcase_checks) -> None:
    _, checks = showcase_checks
    assert checks.dangling_citations == 2
    assert any(p.startswith("rule 1") and "[8, 15]" in p for p in checks.problems)


def test_rule_3_action_integrity(showcase_checks) -> None:
    _, checks = showcase_checks
    rule3 = next(p for p in checks.problems if p.startswith("rule 3"))
    assert "[8], which do not exist" in rule3
    assert "[15], which do not exist" in rule3
    assert "ShapesSpec" in rule3  # [ref:2] points at the CUDA change, not ShapesSpec
    assert checks.action_integrity == pytest.approx(0.25)


def test_rule_4_canonical_names(showcase_checks) -> None:
    _, checks = showcase_checks
    assert checks.canonical_names < 1.0
    assert any(p.startswith("rule 4") and "ExecutorTorch" in p for p in checks.problems)


def test_rule_2_attribution_catches_the_inductor_credit(showcase_checks) -> None:
    _, checks = showcase_checks
    rule2 = next(p for p in checks.problems if p.startswith("rule 2"))
    assert "Inductor" in rule2
    assert checks.attribution < 0.9


def test_showcase_fails_exactly_rules_1_to_4(showcase_checks) -> None:
    story, checks = showcase_checks
    assert {p.split(":")[0] for p in checks.problems} == {"rule 1", "rule 2", "rule 3", "rule 4"}
    with pytest.raises(StoryCheckError):
        require_integrity(story.model_copy(update={"checks": checks}))


def test_our_story_survives_a_round_trip_through_the_house_format() -> None:
    from digest.compose import compose

    story = compose(both_files(), config=example_config(), window=window(*SHOWCASE_WINDOW))
    reread = parse_plain(render_plain(story))
    assert reread.headline == story.headline
    assert [s.text for s in reread.body] == [s.text for s in story.body]
    assert [(r.n, r.repo, r.number, r.url) for r in reread.references] == [
        (r.n, r.repo, r.number, r.url) for r in story.references
    ]
    # Judged against the window's events (found again by PR number), it passes every rule.
    config = example_config()
    reread = reread.model_copy(update={"window": story.window})
    ranking = rank(window_events(reread, activities=both_files(), config=config))
    assert check_story(reread, config=config, ranking=ranking).problems == ()


def _quiet_story(lede: str, sentences: int = 1):
    from digest.compose import compose

    ci_infra = [a for a in both_files() if a.repo == "pytorch/ci-infra"]
    story = compose(
        ci_infra,
        config=example_config(),
        window=window("2026-05-09T00:00:00+00:00", "2026-05-10T00:00:00+00:00"),
    )
    return story.model_copy(update={"lede": lede, "body": story.body[:sentences]})


def test_rule_7_accepts_a_quiet_day_story_by_its_definition() -> None:
    quiet = _quiet_story("A quiet day for ci-infra, whose only change added two recipes.")
    assert len(quiet.references) == 1 and len(quiet.body) == 1
    assert check_story(quiet, config=example_config()).problems == ()
    unsaid = _quiet_story("ci-infra added two recipes.")
    assert check_story(unsaid, config=example_config()).problems == (
        "rule 7: the lede of a quiet window's story does not say it was quiet, "
        "or what most of a busy one was",
    )


def test_rule_7_still_wants_four_sentences_when_the_day_was_not_quiet() -> None:
    from digest.compose import compose

    story = compose(both_files(), config=example_config(), window=window(*SHOWCASE_WINDOW))
    short = story.model_copy(update={"body": story.body[:2]})
    problems = check_story(short, config=example_config()).problems
    assert any(p.startswith("rule 7: body has 2 sentences, not 4–") for p in problems)


def test_check_judges_the_ranking_it_is_given_without_ranking_again(monkeypatch) -> None:
    import digest.check
    from digest.compose import compose

    config = example_config()
    story = compose(both_files(), config=config, window=window(*SHOWCASE_WINDOW))
    in_window = [a for a in both_files() if story.window.contains(a.landed_at)]
    ranking = rank(classify(in_window, config))

    def no_ranking(*_: object, **__: object) -> None:
        raise AssertionError("check ranked the events again")

    monkeypatch.setattr(digest.check, "rank", no_ranking)
    assert check_story(story, config=config, ranking=ranking).problems == ()
    # Leaving the top-ranked change out of the story is seen through the given ranking.
    top = ranking[0][0]
    rest = [r for r in story.references if r.number != top.activity.number]
    dropped = story.model_copy(update={"references": tuple(rest)})
    figures = check_story(dropped, config=config, ranking=ranking)
    assert figures.reverts_cited < 1.0 or figures.coverage < 1.0


def test_a_sectioned_story_round_trips_with_its_headings() -> None:
    from digest.compose import compose

    week = window("2026-05-18T00:00:00+00:00", "2026-05-25T00:00:00+00:00")
    story = compose(both_files(), config=example_config(), window=week)
    assert story.sections
    reread = parse_plain(render_plain(story))
    assert reread.sections == story.sections
    assert [s.text for s in reread.body] == [s.text for s in story.body]
    assert reread.paragraphs() == story.paragraphs()


def test_a_ci_gate_stated_only_in_a_body_survives_the_house_format() -> None:
    from digest.compose import compose

    config = example_config()
    day = window("2026-06-01T00:00:00+00:00", "2026-06-02T00:00:00+00:00")
    story = compose(executorch(), config=config, window=day)
    (gate,) = [i for i in story.action_items if i.urgency == "immediate"]
    assert "reduces the CI cost" in gate.text  # the gate is stated in the change's body only
    reread = parse_plain(render_plain(story)).model_copy(update={"window": day})
    assert all(not r.sha for r in reread.references)  # the house format keeps no sha
    # From text alone the [immediate] item is not judged: the title cannot show the gate.
    alone = check_story(reread, config=config)
    assert not [p for p in alone.problems if p.startswith(("rule 1", "rule 3", "rule 4"))]
    # With the window's events it is judged, found again by PR number: a [monitor] or
    # [plan] label on the gate would be wrong, and is caught.
    events = classify([a for a in executorch() if day.contains(a.landed_at)], config)
    assert check_story(reread, config=config, events=events).problems == ()
    for urgency in ("monitor", "plan"):
        items = tuple(
            i.model_copy(update={"urgency": urgency}) if i.urgency == "immediate" else i
            for i in reread.action_items
        )
        wrong = reread.model_copy(update={"action_items": items})
        problems = check_story(wrong, config=config, events=events).problems
        assert any(p.startswith("rule 3") for p in problems), urgency
    # A revert's title shows its kind: an [immediate] item on it is judged from text too.
    # (The gate is the day's internal work, so it is cited last, after what users see.)
    (gate_ref,) = next(i for i in reread.action_items if i.urgency == "immediate").refs
    references = tuple(
        r.model_copy(update={"title": 'Revert "Reduce CI cost"'}) if r.n == gate_ref else r
        for r in reread.references
    )
    relabelled = reread.model_copy(update={"references": references})
    assert any(p.startswith("rule 3") for p in check_story(relabelled, config=config).problems)
