"""Judging a rewritten story against the rules' story it came from.

A rewrite passes when `digest.check` finds no rule failing that the rules' story passes, no
figure worse than the rules' (attribution, canonical names, action integrity, coverage),
nothing that `require_integrity` refuses, and `digest.check.proofread` no slip the rules' text
does not already have (a repeated connective, a sentence without a finite verb, …).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from digest.check import check_story, require_integrity
from digest.check.proofread import proofread
from digest.config import WireConfig
from digest.errors import StoryCheckError
from digest.model import CheckFigures, Story
from digest.reading.event import Event

_RULE = re.compile(r"rule (\d+)")
FIGURES = ("attribution", "canonical_names", "action_integrity", "coverage")


def _rule(problem: str) -> str:
    match = _RULE.match(problem)
    return match.group(1) if match else problem


@dataclass
class StoryJudge:
    """The checks and the proofreader, with the rules' story as the bar to meet."""

    story: Story
    config: WireConfig
    events: list[Event]
    baseline: CheckFigures = field(init=False)
    slips: Counter[tuple[str, str]] = field(init=False)

    def __post_init__(self) -> None:
        self.baseline = self.checks(self.story)
        self.slips = self._slips(self.story)

    def checks(self, story: Story) -> CheckFigures:
        """The figures of DIGEST.md's rules for `story`, judged on the window's events."""
        return check_story(story, config=self.config, events=self.events)

    def _slips(self, story: Story) -> Counter[tuple[str, str]]:
        return Counter((p.rule, p.text.lower()) for p in proofread(story, config=self.config))

    def verdict(self, candidate: Story) -> tuple[CheckFigures, list[str]]:
        """`candidate`'s figures and every way it is worse than the rules' story."""
        checks = self.checks(candidate)
        failing = {_rule(p) for p in self.baseline.problems}
        errors = [f"the story fails {p}" for p in checks.problems if _rule(p) not in failing]
        for figure in FIGURES:  # within a rule's threshold, still no worse than the rules
            before, after = getattr(self.baseline, figure), getattr(checks, figure)
            if after < before:
                errors.append(
                    f"the story's {figure.replace('_', ' ')} falls from {before} to {after}"
                )
        try:
            require_integrity(candidate.model_copy(update={"checks": checks}))
        except StoryCheckError as error:
            errors.append(str(error))
        for (rule, text), count in (self._slips(candidate) - self.slips).items():
            times = f" ({count}×)" if count > 1 else ""
            errors.append(f"the rewrite reads badly ({rule}): “{text[:80]}”{times}")
        return checks, errors
