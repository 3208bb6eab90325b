"""The LLM prose engine on its leash, with the real httpx client against a loopback
OpenAI-compatible server (tests/fakes/openai_server.py) that scripts good, lying, slow and
broken answers about the story it is sent.

A good rewrite reaches the story and passes digest.check; a lie never does (the rules'
text stays, and "wire.prose" says why); a slow or failing endpoint costs at most the
timeout; the API key appears in no log line and no repr.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest

from digest.check import require_integrity
from digest.compose import compose
from digest.config import WireConfig, load_config
from digest.errors import ConfigError
from digest.model import Reference, Sentence, Story, Window
from digest.pipeline import compose_activities, compose_window
from digest.prose.client import ChatClient
from digest.prose.engine import judged, window_events
from digest.prose.facts import build_facts
from digest.prose.judge import StoryJudge
from digest.prose.validation import Answer, answer_errors
from digest.prose_settings import ProseSettings
from digest.sources.replay import ReplaySource
from tests.digest_data import (
    CI_INFRA,
    EXECUTORCH,
    SHOWCASE_WINDOW,
    both_files,
    example_config,
    executorch,
    window,
)
from tests.fakes.openai_server import LIES, FakeOpenAI, Scripted, claim, echo, good, rewrite

KEY = "sk-wire-test-4f1c9e07d2b8a6350f1e"
SHOWCASE = window(*SHOWCASE_WINDOW)
# What each lie must be rejected for, in the reason that is logged.
REASONS = {  # patterns of what the warning says
    "new reference": "which are not references",
    "misspelt name": "ExecutorTorch",
    "wrong project": "PyTorch",
    "other project": "names ci-infra, which its draft does not",
    "padded": "words; its draft has",
    # The draft's own length sets the counts: the connective on all but its first sentence.
    "monotonous": r"reads badly \(repeated-connective\): “meanwhile ×\d+”",
    "misattributed lede": "xnnpack of ci-infra, which the draft does not",
    "wrong component": "attribution",
    "new number": "40",
    "moved citation": "which is not the claim of reference",
    "dropped citation": "cites no marker",
    "wrong count": r"the body has (\d+) sentences; the draft has (?!\1\b)\d+",
    "not JSON": "not a JSON object",
}


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeOpenAI]:
    """The loopback endpoint, requiring KEY, which the environment provides."""
    monkeypatch.setenv("WIRE_PROSE_API_KEY", KEY)
    async with FakeOpenAI(api_key=KEY) as server:
        yield server
    assert server.problems == []


def llm_config(url: str, *, timeout: float = 5.0, model: str = "wire-test-model") -> WireConfig:
    prose = ProseSettings(engine="llm", base_url=url, model=model, timeout=timeout)
    return example_config().model_copy(update={"prose": prose})


def rules_story(config: WireConfig) -> Story:
    return compose(both_files(), config=config, window=SHOWCASE)


async def llm_story(config: WireConfig) -> Story:
    return await compose_activities(list(both_files()), config=config, window=SHOWCASE)


def prose_records(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "wire.prose" and r.levelno == level]


def prose_of(story: Story) -> tuple[str, tuple[str, ...]]:
    return story.lede, tuple(s.text for s in story.body)


# ---------------------------------------------------------------- the good answer


async def test_a_good_rewrite_reaches_the_story_and_passes_the_checks(fake: FakeOpenAI) -> None:
    config = llm_config(fake.url)
    rules = rules_story(config)
    story = await llm_story(config)

    (request,) = fake.requests
    answered = json.loads(request.reply)
    assert story.lede == answered["lede"] == claim(rules.body[0].text) + "."
    assert [s.text for s in story.body] == answered["body"]
    assert answered["body"] == [rewrite(s.text, i) for i, s in enumerate(rules.body)]
    assert prose_of(story) != prose_of(rules)
    assert story.body[1].text.startswith("Meanwhile, ")
    # Only the prose changed: headline, citations, action items and references are the rules'.
    assert story.headline == rules.headline
    assert [s.refs for s in story.body] == [s.refs for s in rules.body]
    assert story.action_items == rules.action_items
    assert story.references == rules.references
    assert story.checks is not None and story.checks.problems == ()
    require_integrity(story)

    assert request.authorization == f"Bearer {KEY}"
    assert request.body["model"] == "wire-test-model"
    assert [m["role"] for m in request.body["messages"]] == ["system", "user"]
    assert [s["draft"] for s in request.facts["body"]] == [s.text for s in rules.body]
    assert sorted(request.facts["projects"]) == ["ExecuTorch", "ci-infra"]


async def test_wire_digest_path_uses_the_model_when_configured(fake: FakeOpenAI) -> None:
    config = llm_config(fake.url)
    sources = [ReplaySource(EXECUTORCH), ReplaySource(CI_INFRA)]
    story = await compose_window(sources, config=config, window=SHOWCASE)
    (request,) = fake.requests
    assert story.lede == json.loads(request.reply)["lede"]
    assert story.lede != rules_story(config).lede


async def test_a_rejected_answer_is_retried_once_with_its_errors(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="wire.prose")
    config = llm_config(fake.url)
    fake.script(LIES["new number"], good)
    story = await llm_story(config)

    first, retry = fake.requests
    assert story.lede == json.loads(retry.reply)["lede"]
    assert [s.text for s in story.body] == json.loads(retry.reply)["body"]
    messages = retry.body["messages"]
    assert messages[:2] == first.body["messages"]
    assert messages[2]["role"] == "assistant" and "40%" in messages[2]["content"]
    assert messages[3]["role"] == "user"
    assert (
        "sentence 1: uses names or numbers that are not in the facts: 40" in messages[3]["content"]
    )
    assert any("asking once more" in m for m in prose_records(caplog, logging.INFO))
    assert prose_records(caplog, logging.WARNING) == []


# ---------------------------------------------------------------- lies


@pytest.mark.parametrize("lie", sorted(LIES))
async def test_a_lying_answer_never_reaches_the_story(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture, lie: str
) -> None:
    config = llm_config(fake.url)
    rules = rules_story(config)
    fake.script(LIES[lie], LIES[lie])
    story = await llm_story(config)

    assert story == rules
    assert len(fake.requests) == 2
    (warning,) = prose_records(caplog, logging.WARNING)
    assert "using the rules' text" in warning
    assert re.search(REASONS[lie], warning), warning


def test_the_scripted_lies_would_change_the_story() -> None:
    """Each lie differs from the draft (so rejecting it is the leash, not a no-op)."""
    config = example_config()
    rules = rules_story(config)
    events = window_events(rules, activities=both_files(), config=config)
    facts = build_facts(rules, events=events, config=config).as_prompt()
    drafted = echo(facts)
    assert [lie for lie in LIES if LIES[lie](facts) == drafted] == []


def test_markup_links_and_mentions_are_rejected() -> None:
    config = example_config()
    story = rules_story(config)
    facts = build_facts(
        story, events=window_events(story, activities=both_files(), config=config), config=config
    )
    drafts = [s.text for s in story.body]
    for poison in ("@everyone ", "see https://evil.example ", "<!channel> ", "**urgent** "):
        body = [poison + drafts[0], *drafts[1:]]
        errors = answer_errors(Answer(lede=story.lede, body=tuple(body)), facts)
        assert any("markup" in e for e in errors), poison


@pytest.mark.parametrize(
    "path",
    [EXECUTORCH, CI_INFRA],
    ids=["executorch", "ci-infra"],
)
def test_the_rules_own_text_always_passes_the_leash(path) -> None:
    """Every day and every Monday-to-Monday week of both activity files: the draft given
    back unchanged is accepted, by the validation and by the judge (check and proofread)."""
    config = example_config()
    activities = executorch() if path == EXECUTORCH else tuple(ReplaySource(path).read_all())
    first = min(a.landed_at for a in activities).replace(hour=0, minute=0, second=0, microsecond=0)
    last = max(a.landed_at for a in activities)
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    mondays = [d for d in days if d.weekday() == 0]
    windows = [Window(since=d, until=d + timedelta(days=1)) for d in days]
    windows += [Window(since=m, until=m + timedelta(days=7)) for m in mondays]
    judged = 0
    for span in windows:
        story = compose(activities, config=config, window=span)
        if not story.body:
            continue
        events = window_events(story, activities=activities, config=config)
        facts = build_facts(story, events=events, config=config)
        answer = Answer(lede=story.lede, body=tuple(s.text for s in story.body))
        assert answer_errors(answer, facts) == [], span.label()
        assert judged_answer(story, events, facts, answer) == [], span.label()
        judged += 1
    assert judged >= 20


def judged_answer(story: Story, events, facts, answer: Answer) -> list[str]:
    content = json.dumps({"lede": answer.lede, "body": list(answer.body)})
    judge = StoryJudge(story=story, config=example_config(), events=events)
    return judged(content, facts, story=story, judge=judge)[1]


# ---------------------------------------------------------------- slow and failing endpoints


async def test_a_slow_answer_falls_back_within_the_timeout(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    config = llm_config(fake.url, timeout=0.5)
    fake.script(Scripted(write=good, delay=10.0))
    started = time.perf_counter()
    story = await llm_story(config)
    elapsed = time.perf_counter() - started

    assert story == rules_story(config)
    assert elapsed < 0.5 + 0.6  # the timeout, plus composing the story twice over
    (warning,) = prose_records(caplog, logging.WARNING)
    assert "did not answer within 0.5s" in warning
    assert len(fake.requests) == 1


async def test_a_slow_first_answer_leaves_no_time_for_a_retry(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    """The timeout bounds the whole rewrite, retry included."""
    config = llm_config(fake.url, timeout=0.8)
    fake.script(Scripted(write=LIES["new number"], delay=0.5), Scripted(write=good, delay=0.5))
    started = time.perf_counter()
    story = await llm_story(config)
    assert time.perf_counter() - started < 0.8 + 0.6
    assert story == rules_story(config)
    assert "did not answer within 0.8s" in prose_records(caplog, logging.WARNING)[0]


@pytest.mark.parametrize("status", [500, 503, 429, 400])
async def test_an_http_error_falls_back_at_once(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture, status: int
) -> None:
    config = llm_config(fake.url)
    fake.script(Scripted(status=status))
    started = time.perf_counter()
    story = await llm_story(config)
    assert time.perf_counter() - started < 1.0
    assert story == rules_story(config)
    assert len(fake.requests) == 1
    (warning,) = prose_records(caplog, logging.WARNING)
    assert f"answered HTTP {status}" in warning


async def test_a_body_that_is_not_json_falls_back(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    config = llm_config(fake.url)
    fake.script(Scripted(body="<html>502 Bad Gateway</html>"))
    story = await llm_story(config)
    assert story == rules_story(config)
    assert "a body that is not JSON" in prose_records(caplog, logging.WARNING)[0]


async def test_a_refused_connection_falls_back(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = llm_config(f"http://127.0.0.1:{port}/v1")
    story = await llm_story(config)
    assert story == rules_story(config)
    assert "could not be reached (ConnectError)" in prose_records(caplog, logging.WARNING)[0]


async def test_a_wrong_model_name_is_refused_by_the_server_and_falls_back(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    config = llm_config(fake.url, model="not-served")
    story = await llm_story(config)
    assert story == rules_story(config)
    assert "answered HTTP 400" in prose_records(caplog, logging.WARNING)[0]
    assert fake.problems == ["model is 'not-served'; this server serves 'wire-test-model'"]
    fake.problems.clear()


# ---------------------------------------------------------------- rules engine


async def test_rules_engine_calls_nothing_and_is_byte_identical(fake: FakeOpenAI) -> None:
    prose = ProseSettings(engine="rules", base_url=fake.url, model="wire-test-model")
    config = example_config().model_copy(update={"prose": prose})
    runs = [
        await compose_window(
            [ReplaySource(EXECUTORCH), ReplaySource(CI_INFRA)], config=config, window=SHOWCASE
        )
        for _ in range(2)
    ]
    assert runs[0].model_dump_json() == runs[1].model_dump_json()
    assert runs[0].model_dump_json() == rules_story(config).model_dump_json()
    assert fake.requests == []


async def test_a_story_with_no_body_asks_nothing(fake: FakeOpenAI) -> None:
    config = llm_config(fake.url)
    quiet = window("2026-05-30T00:00:00+00:00", "2026-05-30T00:05:00+00:00")
    story = await compose_activities(list(both_files()), config=config, window=quiet)
    assert story.is_empty
    assert fake.requests == []


# ---------------------------------------------------------------- the key


async def test_the_api_key_is_in_no_log_line_and_no_repr(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included
    config = llm_config(fake.url, timeout=0.5)
    fake.script(
        good,
        Scripted(status=500),
        LIES["moved citation"],
        LIES["moved citation"],
        Scripted(write=good, delay=5.0),
    )
    for _ in range(4):
        await llm_story(config)
    assert all(r.authorization == f"Bearer {KEY}" for r in fake.requests)  # the key was used
    assert len(fake.requests) == 5
    assert caplog.records
    assert KEY not in caplog.text
    assert all(KEY not in str(r.args) for r in caplog.records)
    client = ChatClient.from_settings(config.prose)
    for shown in (
        repr(client),
        str(client),
        repr(config.prose),
        repr(config),
        config.model_dump_json(),
    ):
        assert KEY not in shown
    assert "api_key=set" in repr(client)


async def test_a_wrong_key_is_refused_and_falls_back_without_showing_it(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("WIRE_PROSE_API_KEY", "sk-wrong-7d1e2c")
    config = llm_config(fake.url)
    story = await llm_story(config)
    assert story == rules_story(config)
    assert "answered HTTP 401" in prose_records(caplog, logging.WARNING)[0]
    assert "sk-wrong-7d1e2c" not in caplog.text
    assert fake.problems == ["a request came without the right Authorization: Bearer key"]
    fake.problems.clear()


def test_the_key_does_not_belong_in_the_file(tmp_path) -> None:
    file = tmp_path / "wire.toml"
    file.write_text('[prose]\nengine = "llm"\nmodel = "m"\napi_key = "sk-in-the-file"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(file)
    assert "set the environment variable WIRE_PROSE_API_KEY instead" in str(caught.value)
    assert "sk-in-the-file" not in str(caught.value)


def test_the_prose_table_is_read_from_the_file(tmp_path, monkeypatch) -> None:
    file = tmp_path / "wire.toml"
    file.write_text(
        '[prose]\nengine = "llm"\nbase_url = "http://127.0.0.1:8080/v1"\n'
        'model = "qwen2.5:7b-instruct"\ntimeout = 7.5\napi_key_env = "MY_LLM_KEY"\n'
    )
    prose = load_config(file).prose
    assert (prose.engine, prose.base_url, prose.model, prose.timeout) == (
        "llm",
        "http://127.0.0.1:8080/v1",
        "qwen2.5:7b-instruct",
        7.5,
    )
    monkeypatch.setenv("MY_LLM_KEY", "sk-other")
    assert prose.api_key() is not None and prose.api_key().get_secret_value() == "sk-other"
    assert load_config(None).prose.engine == "rules"
    file.write_text('[prose]\nengine = "llm"\n')
    with pytest.raises(ConfigError, match="needs the model"):
        load_config(file)


# ---------------------------------------------------------------- the leash, sentence by sentence

LEDE = "ExecuTorch backed out XNNPACK serialization, while ci-infra split pre-merge CI into fast and slow gates."
DRAFT = (
    "ExecuTorch backs out XNNPACK serialization [1].",
    "ci-infra splits pre-merge CI into fast and slow gates [2].",
    "Beyond these, ExecuTorch lands two more changes.",
)
FAITHFUL_LEDE = "ci-infra splits pre-merge CI into fast and slow gates, while ExecuTorch backs out XNNPACK serialization."
FAITHFUL = (
    "Meanwhile, ExecuTorch backs out the XNNPACK serialization [1].",
    "ci-infra split its pre-merge CI into fast and slow gates [2].",
    "ExecuTorch lands two more changes.",
)


def small_story() -> Story:
    refs = [
        (
            "pytorch/executorch",
            19752,
            'Back out "Globally serialize XNNPACK execution, add logging"',
        ),
        ("pytorch/ci-infra", 619, "Split pre-merge CI into fast and slow gates"),
    ]
    return Story(
        id="story_small",
        window=SHOWCASE,
        repos=("pytorch/executorch", "pytorch/ci-infra"),
        headline="EXECUTORCH BACKS OUT XNNPACK SERIALIZATION",
        lede=LEDE,
        body=tuple(
            Sentence(text=t, refs=tuple(int(n) for n in re.findall(r"\[(\d+)\]", t))) for t in DRAFT
        ),
        references=tuple(
            Reference(
                n=n,
                repo=repo,
                number=pr,
                title=title,
                url=f"https://github.com/{repo}/pull/{pr}",
                sha=f"sha{n}",
            )
            for n, (repo, pr, title) in enumerate(refs, 1)
        ),
    )


def errors_of(lede: str = FAITHFUL_LEDE, **sentences: str) -> list[str]:
    body = list(FAITHFUL)
    for key, text in sentences.items():
        body[int(key[1:]) - 1] = text
    facts = build_facts(small_story(), events=[], config=example_config())
    return answer_errors(Answer(lede=lede, body=tuple(body)), facts)


def test_a_faithful_paraphrase_passes_the_leash() -> None:
    assert errors_of() == []


@pytest.mark.parametrize(
    ("lede", "sentences", "error"),
    [
        (None, {"s3": "ExecuTorch lands two more security fixes."}, "sentence 3 cites nothing"),
        (None, {"s3": "ExecuTorch lands three more changes."}, "not in the facts: three"),
        (None, {"s1": "ExecuTorch backs out `serialize_all` in XNNPACK [1]."}, "code `serialize_all`"),
        (None, {"s1": "ExecuTorch backs out “XNNPACK serialization everywhere” [1]."}, "quotes"),
        (None, {"s1": "Sadly, ExecuTorch backs out XNNPACK serialization [1]."}, "Sadly"),
        (None, {"s2": "ci-infra splits pre-merge CI into fast and slow gates [2][1]."}, "its draft cites [2]"),
        (None, {"s1": "ExecuTorch backs out XNNPACK serialization [2]."}, "its draft cites [1]"),
        (None, {"s2": "ExecuTorch splits pre-merge CI into fast and slow gates [2]."}, "names ExecuTorch"),
        ("ExecuTorch splits pre-merge CI into fast and slow gates.", {}, "of ExecuTorch, which the draft does not"),
        ("ci-infra splits pre-merge CI into fast and slow gates [2].", {}, "the lede cites"),
        ("The Wire has big news: ci-infra splits pre-merge CI.", {}, "not in the facts: Wire"),
    ],
)  # fmt: skip
def test_each_liberty_is_named_in_an_error(lede, sentences, error) -> None:
    errors = errors_of(lede or FAITHFUL_LEDE, **sentences)
    assert any(error in e for e in errors), errors


def test_a_quiet_window_stays_quiet_in_the_lede() -> None:
    quiet = small_story().model_copy(update={"lede": "A quiet day: " + LEDE})
    facts = build_facts(quiet, events=[], config=example_config())
    assert facts.as_prompt()["quiet_window"] is True
    loud = answer_errors(Answer(lede=FAITHFUL_LEDE, body=FAITHFUL), facts)
    assert loud == ["the lede must say the window was quiet, as its draft does"]
    calm = answer_errors(Answer(lede="A quiet day: " + FAITHFUL_LEDE, body=FAITHFUL), facts)
    assert calm == []


async def test_the_fake_refuses_a_malformed_request(fake: FakeOpenAI) -> None:
    """The fake checks what it is sent (so the tests above prove our requests are well formed)."""
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{fake.url}/chat/completions",
            json={"model": "wire-test-model", "messages": [{"role": "narrator", "content": 1}]},
            headers={"Authorization": f"Bearer {KEY}"},
        )
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert fake.problems == ["messages[0] has no known role"]
    fake.problems.clear()


async def test_a_fault_in_the_engine_leaves_the_rules_text(
    fake: FakeOpenAI, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("no such reference")

    monkeypatch.setattr("digest.prose.engine.answer_errors", broken)
    config = llm_config(fake.url)
    story = await llm_story(config)
    assert story == rules_story(config)
    assert "the prose engine failed (KeyError)" in prose_records(caplog, logging.WARNING)[0]


def test_an_error_quotes_the_answer_on_one_line() -> None:
    """Errors reach the log: a fragment of the answer in one must not forge a log line."""
    errors = errors_of(s1="ExecuTorch backs out “XNNPACK\nWARNING forged line” [1].")
    assert errors and all("\n" not in e for e in errors)
