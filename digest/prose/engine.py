"""`rewrite_story`: the model's lede and body when they pass every check, else the rules'.

    facts → ask → parse → judge (validation, then digest.check and digest.check.proofread)
    → [retry once with the errors] → the rewritten story, or the rules' story, reason logged

The headline, action items and references stay the composer's. The whole rewrite runs
under one deadline (`[prose] timeout`), so a slow model never holds a story back longer.
Nothing here raises: whatever goes wrong leaves the rules' story, and "wire.prose" logs
why (never the key, never a header).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable

from digest.compose import filter_topic
from digest.config import WireConfig
from digest.model import Activity, Story
from digest.prose.client import ChatClient, Message, ProseUnavailable
from digest.prose.facts import Facts, build_facts
from digest.prose.judge import StoryJudge
from digest.prose.prompt import first_messages, retry_messages
from digest.prose.validation import (
    AnswerError,
    answer_errors,
    parse_answer,
    render_lede,
    render_sentence,
)
from digest.reading.classify import classify
from digest.reading.event import Event

log = logging.getLogger("wire.prose")


class ProseRejected(Exception):
    """Both attempts' answers failed validation or the story checks."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("; ".join(errors))


async def rewrite_story(
    story: Story,
    *,
    config: WireConfig,
    activities: Iterable[Activity],
    client: ChatClient | None = None,
) -> Story:
    """`story` with its lede and body rewritten by the configured model, when allowed.

    With `[prose] engine = "rules"`, or a story with no body, returns `story` itself and
    makes no call. `activities` are the window's (the checks need their classified events).
    """
    settings = config.prose
    if not settings.enabled or not story.body:
        return story
    client = client or ChatClient.from_settings(settings)
    started = time.perf_counter()
    try:
        async with asyncio.timeout(settings.timeout):
            events = window_events(story, activities=activities, config=config)
            judge = StoryJudge(story=story, config=config, events=events)
            facts = build_facts(story, events=events, config=config)
            rewritten, attempts = await _ask(client, facts, story=story, judge=judge)
    except TimeoutError:
        reason = f"the model did not answer within {settings.timeout:g}s"
    except ProseUnavailable as error:
        reason = str(error)
    except ProseRejected as error:
        reason = f"the answer was rejected twice: {error}"
    except Exception as error:  # a fault of ours must not cost the story its delivery
        log.exception("story %s: the prose engine failed", story.id)
        reason = f"the prose engine failed ({type(error).__name__})"
    else:
        log.info(
            "story %s: lede and body written by %s (attempt %d, %.2fs)",
            story.id, client.model, attempts, time.perf_counter() - started,
        )  # fmt: skip
        return rewritten
    log.warning("story %s: using the rules' text: %s", story.id, reason)
    return story


def window_events(
    story: Story, *, activities: Iterable[Activity], config: WireConfig
) -> list[Event]:
    """The classified events of the story's window (and topic), as the composer judged them."""
    activities = list(activities)
    in_window = [a for a in activities if story.window.contains(a.landed_at)]
    earlier = [a for a in activities if a.landed_at < story.window.since]
    return filter_topic(classify(in_window, config, earlier=earlier), story.topic, config)


async def _ask(
    client: ChatClient, facts: Facts, *, story: Story, judge: StoryJudge
) -> tuple[Story, int]:
    """The accepted rewrite and its attempt number; raises ProseRejected after two misses."""
    messages: list[Message] = first_messages(facts)
    errors: list[str] = []
    for attempt in (1, 2):
        content = await client.complete(messages)
        candidate, errors = judged(content, facts, story=story, judge=judge)
        if candidate is not None:
            return candidate, attempt
        if attempt == 1:
            log.info("story %s: answer rejected, asking once more: %s", story.id, "; ".join(errors))
            messages = retry_messages(messages, content, errors)
    raise ProseRejected(errors)


def judged(
    content: str, facts: Facts, *, story: Story, judge: StoryJudge
) -> tuple[Story | None, list[str]]:
    """The checked story an answer makes, or None and the errors that reject it."""
    try:
        answer = parse_answer(content)
    except AnswerError as error:
        return None, [str(error)]
    errors = answer_errors(answer, facts)
    if errors:
        return None, errors
    candidate = story.model_copy(
        update={
            "lede": render_lede(answer.lede),
            "body": tuple(
                drafted.model_copy(update=render_sentence(text).model_dump())
                for drafted, text in zip(story.body, answer.body, strict=True)
            ),
        }
    )
    checks, errors = judge.verdict(candidate)
    if errors:
        return None, errors
    return candidate.model_copy(update={"checks": checks}), []
