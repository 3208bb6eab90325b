"""`wire doctor`: is everything the service needs in place? One line per check, ok or the fix.

    ok    config: config/wire.toml, 3 projects, platforms slack
    ok    database: sqlite+aiosqlite:///var/wire.db answers
    FAIL  migrations: the database is at 0002, the newest is 0004; run `wire db upgrade`
    ok    slack: the bot token works (workspace Wire Test, bot wire)
    ok    github: token scopes repo; 4,980 of 5,000 requests left this hour
    ok    webhook secret: set, 64 characters

The exit status is 1 when a check fails. GitHub is checked only when the configuration uses
it: a failure is `FAIL` when projects read it, `warn` when only `/wire subscribe OWNER/REPO`
would (an offline demo that replays files), and a network that does not answer says
"unreachable", not "check the api_url setting". Tokens are sent only to their own API (the
URLs of the settings) and never printed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import aiohttp
import typer
from alembic.script import ScriptDirectory
from sqlalchemy import text

from bot.app.cli_options import DEFAULT_CONFIGS, ConfigOption, resolve_config
from bot.logs import MIN_STRONG, is_weak, named_secrets
from bot.settings import Settings, load_settings
from bot.store.engine import alembic_config, make_engine
from digest.config import WireConfig
from digest.errors import WireError

commands = typer.Typer()
TIMEOUT = aiohttp.ClientTimeout(total=10)
USER_AGENT = "the-wire-doctor"
MIN_SECRET = 16


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, whether it passed, and what was found
    (or what to do)."""

    name: str
    ok: bool
    detail: str
    optional: bool = False  # a failure warns: the configuration barely needs this part

    def line(self) -> str:
        """The report's line: `ok`, `FAIL`, or `warn` for an optional part that failed."""
        state = "ok  " if self.ok else "warn" if self.optional else "FAIL"
        return f"{state}  {self.name}: {self.detail}"

    @property
    def failed(self) -> bool:
        """True when this check makes the exit status 1."""
        return not self.ok and not self.optional


def _config(config: Path | None) -> tuple[Settings | None, WireConfig | None, list[Check]]:
    origin = "--config"
    if config is None and not os.environ.get("WIRE_CONFIG"):
        config = next((p for p in DEFAULT_CONFIGS if p.is_file()), None)
        origin = "the default config file"
    try:
        settings = load_settings(config=config, config_origin=origin)
        projects = resolve_config(config)
    except WireError as error:
        return None, None, [Check("config", False, line) for line in str(error).splitlines()]
    where = str(config) if config else "no file (defaults and environment)"
    platforms = ", ".join(settings.enabled_platforms())
    detail = f"{where}, {len(projects.projects)} projects, platforms {platforms}"
    return settings, projects, [Check("config", True, detail)]


async def check_database(settings: Settings) -> list[Check]:
    """The database answers, and its schema is at the newest migration."""
    engine = make_engine(settings.database_url)
    shown = settings.database_url_for_display
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            try:
                found = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
            except Exception:  # no table yet: never migrated
                found = []
    except WireError as error:
        return [Check("database", False, str(error))]
    except Exception as error:
        return [Check("database", False, f"{shown} fails: {type(error).__name__}: {error}")]
    finally:
        await engine.dispose()
    heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
    current = {row[0] for row in found}
    checks = [Check("database", True, f"{shown} answers")]
    if current == heads:
        checks.append(Check("migrations", True, f"at {', '.join(sorted(heads))} (the newest)"))
    else:
        at = f"is at {', '.join(sorted(current))}" if current else "has no migration applied"
        newest = ", ".join(sorted(heads))
        fix = f"the database {at}, the newest is {newest}; run `wire db upgrade`"
        checks.append(Check("migrations", False, fix))
    return checks


async def check_slack(settings: Settings, http: aiohttp.ClientSession) -> Check:
    """Slack's `auth.test` accepts the bot token."""
    token = settings.slack.bot_token
    if token is None:
        return Check("slack", False, "no bot token; set WIRE_SLACK__BOT_TOKEN")
    url = str(settings.slack.api_url).rstrip("/") + "/auth.test"
    headers = {"Authorization": f"Bearer {token.get_secret_value()}", "User-Agent": USER_AGENT}
    async with http.post(url, headers=headers) as answer:
        body = await answer.json(content_type=None)
    if answer.status != 200 or not body.get("ok"):
        error = body.get("error") or f"HTTP {answer.status}"
        fix = "replace WIRE_SLACK__BOT_TOKEN with the app's Bot User OAuth Token"
        return Check("slack", False, f"auth.test refused the bot token ({error}); {fix}")
    return Check(
        "slack", True, f"the bot token works (workspace {body.get('team')}, bot {body.get('user')})"
    )


async def check_discord(settings: Settings, http: aiohttp.ClientSession) -> Check:
    """Discord's `GET /users/@me` accepts the bot token."""
    token = settings.discord.bot_token
    if token is None:
        return Check("discord", False, "no bot token; set WIRE_DISCORD__BOT_TOKEN")
    url = str(settings.discord.api_url).rstrip("/") + "/users/@me"
    headers = {"Authorization": f"Bot {token.get_secret_value()}", "User-Agent": USER_AGENT}
    async with http.get(url, headers=headers) as answer:
        body = await answer.json(content_type=None) if answer.status == 200 else {}
    if answer.status != 200:
        fix = "replace WIRE_DISCORD__BOT_TOKEN with the bot's token"
        refused = f"/users/@me refused the bot token (HTTP {answer.status})"
        return Check("discord", False, f"{refused}; {fix}")
    return Check("discord", True, f"the bot token works (bot {body.get('username')})")


async def check_github(settings: Settings, http: aiohttp.ClientSession) -> Check:
    """GitHub's `GET /rate_limit`: the token works, its scopes, the hour's budget left."""
    token = settings.github.token
    headers = {"Accept": "application/vnd.github+json", "User-Agent": USER_AGENT}
    if token is not None:
        headers["Authorization"] = f"Bearer {token.get_secret_value()}"
    url = str(settings.github.api_url).rstrip("/") + "/rate_limit"
    async with http.get(url, headers=headers) as answer:
        body = await answer.json(content_type=None) if answer.status == 200 else {}
        scopes = answer.headers.get("X-OAuth-Scopes")
    if answer.status == 401:
        refused = "GitHub refused the token (401 Bad credentials)"
        return Check("github", False, f"{refused}; replace WIRE_GITHUB__TOKEN")
    if answer.status != 200:
        return Check("github", False, f"GET /rate_limit answered HTTP {answer.status}")
    core = body.get("resources", {}).get("core", {})
    left, limit = int(core.get("remaining", 0)), int(core.get("limit", 0))
    reset = datetime.fromtimestamp(int(core.get("reset", 0)), UTC).strftime("%H:%M UTC")
    budget = f"{left:,} of {limit:,} requests left until {reset}"
    if token is None:
        return Check("github", True, f"no token: public repositories only; {budget}")
    kind = f"token scopes {scopes or 'none'}" if scopes is not None else "fine-grained token"
    if left == 0:
        spent = f"{kind}; no request left until {reset}"
        return Check("github", False, f"{spent}: wait, or use another token")
    return Check("github", True, f"{kind}; {budget}")


def check_webhook_secret(settings: Settings) -> Check | None:
    """The webhook secret, if one is set, is long enough to be hard to guess."""
    secret = getattr(settings.github, "webhook_secret", None)
    if secret is None:
        return None
    length = len(secret.get_secret_value().strip())
    if length < MIN_SECRET:
        fix = f"use at least {MIN_SECRET} random ones (openssl rand -hex 32) here and in GitHub"
        return Check("webhook secret", False, f"{length} characters; {fix}")
    return Check("webhook secret", True, f"set, {length} characters")


def check_weak_secrets(settings: Settings) -> Check | None:
    """A warning naming each secret short or common enough that the log redacts it only
    where it stands as a value (see `bot.logs.is_weak`); None when there is none."""
    weak = [name for name, value in named_secrets(settings) if is_weak(value)]
    if not weak:
        return None
    return Check(
        "secrets",
        False,
        f"{', '.join(weak)}: fewer than {MIN_STRONG} characters or a dictionary word, so "
        "logs redact it only where it stands as a value (password=…); use a long random one",
        optional=True,
    )


async def _guarded(name: str, check: Callable[[], Awaitable[Check]]) -> Check:
    try:
        return await check()
    except (aiohttp.ClientConnectionError, TimeoutError) as error:  # the network, not a setting
        return Check(name, False, f"unreachable ({_why(error)}); check the network or a proxy")
    except (aiohttp.ClientError, ValueError) as error:
        return Check(
            name, False, f"the API did not answer ({_why(error)}); check the api_url setting"
        )


def _why(error: BaseException) -> str:
    return type(error).__name__ if not str(error) else f"{type(error).__name__}: {error}"


GitHubUse = Literal["sources", "chat", "none"]


def github_use(settings: Settings, projects: WireConfig | None) -> GitHubUse:
    """How much this configuration needs GitHub: its projects read it ("sources"), only
    `/wire subscribe OWNER/REPO` and webhooks would ("chat"), or nothing does."""
    if projects is None or any(
        (p.source or "github:").startswith("github:") for p in projects.projects
    ):
        return "sources"
    if settings.subscribing.open == "public" or settings.github.webhook_secret is not None:
        return "chat"
    return "none"


async def run_checks(settings: Settings, projects: WireConfig | None = None) -> list[Check]:
    """Every check the settings (and the `projects` they run) call for, in order; GitHub is
    checked only when something uses it, and is optional when only chat would."""
    checks = await check_database(settings)
    platforms = settings.enabled_platforms()
    use = github_use(settings, projects)
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        remote = [("github", lambda: check_github(settings, http))] if use != "none" else []
        if "slack" in platforms:
            remote.insert(0, ("slack", lambda: check_slack(settings, http)))
        if "discord" in platforms:
            remote.insert(
                1 if "slack" in platforms else 0, ("discord", lambda: check_discord(settings, http))
            )
        found = await asyncio.gather(*(_guarded(name, run) for name, run in remote))
    for check in found:
        if check.name == "github" and use == "chat" and not check.ok:
            check = replace(
                check,
                optional=True,
                detail=f"{check.detail}; only /wire subscribe OWNER/REPO needs GitHub here",
            )
        checks.append(check)
    secrets = [check_webhook_secret(settings), check_weak_secrets(settings)]
    return checks + [check for check in secrets if check is not None]


@commands.command()
def doctor(config: ConfigOption = None) -> None:
    """Check the config, database, migrations and every token; one line each, ok or the fix."""
    settings, projects, checks = _config(config)
    if settings is not None:
        checks += asyncio.run(run_checks(settings, projects))
    for check in checks:
        typer.echo(check.line())
    if any(check.failed for check in checks):
        raise typer.Exit(1)
