"""Server memory under a flood of webhook deliveries nobody signed: peak RSS growth.

The real service (the demo configuration with a webhook secret, `Service.start` and
`start_frontends`, so the receiver is mounted as `wire run` mounts it) runs in a process of
its own on a free loopback port. This process sends `--requests` parallel POSTs of
`--megabytes` MB each to `/github/webhook` with aiohttp, twice: without
`X-Hub-Signature-256` ("unsigned"), then with a well-formed but wrong one ("forged"), and
samples the server's resident memory (/proc/PID/status: VmRSS every 10 ms, and VmHWM, its
peak, reset before each round) against what it used at rest just before.

Target: the unsigned round grows the server by less than 100 MB. A forged body has to be
read to be found out; the receiver reads at most `[realtime] webhook_concurrency` of them at
once (2 × 25 MB by default), which bounds that round. Exits 1 when the unsigned round misses
its target.

    .venv/bin/python bench/webhook_memory.py                       # 100 × 24 MB, both rounds
    .venv/bin/python bench/webhook_memory.py --requests 40 --rounds unsigned
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import io
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

DEMO = ROOT / "config" / "demo.toml"
SECRET = "bench-webhook-secret"
PATH = "/github/webhook"
TARGET_MB = 100.0
MB = 1024 * 1024


async def _serve(database: Path) -> None:
    """The server side: the demo service with its web server, until stdin closes."""
    from bot.app.service import Service
    from bot.settings import load_settings
    from digest.config import load_config

    settings = load_settings(
        config=DEMO,
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{database}",
        http={"host": "127.0.0.1", "port": 0},
        github={"webhook_secret": SECRET},
    )
    service = await Service.start(settings=settings, config=load_config(DEMO), stream=io.StringIO())
    async with service:
        await service.start_frontends()
        print(service.web_url, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of `pid`, in bytes."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in {"VmRSS", "VmHWM"}:
            found[name] = int(value.split()[0]) * 1024
    return found


def _reset_peak(pid: int) -> None:
    """Start VmHWM again from the current RSS (Linux: 5 in clear_refs)."""
    with contextlib.suppress(OSError):  # the sampled VmRSS still stands
        Path(f"/proc/{pid}/clear_refs").write_text("5")


async def _post(http: aiohttp.ClientSession, url: str, body: bytes, signature: str | None) -> str:
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "Content-Length": str(len(body)),
    }
    if signature is not None:
        headers["X-Hub-Signature-256"] = signature
    try:
        # a file: aiohttp streams it, rather than copying 24 MB into each socket's buffer
        async with http.post(url, data=io.BytesIO(body), headers=headers) as answer:
            await answer.read()
            return str(answer.status)
    except (aiohttp.ClientError, OSError) as error:
        return type(error).__name__  # the server closed before reading all of it


async def _round(pid: int, url: str, body: bytes, requests: int, signature: str | None) -> dict:
    """Send `requests` parallel deliveries; the server's RSS growth and the answers."""
    await asyncio.sleep(0.5)
    at_rest = _status(pid)["VmRSS"]
    _reset_peak(pid)
    peak = at_rest
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _status(pid)["VmRSS"])
            await asyncio.sleep(0.01)

    sampler = asyncio.create_task(sample())
    started = time.monotonic()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        answers = await asyncio.gather(
            *(_post(http, url, body, signature) for _ in range(requests))
        )
    seconds = time.monotonic() - started
    done.set()
    await sampler
    peak = max(peak, _status(pid)["VmHWM"])
    return {
        "growth_mb": (peak - at_rest) / MB,
        "at_rest_mb": at_rest / MB,
        "answers": dict(collections.Counter(answers)),
        "seconds": seconds,
    }


async def measure(requests: int, megabytes: float, rounds: list[str]) -> dict[str, dict]:
    """Start the server process, run each round against it, stop it."""
    body = b'{"zen": "' + b"x" * int(megabytes * MB - 11) + b'"}'
    with tempfile.TemporaryDirectory() as scratch:
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(Path(scratch) / "wire.db")],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None and server.stdin is not None
            base = server.stdout.readline().strip()
            if not base:
                raise SystemExit("the server did not start")
            url = base + PATH
            async with aiohttp.ClientSession() as http:  # warm the route up
                for _ in range(3):
                    await _post(http, url, b"{}", None)
            signatures = {"unsigned": None, "forged": "sha256=" + "0" * 64}
            results = {}
            for name in rounds:
                results[name] = await _round(server.pid, url, body, requests, signatures[name])
            return results
        finally:
            if server.stdin is not None:
                server.stdin.close()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def report(results: dict[str, dict], requests: int, megabytes: float) -> str:
    """One line per round."""
    lines = [f"{requests} parallel POSTs of {megabytes:g} MB to {PATH}; server RSS growth:"]
    for name, result in results.items():
        target = f" (target < {TARGET_MB:.0f} MB)" if name == "unsigned" else ""
        lines.append(
            f"  {name:<9} {result['growth_mb']:8.1f} MB{target}   at rest "
            f"{result['at_rest_mb']:.0f} MB, {result['seconds']:.1f} s, answers "
            + ", ".join(f"{k}×{v}" for k, v in sorted(result["answers"].items()))
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--megabytes", type=float, default=24)
    parser.add_argument("--rounds", nargs="+", default=["unsigned", "forged"])
    parser.add_argument("--serve", metavar="DATABASE", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.serve:
        asyncio.run(_serve(Path(options.serve)))
        return 0
    results = asyncio.run(measure(options.requests, options.megabytes, options.rounds))
    print(report(results, options.requests, options.megabytes))
    unsigned = results.get("unsigned")
    return 1 if unsigned is not None and unsigned["growth_mb"] >= TARGET_MB else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
