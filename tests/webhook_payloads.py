"""Webhook deliveries as GitHub sends them: signed, with payloads GitHub's description accepts.

Each payload starts from a recorded example of @octokit/webhooks-examples (tests/schemas/),
gets the test's values put in, and is validated against @octokit/webhooks-schemas before it
is sent, so a test never exercises the receiver with a shape GitHub would not send.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import uuid
from datetime import UTC
from pathlib import Path
from typing import Any

import aiohttp
import jsonschema

from bot.realtime.signature import signature_of
from digest.model import Activity

SCHEMAS = Path(__file__).resolve().parent / "schemas"
SECRET = "It's a Secret to Everybody"
DEFINITIONS = {
    "ping": "ping$event",
    "pull_request": "pull_request$closed",
    "push": "push$event",
    "release": "release$published",
}


@functools.cache
def _schema() -> dict[str, Any]:
    return json.loads((SCHEMAS / "webhook-schemas.json").read_text(encoding="utf-8"))


def example(name: str) -> dict[str, Any]:
    """A fresh copy of a vendored example payload (ping, pull_request.closed, push)."""
    return json.loads((SCHEMAS / "examples" / f"{name}.json").read_text(encoding="utf-8"))


def schema_errors(event: str, payload: dict[str, Any]) -> list[str]:
    """Where `payload` breaks GitHub's schema of `event` (empty: it is a valid payload)."""
    schema = {**_schema(), "$ref": f"#/definitions/{DEFINITIONS[event]}"}
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(payload)]


def _valid(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    errors = schema_errors(event, payload)
    assert not errors, errors[:3]
    return payload


def _repository(payload: dict[str, Any], repo: str, default_branch: str) -> None:
    owner, name = repo.split("/")
    found = payload["repository"]
    found.update(full_name=repo, name=name, default_branch=default_branch)
    found["owner"]["login"] = owner
    found["html_url"] = f"https://github.com/{repo}"


def github_time(moment) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def merged_pull_request(activity: Activity, *, default_branch: str = "main") -> dict[str, Any]:
    """The `pull_request` `closed` payload of `activity` merged into the default branch."""
    payload = example("pull_request.closed")
    _repository(payload, activity.repo, default_branch)
    pull = payload["pull_request"]
    merged = github_time(activity.landed_at)
    pull.update(
        number=activity.number,
        title=activity.title,
        body=activity.body or None,
        merged=True,
        merged_at=merged,
        closed_at=merged,
        merge_commit_sha=activity.sha,
        html_url=activity.link,
    )
    pull["base"]["ref"] = default_branch
    payload["number"] = activity.number
    return _valid("pull_request", payload)


def closed_unmerged(activity: Activity, *, default_branch: str = "main") -> dict[str, Any]:
    """The `closed` payload of a pull request closed without merging."""
    payload = merged_pull_request(activity, default_branch=default_branch)
    payload["pull_request"].update(merged=False, merged_at=None, merge_commit_sha=None)
    return _valid("pull_request", payload)


def push(activity: Activity, *, branch: str = "main", default_branch: str = "main"):
    """The `push` payload of `activity`'s commit pushed to `branch`."""
    payload = example("push")
    _repository(payload, activity.repo, default_branch)
    payload["ref"] = f"refs/heads/{branch}"
    commit = payload["head_commit"]
    commit.update(
        id=activity.sha, message=activity.title, timestamp=github_time(activity.landed_at)
    )
    payload["commits"] = [copy.deepcopy(commit)]
    payload["after"] = activity.sha
    return _valid("push", payload)


def published_release(activity: Activity) -> dict[str, Any]:
    """The `release` `published` payload of a release tag's `activity` (its sha is
    `tag:NAME`, as `digest.reading.releases.tag_activity` makes it)."""
    payload = example("release.published")
    _repository(payload, activity.repo, "main")
    tag = activity.sha.removeprefix("tag:")
    payload["release"].update(
        tag_name=tag,
        name=tag,
        body=activity.body,
        published_at=github_time(activity.landed_at),
        html_url=activity.link,
    )
    return _valid("release", payload)


def ping(repo: str) -> dict[str, Any]:
    """The `ping` GitHub sends when a repository's webhook is created."""
    payload = example("ping")
    _repository(payload, repo, "main")
    return _valid("ping", payload)


class WebhookSender:
    """POSTs deliveries to the receiver as GitHub does (aiohttp; `close` when done)."""

    def __init__(self, url: str, *, secret: str = SECRET) -> None:
        self.url = url
        self.secret = secret
        self._session = aiohttp.ClientSession()

    async def close(self) -> None:
        await self._session.close()

    async def __aenter__(self) -> WebhookSender:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def send(
        self,
        event: str,
        payload: dict[str, Any] | bytes,
        *,
        delivery: str | None = None,
        secret: str | None = None,
        signature: str | None = None,
    ) -> tuple[int, str]:
        """Deliver `payload`; returns (status, delivery id). `signature` overrides the one
        computed with `secret` (default: the receiver's)."""
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        delivery = delivery or str(uuid.uuid4())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/044aadd",
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery,
            "X-GitHub-Hook-ID": "292430182",
        }
        if signature is None:
            signature = signature_of(body, secret or self.secret)
        if signature:
            headers["X-Hub-Signature-256"] = signature
        headers["Content-Length"] = str(len(body))
        data = io.BytesIO(body)  # a file: aiohttp streams it instead of holding the loop
        async with self._session.post(self.url, data=data, headers=headers) as response:
            await response.read()
            return response.status, delivery
