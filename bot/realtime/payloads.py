"""The few fields of GitHub's webhook payloads that real-time handling reads, and what a
delivery means: a `Hint` that something landed on a default branch, or a reason to ignore it.

Payload shapes stay here (DESIGN.md: raw payloads typed apart from the domain); what landed
is read from the project's source afterwards, the one the digest reads, so a bulletin and
the digest judge the same Activity. The tests check the payloads they send against
@octokit/webhooks-schemas (tests/schemas/).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from digest.reading.releases import TAG_PREFIX

HANDLED = ("ping", "pull_request", "push", "release")
# Accepted and recorded (they prove the webhook works) but never a bulletin: a CI run's
# result is not a change that landed.
NOTED = ("check_suite", "workflow_run")
# A published release is read over the day before it: a source reports a release with the
# window its commit landed in (GitHub's probes the commits), and that can precede the
# publishing by hours.
RELEASE_LEAD = timedelta(days=1)


class _Shape(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Repository(_Shape):
    full_name: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    default_branch: str = ""


class Branch(_Shape):
    ref: str


class PullRequest(_Shape):
    number: int
    merged: bool | None = None
    merged_at: AwareDatetime | None = None
    merge_commit_sha: str | None = None
    base: Branch


class PullRequestEvent(_Shape):
    action: str
    pull_request: PullRequest
    repository: Repository


class Commit(_Shape):
    id: str
    timestamp: AwareDatetime


class PushEvent(_Shape):
    ref: str
    deleted: bool = False
    commits: tuple[Commit, ...] = ()
    head_commit: Commit | None = None
    repository: Repository


class PublishedRelease(_Shape):
    tag_name: str
    draft: bool = False
    published_at: AwareDatetime | None = None


class ReleaseEvent(_Shape):
    action: str
    release: PublishedRelease
    repository: Repository


class PingEvent(_Shape):
    repository: Repository | None = None  # absent for an organization's webhook


class AnyEvent(_Shape):
    repository: Repository | None = None


class Hint(_Shape):
    """Something landed on `repo`'s default branch around `since`..`until`: a merged pull
    request (`number`), pushed commits (`shas`), or a published release (its tag's
    activity, `digest.reading.releases.TAG_PREFIX` and its name, in `shas`)."""

    repo: str
    since: datetime
    until: datetime
    number: int | None = None
    shas: tuple[str, ...] = ()


class Ignored(_Shape):
    """A delivery that needs no work, and why (for the log); `repo` when it names one."""

    reason: str
    repo: str | None = None


class MalformedPayload(ValueError):
    """The body is not the payload its event header announces."""


def read_delivery(event: str, payload: object) -> Hint | Ignored:
    """What a delivery of `event` with this JSON `payload` means.

    Raises `MalformedPayload` when the payload lacks what its event always carries.
    """
    try:
        if event == "pull_request":
            return _pull_request(PullRequestEvent.model_validate(payload))
        if event == "push":
            return _push(PushEvent.model_validate(payload))
        if event == "release":
            return _release(ReleaseEvent.model_validate(payload))
        if event == "ping":
            ping = PingEvent.model_validate(payload)
            return Ignored(
                reason="ping", repo=ping.repository.full_name if ping.repository else None
            )
        found = AnyEvent.model_validate(payload)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the body"
        raise MalformedPayload(f"{event} payload: {where}: {first['msg']}") from None
    repo = found.repository.full_name if found.repository else None
    reason = "a CI result, not a landed change" if event in NOTED else "not an event The Wire reads"
    return Ignored(reason=reason, repo=repo)


def _pull_request(event: PullRequestEvent) -> Hint | Ignored:
    repo = event.repository.full_name
    pull = event.pull_request
    if event.action != "closed" or not pull.merged or pull.merged_at is None:
        return Ignored(reason=f"pull request {event.action}, not merged", repo=repo)
    if event.repository.default_branch and pull.base.ref != event.repository.default_branch:
        return Ignored(reason=f"merged into {pull.base.ref}, not the default branch", repo=repo)
    shas = (pull.merge_commit_sha,) if pull.merge_commit_sha else ()
    return Hint(
        repo=repo, since=pull.merged_at, until=pull.merged_at, number=pull.number, shas=shas
    )


def _release(event: ReleaseEvent) -> Hint | Ignored:
    repo = event.repository.full_name
    release = event.release
    if event.action != "published" or release.draft or release.published_at is None:
        return Ignored(reason=f"release {event.action}, not published", repo=repo)
    at = release.published_at
    shas = (TAG_PREFIX + release.tag_name,)
    return Hint(repo=repo, since=at - RELEASE_LEAD, until=at, shas=shas)


def _push(event: PushEvent) -> Hint | Ignored:
    repo = event.repository.full_name
    branch = event.ref.removeprefix("refs/heads/")
    if event.deleted or not event.ref.startswith("refs/heads/"):
        return Ignored(reason="not a push of new commits to a branch", repo=repo)
    if branch != event.repository.default_branch:
        return Ignored(reason=f"a push to {branch}, not the default branch", repo=repo)
    commits = {
        c.id: c for c in (*event.commits, *([event.head_commit] if event.head_commit else []))
    }
    if not commits:
        return Ignored(reason="a push without commits", repo=repo)
    times = [c.timestamp for c in commits.values()]
    return Hint(repo=repo, since=min(times), until=max(times), shas=tuple(commits))
