"""A loopback OpenAI-compatible chat endpoint that answers story rewrites as scripted.

`POST /v1/chat/completions` checks the request as OpenAI, Ollama, vLLM and llama.cpp's
server would (a JSON object with the served `model`, `messages` of known roles with string
content, sane sampling fields, `Authorization: Bearer KEY` when a key is required) and lists
whatever is wrong in `problems`, which tests assert stays empty. A request without the
right key gets OpenAI's 401; a malformed one its 400.

Each answer is the next `Scripted` reply (else a good rewrite): its `write` turns the
facts document of the first user message into the reply's content, so a reply can be a
faithful rewrite or a scripted lie about that very story. `delay` holds the answer back
(a slow model), `status` answers an HTTP error, `body` a raw body that is not JSON.
`latency` delays every answer, for benchmarks that subtract it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from digest.compose.body import ATTRIBUTIONS

Facts = dict[str, Any]
Writer = Callable[[Facts], str]
ROLES = {"system", "user", "assistant", "tool", "developer"}
_MARKERS = re.compile(r"\s*(?:\[\d+\])+")
_CONNECTIVE = re.compile(
    r"^(?:In addition|Elsewhere|Also|Meanwhile|Separately|Further|Additionally),\s+"
)


@dataclass(frozen=True)
class Scripted:
    """One scripted answer: content from the facts, after `delay`, or an error."""

    write: Writer | None = None
    delay: float = 0.0
    status: int = 200
    body: str | None = None


@dataclass
class Recorded:
    """A request as the fake saw it."""

    path: str
    body: dict[str, Any]
    authorization: str | None
    answered: int = 0
    facts: Facts = field(default_factory=dict)
    reply: str | None = None  # the content answered, when it was a chat completion


# ---------------------------------------------------------------- answers about a story


def answer(lede: str, body: list[str]) -> str:
    """The JSON object a model is asked to return."""
    return json.dumps({"lede": lede, "body": body}, ensure_ascii=False)


def drafts(facts: Facts) -> list[str]:
    """The drafted body sentences of the facts, markers included."""
    return [s["draft"] for s in facts["body"]]


def claim(text: str) -> str:
    """A drafted sentence without its citation markers and final period."""
    return _MARKERS.sub("", text).rstrip(" .")


# "; its description says “…”" and the other frames a quotation opens with.
_QUOTATION = re.compile(
    "; (?:" + "|".join(re.escape(frame.split("“")[0].rstrip()) for frame in ATTRIBUTIONS) + ")"
)


def _unquoted(text: str) -> str:
    """A claim without the quotation of a description that may follow it."""
    return _QUOTATION.split(text, maxsplit=1)[0]


def markers(text: str) -> str:
    """The citation markers of a drafted sentence, joined: "[2][3]"."""
    return "".join(re.findall(r"\[\d+\]", text))


def rewrite(text: str, index: int) -> str:
    """A faithful rewrite of drafted sentence `index`: other connectives, same claims and
    markers ("In addition, X also adds …" → "X adds …"; the second one opens "Meanwhile, …")."""
    text = _CONNECTIVE.sub("", text)
    text = re.sub(r" (also|further) ", " ", text, count=1)
    return f"Meanwhile, {text}" if index == 1 else text


def good(facts: Facts) -> str:
    """A faithful rewrite: the lead claim as the lede (a quiet window's says so), the body
    with other connectives."""
    body = drafts(facts)
    lede = claim(body[0]) + "."
    if facts.get("quiet_window"):
        lede = f"A quiet day: {lede}"
    return answer(lede, [rewrite(s, i) for i, s in enumerate(body)])


def new_reference(facts: Facts) -> str:
    """Lies: the first sentence cites a reference that does not exist."""
    body = drafts(facts)
    unknown = max(r["ref"] for r in facts["references"]) + 7
    body[0] = body[0].rstrip(".") + f"[{unknown}]."
    return answer(facts["lede"], body)


def misspelt_name(facts: Facts) -> str:
    """Lies: a project's name as the history misspells it (ExecuTorch → ExecutorTorch)."""
    body = drafts(facts)
    index = next(i for i, s in enumerate(body) if "ExecuTorch" in s)
    body[index] = body[index].replace("ExecuTorch", "ExecutorTorch", 1)
    return answer(facts["lede"], body)


def wrong_project(facts: Facts) -> str:
    """Lies: a change credited to a project that did not make it."""
    body = drafts(facts)
    index = next(i for i, s in enumerate(body) if "ExecuTorch" in s)
    body[index] = body[index].replace("ExecuTorch", "PyTorch", 1)
    return answer(facts["lede"], body)


def other_project(facts: Facts) -> str:
    """Lies: a change credited to the story's other project (a name the facts do hold)."""
    body = drafts(facts)
    others = [p for p in facts["projects"] if p != "ExecuTorch"]
    index = next(i for i, s in enumerate(body) if "ExecuTorch" in s)
    body[index] = body[index].replace("ExecuTorch", others[0], 1)
    return answer(facts["lede"], body)


def misattributed_lede(facts: Facts) -> str:
    """Lies in the lede, which cites nothing: ExecuTorch's lead claim credited to another project."""
    body = drafts(facts)
    others = [p for p in facts["projects"] if p != "ExecuTorch"]
    lead = next(claim(s) for s in body if "ExecuTorch" in s)
    return answer(lead.replace("ExecuTorch", others[0], 1) + ".", body)


def wrong_component(facts: Facts) -> str:
    """Lies about where a change is: a sentence gains "for et-vk", an alias of the Vulkan
    topic, which its reference does not touch. The words are lower-case and ordinary, so
    only the attribution check (rule 2) can catch it."""
    body = drafts(facts)
    topics = {r["ref"]: r["topics"] for r in facts["references"]}
    index = next(
        i
        for i, s in enumerate(body)
        if markers(s)
        and "vulkan" not in s.lower()
        and not any("Vulkan" in topics[int(n)] for n in re.findall(r"\[(\d+)\]", s))
    )
    body[index] = f"{claim(body[index])} for et-vk {markers(body[index])}."
    return answer(facts["lede"], body)


def new_number(facts: Facts) -> str:
    """Lies: a figure no source gives."""
    body = drafts(facts)
    first = claim(body[0])
    body[0] = f"{first}, cutting queue times by 40% {markers(body[0])}."
    return answer(facts["lede"], body)


def moved_citation(facts: Facts) -> str:
    """Lies: the first two sentences swap claims, each keeping its own position's markers
    (and leaving out a quotation of the description, which would give the lie away sooner)."""
    body = drafts(facts)
    first, second = body[0], body[1]
    body[0] = f"{_unquoted(claim(second))} {markers(first)}."
    body[1] = f"{_unquoted(claim(first))} {markers(second)}."
    return answer(facts["lede"], body)


def dropped_citation(facts: Facts) -> str:
    """Lies: the second sentence loses its citations."""
    body = drafts(facts)
    body[1] = claim(body[1]) + "."
    return answer(facts["lede"], body)


def wrong_count(facts: Facts) -> str:
    """Lies: two sentences merged into one, so the body is shorter than the draft."""
    body = drafts(facts)
    merged = f"{claim(body[0])} {markers(body[0])}, and {claim(body[1])} {markers(body[1])}."
    return answer(facts["lede"], [merged, *body[2:]])


def padded(facts: Facts) -> str:
    """Lies by length: every sentence repeats its claim until the body passes 200 words,
    with nothing new in it."""
    body = drafts(facts)
    times = 2 + 200 // max(1, sum(len(claim(s).split()) for s in body))
    padded = []
    for sentence in body:
        fits = max(2, 560 // (len(claim(sentence)) + 11))  # each within 600 characters
        repeated = ", that is, ".join([claim(sentence)] * min(times, fits))
        padded.append(f"{repeated} {markers(sentence)}.")
    return answer(facts["lede"], padded)


def monotonous(facts: Facts) -> str:
    """True but badly written: every sentence opens "Meanwhile, ", which only the
    proofreader (a repeated connective) objects to. Needs two sentences or more."""
    if len(drafts(facts)) < 2:
        raise IndexError("a one-sentence body cannot repeat a connective")
    return answer(facts["lede"], [f"Meanwhile, {_CONNECTIVE.sub('', s)}" for s in drafts(facts)])


def not_json(facts: Facts) -> str:
    """A reply that is prose about JSON rather than JSON."""
    return "Sure! Here is the rewritten story: {lede: " + facts["lede"][:40]


def echo(facts: Facts) -> str:
    """The draft returned unchanged (always a faithful rewrite)."""
    return answer(facts["lede"], drafts(facts))


LIES: dict[str, Writer] = {
    "new reference": new_reference,
    "misspelt name": misspelt_name,
    "wrong project": wrong_project,
    "other project": other_project,
    "new number": new_number,
    "moved citation": moved_citation,
    "dropped citation": dropped_citation,
    "wrong count": wrong_count,
    "padded": padded,
    "monotonous": monotonous,
    "misattributed lede": misattributed_lede,
    "wrong component": wrong_component,
    "not JSON": not_json,
}


# ---------------------------------------------------------------- the server


class FakeOpenAI:
    """Serves `/v1/chat/completions` on 127.0.0.1; `url` is the base URL (ending in /v1)."""

    def __init__(
        self, *, model: str = "wire-test-model", api_key: str | None = None, latency: float = 0.0
    ) -> None:
        self.model = model
        self.api_key = api_key
        self.latency = latency
        self.requests: list[Recorded] = []
        self.problems: list[str] = []
        self._script: deque[Scripted] = deque()
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._ids = 0
        self.url = ""

    def script(self, *replies: Scripted | Writer) -> None:
        """Answer the next requests with `replies` in order (a bare writer is a 200)."""
        for reply in replies:
            self._script.append(reply if isinstance(reply, Scripted) else Scripted(write=reply))

    @property
    def pending(self) -> int:
        """Scripted replies not yet answered."""
        return len(self._script)

    def clear(self) -> None:
        """Forget the scripted replies not yet answered."""
        self._script.clear()

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._completions)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}/v1"
        return self.url

    async def close(self) -> None:
        self._closing.set()  # held-back answers end now instead of outliving the test
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> FakeOpenAI:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _completions(self, request: web.Request) -> web.Response:
        authorization = request.headers.get("Authorization")
        try:
            body = json.loads(await request.read())
        except ValueError:
            body = None
        recorded = Recorded(request.path, body if isinstance(body, dict) else {}, authorization)
        self.requests.append(recorded)
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            self.problems.append("a request came without the right Authorization: Bearer key")
            return _error(401, "Incorrect API key provided.", "invalid_api_key")
        shape = self._shape_problems(request, body)
        if shape:
            self.problems.extend(shape)
            return _error(400, "; ".join(shape), "invalid_request_error")
        recorded.facts = _facts(body["messages"])
        reply = self._script.popleft() if self._script else Scripted(write=good)
        await self._hold(self.latency + reply.delay)
        recorded.answered = reply.status
        if reply.status >= 400:
            return _error(reply.status, "The server had an error.", "server_error")
        if reply.body is not None:
            return web.Response(text=reply.body, content_type="application/json")
        content = (reply.write or good)(recorded.facts)
        recorded.reply = content
        return web.json_response(self._completion(content))

    async def _hold(self, seconds: float) -> None:
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), seconds)

    def _shape_problems(self, request: web.Request, body: Any) -> list[str]:
        if request.content_type != "application/json":
            return [f"Content-Type is {request.content_type!r}, not application/json"]
        if not isinstance(body, dict):
            return ["the body is not a JSON object"]
        problems = []
        if body.get("model") != self.model:
            problems.append(f"model is {body.get('model')!r}; this server serves {self.model!r}")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return [*problems, "messages is not a non-empty list"]
        for index, message in enumerate(messages):
            if not isinstance(message, dict) or message.get("role") not in ROLES:
                problems.append(f"messages[{index}] has no known role")
            elif not isinstance(message.get("content"), str):
                problems.append(f"messages[{index}].content is not a string")
        if not problems and messages[-1]["role"] != "user":
            problems.append("the last message is not the user's")
        temperature = body.get("temperature", 1)
        if not isinstance(temperature, int | float) or not 0 <= temperature <= 2:
            problems.append(f"temperature {temperature!r} is not in [0, 2]")
        max_tokens = body.get("max_tokens", 1)
        if not isinstance(max_tokens, int) or max_tokens < 1:
            problems.append(f"max_tokens {max_tokens!r} is not a positive integer")
        if body.get("stream", False) is not False:
            problems.append("stream is set; this server answers whole completions only")
        response_format = body.get("response_format", {"type": "text"})
        if response_format.get("type") not in ("text", "json_object", "json_schema"):
            problems.append(f"response_format {response_format!r} is unknown")
        if not problems and not _facts(messages):
            problems.append("the first user message is not the story's facts as a JSON object")
        return problems

    def _completion(self, content: str) -> dict[str, Any]:
        self._ids += 1
        return {
            "id": f"chatcmpl-wire{self._ids}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }


def _facts(messages: list[dict[str, Any]]) -> Facts:
    """The facts document: the first user message, parsed."""
    first = next((m for m in messages if m.get("role") == "user"), None)
    try:
        facts = json.loads(first["content"]) if first else None
    except ValueError:
        return {}
    return facts if isinstance(facts, dict) and "body" in facts else {}


def _error(status: int, message: str, code: str) -> web.Response:
    """An error in OpenAI's shape."""
    payload = {"error": {"message": message, "type": code, "param": None, "code": code}}
    return web.json_response(payload, status=status)
