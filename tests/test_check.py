"""The checker on the showcase story: it reports exactly the defects DIGEST.md names."""

from __future__ import annotations

import pytest

from digest.check import check_story, require_integrity
from digest.classify import classify
from digest.errors import StoryCheckError
from digest.rank import rank
from digest.render import parse_plain, render_plain
from tests.digest_data import SHOWCASE, SHOWCASE_WINDOW, both_files, example_config, window


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
    in_window = [a for a in both_files() if story.window.contains(a.landed_at)]
    ranking = rank(classify(in_window, config))
    reread = reread.model_copy(update={"window": story.window})
    assert check_story(reread, config=config, ranking=ranking).problems == ()
