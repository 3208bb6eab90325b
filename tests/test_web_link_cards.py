"""A story link pasted into Slack or Discord unfurls into its headline and lede: each story
page carries Open Graph and Twitter card tags, read here by parsing the HTML served over
real HTTP on loopback; a private project's page shows no card without the token."""

from __future__ import annotations

from html.parser import HTMLParser

import aiohttp

from bot.store import Store
from tests.test_web_access import TOKEN, Serve
from tests.test_web_access import serve as serve  # the archive on loopback, a fixture


class Tags(HTMLParser):
    """The `<meta>` and `<link rel=canonical>` of a page, by property or name."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: dict[str, str] = {}
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        if tag == "meta" and (key := given.get("property") or given.get("name")):
            self.found[key] = given.get("content") or ""
        if tag == "link" and given.get("rel") == "canonical":
            self.found["canonical"] = given.get("href") or ""


async def page(url: str, **options) -> tuple[int, dict[str, str]]:
    async with aiohttp.ClientSession() as http, http.get(url, **options) as response:
        return response.status, Tags(await response.text()).found


async def test_the_card_is_the_headline_the_lede_and_the_page(
    serve: Serve, store: Store, make_story
) -> None:
    story = make_story(3).model_copy(
        update={"headline": 'A "QUOTED" <HEADLINE> & MORE', "lede": "It <b>did</b> “this”."}
    )
    await store.stories.save(story)
    base = await serve()
    status, tags = await page(f"{base}/stories/{story.id}")
    assert status == 200
    address = f"{base}/stories/{story.id}"
    assert tags == {
        "canonical": address,
        "description": story.lede,
        "og:type": "article",
        "og:site_name": "The Wire",
        "og:title": story.headline,
        "og:description": story.lede,
        "og:url": address,
        "twitter:card": "summary",
        "twitter:title": story.headline,
        "twitter:description": story.lede,
        "viewport": "width=device-width, initial-scale=1",
    }


async def test_the_canonical_address_is_the_public_url(
    serve: Serve, store: Store, make_story
) -> None:
    story = make_story(4)
    await store.stories.save(story)
    base = await serve(public_url="https://wire.example.com/")
    _, tags = await page(f"{base}/stories/{story.id}")
    assert tags["og:url"] == tags["canonical"] == f"https://wire.example.com/stories/{story.id}"


async def test_a_private_page_gives_no_card_without_the_token(
    serve: Serve, store: Store, make_story
) -> None:
    secret = make_story(5).model_copy(update={"repos": ("acme/secret",)})  # a private project
    await store.stories.save(secret)
    base = await serve()
    status, tags = await page(f"{base}/stories/{secret.id}")
    assert status == 404 and not any(key.startswith(("og:", "twitter:")) for key in tags)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    status, tags = await page(f"{base}/stories/{secret.id}", headers=bearer)
    assert status == 200 and tags["og:title"] == secret.headline
