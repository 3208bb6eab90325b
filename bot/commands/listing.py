"""`/wire list`: what a channel follows (and what of it), who made each subscription, its
schedule, mute and bulletins, and its last delivery."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.commands import grammar as g
from bot.commands import kinds
from bot.commands.replies import Context, Reply, when
from bot.commands.targets import Names
from bot.settings import Settings
from bot.store import Store


async def list_reply(store: Store, names: Names, settings: Settings, ctx: Context) -> Reply:
    """The channel's subscriptions, who made them, its schedule and its last delivery."""
    where = {"platform": ctx.platform, "workspace": ctx.workspace, "channel": ctx.channel}
    subs = await store.subscriptions.list(**where)
    channel = await store.channels.get(**where)
    if not subs:
        return Reply(text="This channel has no subscriptions. Try: " + g.USAGE["subscribe"])
    lines = ["This channel follows:"]
    for sub in subs:
        but = f" (excluding {', '.join(sub.excludes)})" if sub.excludes else ""
        lines.append(
            f"• {names.describe(sub.repo, sub.topic)}{kinds.following(sub)}{but} — by "
            f"{sub.created_by or 'unknown'} on {when(sub.created_at)}"
        )
    cron = channel.schedule or settings.schedule.default_cron
    zone = channel.timezone or settings.schedule.timezone
    if not kinds.digests_due(subs):
        lines.append("Schedule: no digest (releases and security fixes come as they land)")
    else:
        lines.append(f"Schedule: {'off' if cron == 'off' else f'`{cron}` {zone}'}")
    if channel.muted_until and channel.muted_until > datetime.now(UTC):
        lines.append(f"Muted until {when(channel.muted_until)}.")
    if not await store.bulletins.enabled(**where):
        lines.append("Bulletins: off ([immediate] items wait for the digest).")
    last = await store.listing.list(platform=ctx.platform, channel=ctx.channel, limit=1)
    if last:
        info = last[0]
        at = info.delivered_at or info.created_at
        lines.append(f"Last delivery: “{info.headline}” ({info.state}, {when(at)}).")
    else:
        lines.append("Last delivery: none yet.")
    return Reply(text="\n".join(lines))
