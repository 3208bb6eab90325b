"""Re-take docs/archive.png: the demo story's page as `make run` serves it.

    .venv/bin/python docs/archive_screenshot.py

Runs `wire run` on the demo configuration (a throwaway database, a free port), waits for
the story's "Read it at" link, and photographs that page at 1000 × 1250 in Debian's
Chromium (`bash .ci/install-chromium.sh`) through Playwright, as the README shows it.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
SIZE = {"width": 1000, "height": 1250}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def story_link(out: Path, deadline: float) -> str:
    while time.monotonic() < deadline:
        if found := re.search(r"Read it at (http://\S+)", out.read_text()):
            return found.group(1)
        time.sleep(0.2)
    raise SystemExit("the demo story did not come out within a minute")


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no Chromium: run `bash .ci/install-chromium.sh` first")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "stdout.txt"
        env = {
            "PATH": "/usr/bin:/bin",
            "WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{scratch}/wire.db",
            "WIRE_HTTP__PORT": str(free_port()),
        }
        wire = [sys.executable, "-c", "from bot.app.cli import main; main()"]
        with out.open("w") as sink:
            service = subprocess.Popen(
                [*wire, "run", "--config", "config/demo.toml"],
                cwd=ROOT,
                env=env,
                stdout=sink,
                stderr=subprocess.DEVNULL,
            )
        try:
            link = story_link(out, time.monotonic() + 60)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium)
                page = browser.new_page(viewport=SIZE)
                page.goto(link)
                page.screenshot(path=str(ROOT / "docs" / "archive.png"))
                browser.close()
        finally:
            service.terminate()
            service.wait(timeout=20)
    print(f"docs/archive.png: {link}")


if __name__ == "__main__":
    main()
