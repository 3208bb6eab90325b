"""The door of Slack's HTTP requests: only a request Slack signed, carrying a payload of a
shape Slack sends, is handed to bolt.

bolt parses a body before it checks the signature, and reads a payload's fields as Slack
documents them, so an unsigned `{`, a timestamp of "abc", a signed payload nested 100,000
deep or a `block_actions` whose `actions` is a string each raised inside it (a 500 and a
traceback). `admit` decides first, in this order; the caller logs each refusal in one line:

* 401 when X-Slack-Request-Timestamp is not one whole number of seconds within five minutes
  of now, or X-Slack-Signature is not one `v0=` HMAC-SHA256 of `v0:{timestamp}:{body}` under
  the signing secret (computed over the raw bytes, compared in constant time). Nothing of
  an unsigned body is parsed.
* 400 when the body is not UTF-8, is not the JSON or form bolt would read it as, is nested
  deeper than `MAX_DEPTH`, is not a JSON object, or has a field bolt or the listeners read
  holding another type than Slack sends (`shape_problem`).

bolt then gets the same body, and of the headers only those it reads.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
from typing import Any
from urllib.parse import parse_qsl

from multidict import CIMultiDictProxy
from slack_bolt.request.async_request import AsyncBoltRequest

MAX_AGE = 5 * 60  # seconds: Slack's replay window
MAX_DEPTH = 32  # nesting of a payload's JSON; Slack's deepest (a rich-text message) is ~10
TIMESTAMP = re.compile(r"[0-9]{1,12}")
SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")
# headers bolt reads; x-slack-bolt-* (lazy listeners' own) never come from outside
FORWARDED = (
    "content-type",
    "x-slack-request-timestamp",
    "x-slack-signature",
    "x-slack-retry-num",
    "x-slack-retry-reason",
)

_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"')
_BRACKET = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}

_TEXT = (str,)
_TEXT_OR_OBJECT = (str, dict)
_OBJECT = (dict,)
# Fields bolt's context, matchers and middleware or our listeners read, wherever they look
# (the payload, its event, item, message, user, channel, team, actions, …), and the JSON
# types Slack sends in them. Anything else in a payload is left alone.
FIELD_TYPES: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(
        (
            "type",
            "subtype",
            "command",
            "response_url",
            "callback_id",
            "action_id",
            "block_id",
            "trigger_id",
            "challenge",
            "token",
            "api_app_id",
            "id",
            "team_id",
            "user_id",
            "channel_id",
            "enterprise_id",
            "user_team",
            "name",
            "username",
            "reaction",
            "ts",
            "thread_ts",
            "event_ts",
            "channel_type",
            "bot_id",
            "function_execution_id",
            "bot_access_token",
        ),
        _TEXT,
    ),
    **dict.fromkeys(("team", "user", "channel", "enterprise"), _TEXT_OR_OBJECT),
    **dict.fromkeys(
        (
            "event",
            "item",
            "message",
            "previous_message",
            "assistant_thread",
            "function_data",
            "container",
            "view",
            "workflow_step",
        ),
        _OBJECT,
    ),
}
OBJECT_LISTS = ("actions", "authorizations", "response_urls")  # lists of objects
NOT_EMPTY = frozenset({"actions"})  # bolt reads actions[0]


class Refused(Exception):
    """A request not handed to bolt: `status` to answer and `why`, one sentence to log."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status
        self.why = why


def _one(headers: CIMultiDictProxy[str], name: str) -> str:
    """The header's value when it is sent exactly once, else "" (bolt would read the last
    of several, this door the first)."""
    values = headers.getall(name, [])
    return values[0] if len(values) == 1 else ""


def check_signature(
    headers: CIMultiDictProxy[str], body: bytes, *, secret: str, now: float
) -> None:
    """Raise `Refused(401)` unless Slack signed `body` with `secret` less than five minutes
    from `now` (see the module docstring)."""
    timestamp = _one(headers, "X-Slack-Request-Timestamp")
    signature = _one(headers, "X-Slack-Signature")
    if not TIMESTAMP.fullmatch(timestamp):
        raise Refused(401, "X-Slack-Request-Timestamp is missing or not a number")
    if abs(now - int(timestamp)) > MAX_AGE:
        raise Refused(401, "X-Slack-Request-Timestamp is more than five minutes off")
    if not SIGNATURE.fullmatch(signature):
        raise Refused(401, "X-Slack-Signature is missing or malformed")
    base = b"v0:" + timestamp.encode() + b":" + body
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature, expected):
        raise Refused(401, "X-Slack-Signature does not match the body")


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of JSON `text` nest (brackets inside strings do not
    count); an upper bound for text that is not JSON."""
    steps = map(_STEP.__getitem__, _BRACKET.findall(_STRING.sub("", text)))
    return max(itertools.accumulate(steps), default=0)


def _json(text: str) -> Any:
    if nesting_depth(text) > MAX_DEPTH:
        raise Refused(400, f"the payload nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except ValueError as error:  # JSONDecodeError, or an integer of over 4,300 digits
        raise Refused(400, f"the payload is not JSON: {error}") from None


def read_payload(text: str, content_type: str | None) -> Any:
    """The payload bolt reads from `text`, read the same way (bolt's `parse_body`): JSON when
    the content type is application/json or the body starts with "{"; else a form, whose
    `payload` field is JSON when the body mentions "payload". Raises `Refused(400)`."""
    if not text:
        return {}
    if content_type == "application/json" or text.startswith("{"):
        return _json(text)
    fields = dict(parse_qsl(text, keep_blank_values=True))
    if "payload" in text:
        return _json(fields["payload"]) if "payload" in fields else {}
    return fields


def shape_problem(payload: Any) -> str | None:
    """What in `payload` bolt or the listeners could not read, or None: it must be an object,
    and each field of `FIELD_TYPES` or `OBJECT_LISTS` they read, wherever they read it, must
    hold what Slack sends there (or null)."""
    if not isinstance(payload, dict):
        return "the payload is not a JSON object"
    stack: list[tuple[str, dict[str, Any]]] = [("payload", payload)]
    while stack:
        where, node = stack.pop()
        for key, kinds in FIELD_TYPES.items():
            value = node.get(key)
            if value is None:
                continue
            if not isinstance(value, kinds):
                return f"{where}.{key} is a {type(value).__name__}"
            if isinstance(value, dict):
                stack.append((f"{where}.{key}", value))
        for key in OBJECT_LISTS:
            value = node.get(key)
            if value is None:
                continue
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                return f"{where}.{key} is not a list of objects"
            if key in NOT_EMPTY and not value:
                return f"{where}.{key} is empty"
            stack += [(f"{where}.{key}[{i}]", v) for i, v in enumerate(value)]
    actions = payload.get("actions") or []
    if payload.get("type") == "block_actions" and not all("action_id" in a for a in actions):
        return "an action has no action_id"  # bolt's matcher reads actions[0]["action_id"]
    return None


def admit(
    headers: CIMultiDictProxy[str], body: bytes, *, query: str, secret: str, now: float
) -> AsyncBoltRequest:
    """The bolt request of a signed, well-formed Slack request; else raises `Refused`."""
    check_signature(headers, body, secret=secret, now=now)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "the body is not UTF-8") from None
    forwarded = {name: _one(headers, name) for name in FORWARDED if _one(headers, name)}
    content_type = forwarded.get("content-type", "").split(";")[0] or None
    problem = shape_problem(read_payload(text, content_type))
    if problem is not None:
        raise Refused(400, f"malformed payload: {problem}")
    try:
        return AsyncBoltRequest(body=text, query=query, headers=dict(forwarded))
    except Exception as error:  # a shape `shape_problem` does not know: still the payload's
        raise Refused(400, f"malformed payload: {type(error).__name__}: {error}") from None
