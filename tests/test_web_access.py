"""The archive's rules, over real HTTP on loopback: private projects need the token, hostile
titles stay text, pages and filters list the right stories, failed stories are not served.

Each test mounts `ArchiveSite` on an aiohttp application served by `TestServer` (a real
socket) over a store on each backend, and reads it with a real aiohttp client.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from pydantic import SecretStr

from bot.settings_sections import WebSettings
from bot.store import Store
from bot.web.access import COOKIE
from bot.web.site import ArchiveSite
from digest.config import Project, WireConfig
from digest.model import Reference, Sentence, Story

TOKEN = "archive-token-7f3a9c"
SECRET_HEADLINE = "ACME SHIPS THE SECRET THING"
CONFIG = WireConfig(
    projects=(
        Project(repo="pytorch/executorch", name="ExecuTorch", aliases=("executorch",)),
        Project(repo="acme/secret", name="Secret", aliases=("secret",), private=True),
    )
)
Serve = Callable[..., Awaitable[str]]


@pytest.fixture
async def serve(store: Store) -> AsyncIterator[Serve]:
    """Start the archive over `store` on a loopback port; returns its base URL."""
    servers: list[TestServer] = []

    async def start(
        *, token: str | None = TOKEN, page_size: int = 20, public_url: str | None = None
    ) -> str:
        settings = WebSettings(
            enabled=True,
            token=SecretStr(token) if token else None,
            page_size=page_size,
            public_url=public_url,
        )
        app = web.Application()
        ArchiveSite(store=store, config=CONFIG, settings=settings).mount(app)
        server = TestServer(app, host="127.0.0.1")
        await server.start_server()
        servers.append(server)
        return str(server.make_url("/")).rstrip("/")

    yield start
    for server in servers:
        await server.close()


def headlines(html: str) -> list[str]:
    """The headlines a list page links, in order."""
    return re.findall(r'<h2><a href="/stories/[^"]+">([^<]+)</a></h2>', html)


async def get(url: str, **options) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url, **options) as response:
        return response.status, await response.text()


def secret_story(make_story: Callable[..., Story], n: int = 90) -> Story:
    story = make_story(n)
    return story.model_copy(update={"repos": ("acme/secret",), "headline": SECRET_HEADLINE})


async def test_a_private_story_is_unreachable_without_the_token(
    serve: Serve, store: Store, make_story
) -> None:
    public, secret = make_story(1), secret_story(make_story)
    await store.stories.save(public)
    await store.stories.save(secret)
    url = await serve()

    status, html = await get(url + "/")
    assert status == 200 and public.headline in html and SECRET_HEADLINE not in html
    assert headlines(html) == [public.headline] and ">Secret</option>" not in html
    for path in (f"/stories/{secret.id}", f"/stories/{secret.id}.json"):
        assert (await get(url + path))[0] == 404
        assert (await get(url + path, headers={"Authorization": "Bearer wrong"}))[0] == 404
        assert (await get(url + path, params={"token": TOKEN[:-1]}))[0] == 404
        assert (await get(url + path, headers={"Authorization": f"Basic {TOKEN}"}))[0] == 404
    status, html = await get(url + "/", params={"project": "secret"})
    assert "No project is called “secret”" in html and SECRET_HEADLINE not in html

    bearer = {"Authorization": f"Bearer {TOKEN}"}
    status, html = await get(f"{url}/stories/{secret.id}", headers=bearer)
    assert status == 200 and f"<h1>{SECRET_HEADLINE}</h1>" in html
    status, html = await get(url + "/", headers=bearer)
    assert set(headlines(html)) == {public.headline, SECRET_HEADLINE}
    assert ">Secret</option>" in html
    status, body = await get(f"{url}/stories/{secret.id}.json", headers=bearer)
    assert status == 200 and Story.model_validate_json(body) == secret


async def test_a_browser_gets_in_with_the_token_once_then_by_cookie(
    serve: Serve, store: Store, make_story
) -> None:
    secret = secret_story(make_story)
    await store.stories.save(secret)
    url = await serve()
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:
        async with browser.get(url + "/", params={"token": TOKEN}) as first:
            assert first.status == 200 and SECRET_HEADLINE in await first.text()
            cookie = first.cookies[COOKIE]
            assert cookie["httponly"] and cookie["samesite"] == "Strict"
            assert TOKEN not in cookie.value  # a digest of the token, not the token
        async with browser.get(f"{url}/stories/{secret.id}") as later:
            assert later.status == 200 and SECRET_HEADLINE in await later.text()
    forged = {"Cookie": f"{COOKIE}={'0' * 64}"}
    assert (await get(f"{url}/stories/{secret.id}", headers=forged))[0] == 404


async def test_without_a_configured_token_private_stories_are_served_to_nobody(
    serve: Serve, store: Store, make_story
) -> None:
    secret = secret_story(make_story)
    await store.stories.save(secret)
    url = await serve(token=None)
    for headers in ({}, {"Authorization": "Bearer "}, {"Authorization": "Bearer None"}):
        assert (await get(f"{url}/stories/{secret.id}", headers=headers))[0] == 404
    assert (await get(f"{url}/stories/{secret.id}", params={"token": ""}))[0] == 404


async def test_hostile_titles_render_as_text(serve: Serve, store: Store, make_story) -> None:
    hostile = make_story(7).model_copy(
        update={
            "headline": "<script>alert('h')</script> BREAKS",
            "lede": 'A lede with <img src=x onerror="alert(1)"> in it.',
            "body": (Sentence(text="It closes </p><h1>forged</h1> the tag [1].", refs=(1,)),),
            "references": (
                Reference(
                    n=1,
                    repo="pytorch/executorch",
                    number=5,
                    title='"><a href="https://evil.example">click</a>',
                    url="javascript:alert(1)",
                ),
            ),
            "action_items": (),
        }
    )
    await store.stories.save(hostile)
    url = await serve()
    for path in ("/", f"/stories/{hostile.id}"):
        status, html = await get(url + path)
        assert status == 200
        assert "<script" not in html and "<img" not in html and 'evil.example">' not in html
        assert "&lt;script&gt;alert(&#39;h&#39;)&lt;/script&gt; BREAKS" in html
    _, html = await get(f"{url}/stories/{hostile.id}")
    assert "&lt;/p&gt;&lt;h1&gt;forged&lt;/h1&gt; the tag" in html
    assert "javascript:" not in html and re.findall(r"<h1>", html) == ["<h1>"]
    assert '<a class="cite" href="#ref-1"' in html  # the citation still links


async def test_pages_run_newest_first_and_filter_by_project_and_topic(
    serve: Serve, store: Store, make_story
) -> None:
    stories = [
        make_story(n).model_copy(update={"topic": "XNNPACK" if n % 4 == 0 else None})
        for n in range(25)
    ]
    for story in stories:
        await store.stories.save(story)
    await store.stories.save(secret_story(make_story))
    url = await serve(page_size=10)

    _, first = await get(url + "/")
    assert headlines(first) == [s.headline for s in reversed(stories)][:10]
    assert 'href="/?page=2"' in first and "Newer" not in first and "Page 1" in first
    _, last = await get(url + "/", params={"page": "3"})
    assert headlines(last) == [s.headline for s in reversed(stories)][20:]
    assert 'href="/?page=2"' in last and "Older" not in last
    _, junk = await get(url + "/", params={"page": "x"})
    assert headlines(junk) == headlines(first)
    status, far = await get(url + "/", params={"page": "9" * 30})
    assert status == 200 and headlines(far) == []

    _, topical = await get(url + "/", params={"topic": "xnnpack"})
    assert headlines(topical) == [s.headline for s in reversed(stories) if s.topic][:10]
    assert '<option value="XNNPACK" selected>' in topical and "Older" not in topical
    _, project = await get(url + "/", params={"project": "ExecuTorch", "topic": "XNNPACK"})
    assert len(headlines(project)) == 7 and "Older" not in project
    assert '<option value="pytorch/executorch" selected>' in project


async def test_failed_stories_are_neither_listed_nor_served(
    serve: Serve, store: Store, make_story
) -> None:
    failed = make_story(3, problems=("dangling citation [9]",))
    quiet = make_story(4, body=False, items=0)
    await store.stories.save(failed)
    await store.stories.save(quiet)
    url = await serve()
    _, html = await get(url + "/")
    assert headlines(html) == [] and "No stories yet." in html
    assert (await get(f"{url}/stories/{failed.id}"))[0] == 404
    status, html = await get(f"{url}/stories/{quiet.id}")  # a "no news" parent links here
    assert status == 200 and quiet.headline in html
