"""The archive in a real browser: Debian's Chromium, driven by Playwright, reading what
`wire run` serves on the demo (a real process on a free loopback port).

One service and one browser for the module. Skipped, saying why, only when no Chromium is
installed (`.ci/install-chromium.sh` installs it) or Playwright is missing.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store import Store, upgrade_database
from tests.conftest import build_story

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "tests" / "vendor" / "axe.min.js"
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
HEADLINE = "CI-INFRA SPLITS PRE-MERGE CI INTO FAST AND SLOW GATES"
HOSTILE = '<img src=x onerror="window.__pwned=1">HOSTILE <script>window.__pwned=2</script>'
CHROMIUM = (
    os.environ.get("WIRE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if CHROMIUM is None:
    pytest.skip(
        "no Chromium installed (run .ci/install-chromium.sh, or set WIRE_CHROMIUM)",
        allow_module_level=True,
    )


async def _seed(url: str) -> str:
    """A story with a hostile headline and reference, saved before the demo's own."""
    await upgrade_database(url)
    story = build_story(66)
    refs = story.references
    hostile = story.model_copy(
        update={
            "headline": HOSTILE,
            "references": (
                refs[0].model_copy(update={"title": '"><a href="javascript:alert(1)">x</a>'}),
                refs[1],
            ),
        }
    )
    async with Store.from_url(url) as store:
        await store.stories.save(hostile)
    return hostile.id


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`wire run` on the demo with one hostile story in its store: (base URL, its id)."""
    folder = tmp_path_factory.mktemp("browser")
    url = f"sqlite+aiosqlite:///{folder / 'wire.db'}"
    hostile_id = asyncio.run(_seed(url))
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")} | {
        "WIRE_DATABASE_URL": url,
        "WIRE_HTTP__PORT": "0",
    }
    service = subprocess.Popen(
        [*WIRE, "run", "--config", "config/demo.toml"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    assert service.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(service.stderr), daemon=True)
    reader.start()
    try:
        base = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = [re.search(r"archive +(http://\S+)", line) for line in list(lines)]
            base = next((m.group(1) for m in found if m), None)
            if base:
                with urllib.request.urlopen(base + "/") as response:
                    if HEADLINE in response.read().decode():
                        break
            time.sleep(0.2)
        else:
            raise AssertionError("the demo never reached the archive:\n" + "".join(lines))
        yield base, hostile_id
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(timeout=30)
        reader.join(timeout=5)
        service.stderr.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context()
    opened = context.new_page()
    yield opened
    context.close()


def test_the_list_shows_the_demo_story_and_clicking_opens_its_page(archive, page) -> None:
    base, _ = archive
    page.goto(base + "/")
    link = page.get_by_role("link", name=re.compile(HEADLINE))
    assert link.is_visible()
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url(base + href)
    assert re.fullmatch(r"/stories/story_[0-9a-f]+", href)
    assert HEADLINE in page.locator("h1").inner_text()


def test_a_story_page_unfurls_into_its_headline_and_lede(archive, page) -> None:
    base, hostile_id = archive
    page.goto(base + "/")
    page.get_by_role("link", name=re.compile(HEADLINE)).click()
    page.wait_for_url(re.compile(r".*/stories/story_[0-9a-f]+$"))

    def meta(key: str) -> str | None:
        attribute = "name" if key.startswith("twitter:") or key == "description" else "property"
        return page.locator(f'meta[{attribute}="{key}"]').get_attribute("content")

    lede = page.locator("p.lede").inner_text()
    assert meta("og:title") == meta("twitter:title") == page.locator("h1").inner_text()
    assert meta("og:description") == meta("twitter:description") == meta("description") == lede
    assert meta("og:url") == page.url == page.locator('link[rel="canonical"]').get_attribute("href")
    assert meta("og:site_name") == "The Wire" and meta("twitter:card") == "summary"
    page.goto(f"{base}/stories/{hostile_id}")  # the hostile headline stays a value
    assert meta("og:title") == HOSTILE and page.evaluate("window.__pwned") is None


def test_citation_3_jumps_to_reference_3(archive, page) -> None:
    base, _ = archive
    page.goto(base + "/")
    page.get_by_role("link", name=re.compile(HEADLINE)).click()
    page.locator('a.cite[href="#ref-3"]').first.click()
    assert page.url.endswith("#ref-3")
    assert page.evaluate("document.querySelector(':target').id") == "ref-3"
    target = page.locator("#ref-3")
    assert target.inner_text().startswith("[3] ") and target.is_visible()
    assert target.evaluate("e => e.getBoundingClientRect().top") < page.viewport_size["height"]


def test_a_hostile_title_renders_as_text(archive, page) -> None:
    base, hostile_id = archive
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for path in ("/", f"/stories/{hostile_id}"):
        page.goto(base + path)
        assert page.get_by_text(HOSTILE, exact=True).count() == 1
        assert page.evaluate("window.__pwned") is None
        assert page.locator("img, script").count() == 0
    assert page.locator("h1").text_content() == HOSTILE  # (shown upper-cased by the CSS)
    assert page.locator('a[href^="javascript:"]').count() == 0
    assert dialogs == []


def test_the_policy_blocks_injected_script(archive, page) -> None:
    base, _ = archive
    page.goto(base + "/")
    with pytest.raises(sync_api.Error):
        page.add_script_tag(content="window.__injected = 1")
    assert page.evaluate("window.__injected") is None


def focus_walk(page, presses: int = 400) -> list[str]:
    """Press Tab until focus comes back around; the href (or tag) of each element reached."""
    reached: list[str] = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        here = page.evaluate(
            "() => { const e = document.activeElement;"
            " return e === document.body ? null : (e.getAttribute('href') || e.tagName) }"
        )
        if here is None or (reached and here == reached[0] and len(reached) > 1):
            break
        reached.append(here)
    return reached


@pytest.mark.parametrize("path", ["/", "story"])
def test_the_keyboard_reaches_every_link(archive, page, path: str) -> None:
    base, _ = archive
    page.goto(base + "/")
    if path == "story":
        page.get_by_role("link", name=re.compile(HEADLINE)).click()
    links = page.eval_on_selector_all("a[href]", "all => all.map(a => a.getAttribute('href'))")
    reached = focus_walk(page)
    assert reached[0] == "#main"  # the skip link comes first
    assert set(links) <= set(reached), set(links) - set(reached)
    if path == "/":
        assert {"SELECT", "BUTTON"} <= set(reached)  # the filters too


@pytest.mark.parametrize("path", ["/", "story", "/stories/story_0000000000000000"])
def test_axe_finds_no_violations(archive, browser, path: str) -> None:
    base, _ = archive
    context = browser.new_context(bypass_csp=True)  # to inject axe into the page
    try:
        page = context.new_page()
        page.goto(base + "/")
        if path == "story":
            page.get_by_role("link", name=re.compile(HEADLINE)).click()
        elif path != "/":
            page.goto(base + path)
        page.add_script_tag(path=str(AXE))
        violations = page.evaluate(
            """async () => (await axe.run(document, {runOnly: {type: 'tag', values:
                ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}}))
                .violations.map(v => v.id + ': ' + v.nodes.map(n => n.target).join(' '))"""
        )
        ran = page.evaluate("() => axe.version")
    finally:
        context.close()
    assert ran == "4.14.1"
    assert violations == []
