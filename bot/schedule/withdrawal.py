"""What GitHub's answer about a repository added from chat means for the Wire.

    name = await settle(store, config, project, found, now)   # None: nothing of it is told

Every door that tells something of an open project asks GitHub again first (the poller and
a digest through `bot.realtime.open_watch`, a preview or a subscribe through
`bot.commands.open_door`), and each hands the answer here, so they all read it alike: an
unchanged or still public repository is told, a renamed one is followed under its new name,
and one GitHub no longer calls public (private, internal or gone) is withdrawn: each
channel that followed it is told once through the outbox that it stops, its subscriptions
and its row are deleted, and the archive hides its stories from readers without the web
token from then on. A rate limit or an unreachable GitHub withdraws nothing, but nothing
new of the repository is told either.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timedelta

from bot.store import OpenProject, Store
from digest.config import WireConfig
from digest.model import Story, Window, stable_id
from digest.sources.github.repository import RepositoryLookup

log = logging.getLogger("wire.realtime.open")


def withdrawal_notice(repo: str, now: datetime) -> Story:
    """The one message a channel gets when a repository it followed stops being public."""
    return Story(
        id=stable_id("withdrawn", repo.lower(), now.date().isoformat()),
        window=Window(since=now - timedelta(minutes=1), until=now),
        repos=(repo,),
        headline=f"NO MORE NEWS OF {repo.upper()}",
        lede=(
            f"{repo} is no longer a public repository on GitHub, so this channel stops "
            "following it."
        ),
    )


async def withdraw(store: Store, repo: str, now: datetime) -> int:
    """Stop following `repo`: tell each channel once, delete its subscriptions and row,
    and hide its archived stories; returns how many channels were told."""
    notice = withdrawal_notice(repo, now)
    told = 0
    for sub in await store.subscriptions.list():
        if sub.repo is None or sub.repo.lower() != repo.lower():
            continue
        queued = await store.deliveries.enqueue(
            notice, platform=sub.platform, workspace=sub.workspace, channel=sub.channel
        )
        told += int(queued.created)
        await store.subscriptions.remove(
            platform=sub.platform,
            workspace=sub.workspace,
            channel=sub.channel,
            repo=sub.repo,
            topic=sub.topic,
        )
    await store.open_projects.withdraw(repo, now=now)
    log.warning(
        "%s is no longer public: withdrawn, %d channel(s) told, its archived stories hidden "
        "from readers without the web token",
        repo,
        told,
    )
    return told


async def settle(
    store: Store,
    config: WireConfig,
    project: OpenProject,
    found: RepositoryLookup,
    now: datetime,
) -> str | None:
    """The name under which `project` may still be told after GitHub's answer `found` (its
    new name when renamed or transferred meanwhile), or None: withdrawn, or GitHub could
    not say (a rate limit, unreachable), so nothing new of it is told now."""
    if found.outcome == "unchanged":
        return project.repo
    if found.outcome in ("limited", "unreachable"):
        log.info("re-checking %s: GitHub %s; nothing of it told now", project.repo, found.outcome)
        return None
    info = found.info
    if found.outcome == "found" and info is not None and info.is_public:
        if info.full_name.lower() == project.key:
            await store.open_projects.update(project.repo, etag=found.etag)
            return project.repo
        if not config.is_configured(info.full_name):
            moved = replace(project, repo=info.full_name, name=info.name, etag=found.etag)
            await store.open_projects.rename(project.repo, moved)
            await store.subscriptions.rename_repo(project.repo, info.full_name)
            log.info("%s is now %s: followed under its new name", project.repo, moved.repo)
            return moved.repo
    await withdraw(store, project.repo, now)
    return None
