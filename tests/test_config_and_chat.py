"""A subscription set in the config and chat agree across a restart: chat cannot remove it
or change its exclusions (the next start would restore them silently), and says who can and
what to do instead; what chat made itself survives the restart as made."""

from __future__ import annotations

from pathlib import Path

from bot.app.service import Service
from bot.commands.replies import Context
from bot.delivery.platform import ConsolePlatform
from bot.settings import load_settings
from digest.config import load_config

ROOT = Path(__file__).resolve().parents[1]
SEEDS = """
[[subscriptions]]
platform = "console"
channel = "ops"
target = "executorch"
exclude = ["author:pytorchbot"]
"""
KEPT = (
    "Sorry: ExecuTorch is followed here because the operator set it in the config "
    "([[subscriptions]]); ask them to remove it there, or `/wire mute` this channel."
)


async def test_chat_keeps_what_the_config_set_across_a_restart(tmp_path: Path) -> None:
    database = f'[service]\ndatabase_url = "sqlite+aiosqlite:///{tmp_path / "w.db"}"\n'
    (tmp_path / "wire.toml").write_text(database + SEEDS)
    settings = load_settings(config=tmp_path / "wire.toml", env_file=None)
    projects = load_config(ROOT / "config" / "demo.toml")
    ops = Context(
        platform="console", workspace="local", channel="ops", user_id="U1", user_name="dana"
    )

    async def start() -> Service:
        return await Service.start(
            settings=settings, config=projects, platforms={"console": ConsolePlatform()}
        )

    async with await start() as service:
        wire = service.commands
        refused = await wire.handle("/wire unsubscribe executorch", context=ops)
        assert not refused.ok and refused.text == KEPT
        changed = await wire.handle("/wire subscribe executorch -author:someone", context=ops)
        assert not changed.ok and "the exclusions of ExecuTorch in this channel are set" in changed
        assert (await wire.handle("/wire subscribe ci-infra", context=ops)).ok
        everything = await wire.handle("/wire unsubscribe all", context=ops)
        assert everything.text.splitlines() == [
            "Unsubscribed this channel from all 1 subscription(s).",
            "Set by the operator in the config, these stay: ExecuTorch; ask them to remove "
            "them there, or `/wire mute` this channel.",
        ]
        assert (await wire.handle("/wire subscribe ci-infra", context=ops)).ok
        listed = await wire.handle("/wire list", context=ops)
        assert "ExecuTorch (excluding author:pytorchbot) — by config" in listed
        assert "ci-infra — by dana" in listed

    async with await start() as service:  # the restart changes nothing of either
        subs = {
            (s.repo, s.excludes, s.created_by) for s in await service.store.subscriptions.list()
        }
        assert subs == {
            ("pytorch/executorch", ("author:pytorchbot",), "config"),
            ("pytorch/ci-infra", (), "dana"),
        }
        assert (await service.commands.handle("/wire unsubscribe ci-infra", context=ops)).ok

    # the operator changes the config's exclusions: the next start applies them
    (tmp_path / "wire.toml").write_text(database + SEEDS.replace("pytorchbot", "dependabot"))
    settings = load_settings(config=tmp_path / "wire.toml", env_file=None)
    async with await start() as service:
        (sub,) = await service.store.subscriptions.list()
        assert sub.excludes == ("author:dependabot",)
