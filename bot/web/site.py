"""The archive's routes on the service's web server.

    GET /                         the latest stories, newest first (?page=, ?project=, ?topic=)
    GET /stories/{id}             one story in the house layout
    GET /stories/{id}.json        the story as `wire digest --format json` prints it
    GET /static/archive.css       the one stylesheet

Pages are server-rendered from Jinja2 templates with autoescaping on everything and no
script at all; a story's page carries Open Graph and Twitter card tags (headline, lede,
canonical address), so a link pasted into Slack or Discord unfurls into its headline and
lede; every response carries a strict Content-Security-Policy. Stories of
private projects, and of repositories withdrawn from chat because GitHub stopped calling
them public, are neither listed nor served (404, as if absent) without the token (see
`bot.web.access` and `bot.schedule.withdrawal`).
"""

from __future__ import annotations

import time
from importlib import resources
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from aiohttp import web
from jinja2 import Environment, PackageLoader, StrictUndefined

from bot.settings_sections import WebSettings
from bot.store import ArchivePage, Store
from bot.web.access import Access
from bot.web.views import link_card, story_view, summary_view
from digest.config import Project, WireConfig
from digest.model import Story

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
STORY_ID = r"[A-Za-z0-9_-]{1,64}"
MAX_PAGE = 1_000_000  # an OFFSET any database takes
TOPICS_FOR = 60.0  # seconds the filter's list of stored topics is kept


def templates() -> Environment:
    """The archive's template environment: autoescape on, undefined names are errors."""
    return Environment(
        loader=PackageLoader("bot.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def story_json(story: Story) -> str:
    """The JSON contract of a story, exactly as `wire digest --format json` writes it."""
    return story.model_dump_json(indent=2) + "\n"


def _named(wanted: str, projects: list[Project]) -> Project | None:
    """The project called `wanted` (owner/repo, name or alias, any case), if visible."""
    key = wanted.lower()
    return next(
        (
            p
            for p in projects
            if key in {p.repo.lower(), p.name.lower(), *map(str.lower, p.aliases)}
        ),
        None,
    )


def _zone(request: web.Request) -> str | None:
    """`?tz=` when it names an IANA timezone (a channel's link carries its own), else None."""
    name = request.query.get("tz", "")
    if not name or len(name) > 64:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def _page_number(raw: str | None) -> int:
    """`?page=` as a page number: 1 unless a whole number, at most `MAX_PAGE`."""
    try:
        return min(max(int(raw or 1), 1), MAX_PAGE)
    except ValueError:
        return 1


class ArchiveSite:
    """The archive pages over a store; `mount` adds its routes to a web application."""

    def __init__(self, *, store: Store, config: WireConfig, settings: WebSettings) -> None:
        self.store = store
        self.config = config
        self.settings = settings
        self.access = Access(
            private_repos=[p.repo for p in config.projects if p.private],
            token=settings.token,
        )
        self.env = templates()
        self._topic_cache: dict[frozenset[str], tuple[float, list[str]]] = {}
        self._css = resources.files("bot.web").joinpath("static/archive.css").read_bytes()

    def mount(self, app: web.Application) -> bool:
        """Add the archive's routes; True (it serves pages)."""
        app.router.add_get("/", self.index)
        app.router.add_get(f"/stories/{{story_id:{STORY_ID}}}.json", self.story_as_json)
        app.router.add_get(f"/stories/{{story_id:{STORY_ID}}}", self.story_page)
        app.router.add_get("/static/archive.css", self.stylesheet)
        return True

    def _respond(
        self,
        request: web.Request,
        body: str,
        *,
        status: int = 200,
        content_type: str = "text/html",
    ) -> web.Response:
        response = web.Response(
            text=body, status=status, content_type=content_type, charset="utf-8"
        )
        response.headers.update(SECURITY_HEADERS)
        response.headers["Cache-Control"] = "no-store" if self.access.private_repos else "no-cache"
        self.access.remember(request, response)
        return response

    def render(
        self, request: web.Request, name: str, *, status: int = 200, **context: Any
    ) -> web.Response:
        """An HTML response from template `name`."""
        html = self.env.get_template(name).render(**context)
        return self._respond(request, html, status=status)

    def _not_found(self, request: web.Request) -> web.Response:
        return self.render(request, "not_found.html", status=404, title="Story not found")

    def _projects(self, hidden: frozenset[str]) -> list[Project]:
        hidden_lower = {repo.lower() for repo in hidden}
        return [p for p in self.config.projects if p.repo.lower() not in hidden_lower]

    async def _hidden(self, request: web.Request) -> frozenset[str]:
        """The repositories whose stories this request may not see: the private projects
        and those withdrawn from chat (GitHub stopped calling them public), unless the
        request carries the token."""
        hidden = self.access.hidden(request)
        if self.access.authorized(request):
            return hidden
        return hidden | await self.store.open_projects.withdrawn()

    async def index(self, request: web.Request) -> web.Response:
        """The latest stories, newest first, a page at a time, by project and topic."""
        hidden = await self._hidden(request)
        projects = self._projects(hidden)
        wanted = request.query.get("project", "").strip()
        topic = request.query.get("topic", "").strip() or None
        project = _named(wanted, projects)
        unknown = bool(wanted) and project is None
        page = _page_number(request.query.get("page"))
        size = self.settings.page_size
        found = ArchivePage((), more=False)
        if not unknown:
            found = await self.store.archive.page(
                repo=project.repo if project else None,
                topic=topic,
                hidden=hidden,
                offset=(page - 1) * size,
                limit=size,
            )
        query = {"project": project.repo if project else "", "topic": topic or ""}
        query = {k: v for k, v in query.items() if v}

        def link(number: int) -> str:
            return "/?" + urlencode({**query, "page": number}) if number > 1 or query else "/"

        return self.render(
            request,
            "index.html",
            title="Latest stories",
            stories=[summary_view(s, config=self.config) for s in found.stories],
            projects=projects,
            topics=await self._topics(hidden, projects),
            project=project,
            wanted=wanted,
            unknown=unknown,
            topic=topic,
            page=page,
            newer=link(page - 1) if page > 1 else None,
            older=link(page + 1) if found.more else None,
        )

    async def _topics(self, hidden: frozenset[str], projects: list[Project]) -> list[str]:
        """The topics to filter by: those of the visible projects and of listed stories
        (read from the store at most once a minute)."""
        cached = self._topic_cache.get(hidden)
        if cached is None or time.monotonic() - cached[0] > TOPICS_FOR:
            cached = (time.monotonic(), await self.store.archive.topics(hidden=hidden))
            self._topic_cache[hidden] = cached
        names = {t.name.lower(): t.name for p in projects for t in p.topics}
        for topic in cached[1]:
            names.setdefault(topic.lower(), topic)
        return sorted(names.values(), key=str.lower)

    async def _story(self, request: web.Request) -> Story | None:
        story = await self.store.stories.get(request.match_info["story_id"])
        if story is None:
            return None
        hidden = {repo.lower() for repo in await self._hidden(request)}
        if hidden & {repo.lower() for repo in story.repos}:
            return None
        if story.checks is not None and not story.checks.passed:
            return None  # never delivered: not published either
        return story

    async def story_page(self, request: web.Request) -> web.Response:
        """One story: headline, lede, cited body, action items with acks, references."""
        story = await self._story(request)
        if story is None:
            return self._not_found(request)
        acks = await self.store.acks.for_items([item.id for item in story.action_items])
        view = story_view(story, config=self.config, acks=acks, zone=_zone(request))
        card = link_card(story, base=self._base_url(request))
        return self.render(request, "story.html", title=story.headline, story=view, card=card)

    def _base_url(self, request: web.Request) -> str:
        """Where readers reach the archive: `[web] public_url`, else this request's origin."""
        if self.settings.public_url is not None:
            return str(self.settings.public_url).rstrip("/")
        return str(request.url.origin())

    async def story_as_json(self, request: web.Request) -> web.Response:
        """The story's JSON contract (see `story_json`)."""
        story = await self._story(request)
        if story is None:
            return self._respond(
                request, '{"error": "not found"}\n', status=404, content_type="application/json"
            )
        return self._respond(request, story_json(story), content_type="application/json")

    async def stylesheet(self, request: web.Request) -> web.Response:
        """The archive's stylesheet (the CSP allows styles from this origin only)."""
        response = web.Response(body=self._css, content_type="text/css", charset="utf-8")
        response.headers.update(SECURITY_HEADERS)
        response.headers["Cache-Control"] = "public, max-age=3600"
        return response
