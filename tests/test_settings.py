"""Settings from environment, `.env` and the shared TOML file, and their error sentences."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.config_errors import parse_duration
from bot.errors import SettingsError
from bot.settings import load_settings
from digest.config import load_config

EXAMPLE = Path(__file__).resolve().parent.parent / "config" / "wire.example.toml"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No WIRE_ variable from the outside, and a working directory without `.env`."""
    import os

    for name in list(os.environ):
        if name.upper().startswith("WIRE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def problems(**kwargs) -> list[str]:
    with pytest.raises(SettingsError) as caught:
        load_settings(**kwargs)
    return caught.value.problems


def test_defaults() -> None:
    settings = load_settings()
    assert settings.database_url == "sqlite+aiosqlite:///var/wire.db"
    assert settings.github.api_url == "https://api.github.com"
    assert settings.slack.api_url == "https://slack.com/api/"
    assert settings.discord.api_url == "https://discord.com/api/v10"
    assert settings.delivery.max_attempts == 8
    assert settings.acks.reminder_after == timedelta(minutes=30)
    assert settings.schedule.max_lookback == timedelta(days=7)
    assert settings.enabled_platforms() == ("console",)


def test_environment_nests_and_secrets_stay_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_SLACK__BOT_TOKEN", "xoxb-very-secret")
    monkeypatch.setenv("WIRE_SLACK__SIGNING_SECRET", "sign-secret")
    monkeypatch.setenv("WIRE_GITHUB__TOKEN", "ghp_secret")
    monkeypatch.setenv("WIRE_DATABASE_URL", "postgresql+asyncpg://wire:pw@db/wire")
    monkeypatch.setenv("WIRE_DELIVERY__MAX_ATTEMPTS", "3")
    settings = load_settings()
    assert settings.slack.bot_token is not None
    assert settings.slack.bot_token.get_secret_value() == "xoxb-very-secret"
    assert settings.delivery.max_attempts == 3
    assert settings.enabled_platforms() == ("slack",)
    shown = repr(settings) + str(settings) + repr(settings.slack)
    for secret in ("xoxb-very-secret", "sign-secret", "ghp_secret", ":pw@"):
        assert secret not in shown
    assert settings.database_url_for_display == "postgresql+asyncpg://wire:***@db/wire"


def test_toml_sections_are_read_and_projects_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "wire.toml"
    config.write_text(
        '[service]\ndatabase_url = "sqlite+aiosqlite:///x.db"\n'
        "[digest]\nstories_per_project = 2\n"
        '[delivery]\nmax_attempts = 4\nlease = "90s"\n'
        '[acks.oncall]\nslack = "S0123"\n'
        '[schedule]\ntimezone = "Europe/Paris"\n'
        '[[projects]]\nrepo = "pytorch/executorch"\nname = "ExecuTorch"\n'
    )
    monkeypatch.setenv("WIRE_DELIVERY__MAX_ATTEMPTS", "6")
    settings = load_settings(config=config)
    assert settings.config == config
    assert settings.database_url == "sqlite+aiosqlite:///x.db"
    assert settings.delivery.max_attempts == 6  # the environment wins over the file
    assert settings.delivery.lease == timedelta(seconds=90)
    assert settings.acks.oncall.slack == "S0123"
    assert settings.schedule.timezone == "Europe/Paris"
    assert load_config(config).projects[0].name == "ExecuTorch"


def test_wire_config_variable_and_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "c.toml").write_text("[delivery]\nworkers = 3\n")
    (tmp_path / ".env").write_text("WIRE_CONFIG=c.toml\nWIRE_GITHUB__TOKEN=ghp_from_dotenv\n")
    settings = load_settings()
    assert settings.delivery.workers == 3
    assert settings.github.token is not None
    assert settings.github.token.get_secret_value() == "ghp_from_dotenv"


def test_each_wrong_setting_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_DELIVERY__MAX_ATTEMPTS", "x")
    monkeypatch.setenv("WIRE_DELIVERY__BACKOFF_CAP", "-1")
    monkeypatch.setenv("WIRE_ACKS__REMINDER_AFTER", "soon")
    monkeypatch.setenv("WIRE_SCHEDULE__DEFAULT_CRON", "every morning")
    monkeypatch.setenv("WIRE_LOG_LEVEL", "LOUD")
    assert sorted(problems()) == sorted(
        [
            "WIRE_DELIVERY__MAX_ATTEMPTS: expected an integer ≥ 1, got 'x'",
            "WIRE_DELIVERY__BACKOFF_CAP: expected a number > 0, got '-1'",
            "WIRE_ACKS__REMINDER_AFTER: expected a duration such as 90s, 30m, 2h or 7d, got 'soon'",
            "WIRE_SCHEDULE__DEFAULT_CRON: expected a five-field cron spec such as "
            "'0 9 * * 1-5', got 'every morning'",
            "WIRE_LOG_LEVEL: expected one of 'DEBUG', 'INFO', 'WARNING' or 'ERROR', got 'LOUD'",
        ]
    )


def test_errors_in_the_file_name_the_file_and_table(tmp_path: Path) -> None:
    config = tmp_path / "wire.toml"
    config.write_text(
        '[service]\nplatforms = ["irc"]\n'
        "[delivery]\nmax_attemps = 3\nworkers = 0\n"
        '[github]\napi_url = "api.github.com"\n'
    )
    assert sorted(problems(config=config)) == sorted(
        [
            f"[service] platforms in {config}: expected a list of 'slack', 'discord' or "
            "'console', got 'irc'",
            f"[delivery] max_attemps: unknown key in {config}; did you mean max_attempts?",
            f"[delivery] workers in {config}: expected an integer ≥ 1, got 0",
            f"[github] api_url in {config}: expected an http(s) URL, got 'api.github.com'",
        ]
    )


def test_missing_token_of_an_enabled_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_PLATFORMS", '["slack", "discord"]')
    monkeypatch.setenv("WIRE_SLACK__BOT_TOKEN", "xoxb-1")
    assert problems() == [
        "WIRE_SLACK__SIGNING_SECRET: required when 'slack' is an enabled platform in HTTP "
        "mode, but not set (Socket Mode, with WIRE_SLACK__APP_TOKEN, needs none)",
        "WIRE_DISCORD__BOT_TOKEN: required when 'discord' is an enabled platform, but not set",
    ]


def test_secret_values_never_appear_in_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_SLACK", '{"bot_token": "xoxb-leak", "colour": "red"}')
    (problem,) = problems()
    assert "xoxb-leak" not in problem and "unknown setting" in problem


def test_missing_or_broken_config_file(tmp_path: Path) -> None:
    assert problems(config=tmp_path / "nope.toml") == [
        f"--config: config file {tmp_path / 'nope.toml'} does not exist"
    ]
    (tmp_path / "bad.toml").write_text("[delivery\n")
    assert "is not valid TOML" in problems(config=tmp_path / "bad.toml")[0]


def test_the_example_file_is_valid() -> None:
    settings = load_settings(config=EXAMPLE)
    assert settings.delivery.max_attempts == 8
    assert settings.schedule.default_cron == "0 9 * * 1-5"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90s", 90), ("30m", 1800), ("1h30m", 5400), ("7d", 604800), ("2w", 1209600), ("15", 15)],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


def test_a_section_variable_that_is_not_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_SLACK", "xoxb-pasted-here")
    assert problems() == ["WIRE_SLACK: expected a JSON object of its settings"]


# ---------------------------------------------------------------- strict file, typed seeds


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_unknown_key_names_file_table_key_and_the_closest_known_key(tmp_path: Path) -> None:
    config = write(tmp_path, '[service]\nfirst_lookbak = "2d"\n[acks.oncall]\nslak = "S1"\n')
    assert problems(config=config) == [
        f"[service] first_lookbak: unknown key in {config}; did you mean first_lookback?",
        f"[acks.oncall] slak: unknown key in {config}; did you mean slack?",
    ]


def test_an_unknown_key_with_no_near_name_lists_the_known_keys(tmp_path: Path) -> None:
    config = write(tmp_path, "[http]\nfrobnicate = 1\n")
    assert problems(config=config) == [
        f"[http] frobnicate: unknown key in {config}; known keys: header_timeout, host, "
        "max_connections, port, request_timeout"
    ]


def test_unknown_tables_are_refused_with_the_closest_table(tmp_path: Path) -> None:
    config = write(tmp_path, "[delivry]\nworkers = 2\n[bogus]\nx = 1\n")
    first, second = problems(config=config)
    assert first == f"[delivry]: unknown table in {config}; did you mean [delivery]?"
    assert second.startswith(f"[bogus]: unknown table in {config}; known tables: [acks], ")
    assert "[projects]" in second and "[service]" in second and "[subscriptions]" in second


def test_a_service_key_outside_any_table_is_told_where_it_belongs(tmp_path: Path) -> None:
    config = write(tmp_path, 'database_url = "sqlite+aiosqlite:///x.db"\n')
    assert problems(config=config) == [
        f"database_url: a key of [service] outside any table in {config}; move it under [service]"
    ]


def test_the_known_tables_come_from_both_models(tmp_path: Path) -> None:
    from bot.settings import Settings, file_tables
    from digest.config import WireConfig

    tables = set(file_tables())
    assert set(WireConfig.model_fields) <= tables
    assert {"service", "delivery", "demo", "subscriptions"} <= tables
    assert "first_lookback" not in tables and "first_lookback" in Settings.model_fields
    text = "".join(f"[{name}]\n" for name in WireConfig.model_fields if name != "projects")
    assert load_settings(config=write(tmp_path, text)).config is not None


def test_a_duration_without_its_unit_is_refused_with_the_expected_form(tmp_path: Path) -> None:
    config = write(tmp_path, '[service]\nfirst_lookback = 42\n[delivery]\nlease = "300"\n')
    assert problems(config=config) == [
        f"[service] first_lookback in {config}: expected a duration such as 90s, 30m, 2h or "
        "7d (a number and its unit), got 42",
        f"[delivery] lease in {config}: expected a duration such as 90s, 30m, 2h or 7d (a "
        "number and its unit), got '300'",
    ]


def test_a_config_error_names_where_the_path_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nope.toml"
    assert problems(config=missing) == [f"--config: config file {missing} does not exist"]
    (tmp_path / ".env").write_text(f"WIRE_CONFIG={missing}\n")
    assert problems() == [f"WIRE_CONFIG in .env: config file {missing} does not exist"]
    monkeypatch.setenv("WIRE_CONFIG", str(missing))
    assert problems() == [f"WIRE_CONFIG: config file {missing} does not exist"]
    assert problems(config=tmp_path) == [f"--config: {tmp_path} is a directory, not a config file"]


def test_service_keys_demo_clock_and_subscriptions_are_typed_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import UTC, datetime

    config = write(
        tmp_path,
        '[service]\nfirst_lookback = "2d"\ndeliver_no_news = true\nmisfire_grace = "10m"\n'
        '[demo]\nnow = "2026-05-27T02:00:00+02:00"\n'
        '[[subscriptions]]\nplatform = "slack"\nworkspace = "T1"\nchannel = "C1"\n'
        'target = "executorch"\nexclude = ["author:pytorchbot"]\n'
        '[[demo.subscriptions]]\nchannel = "demo"\ntarget = "ci-infra"\n',
    )
    monkeypatch.setenv("WIRE_CARRY_UNACKED_FOR", "3d")
    monkeypatch.setenv("WIRE_FIRST_LOOKBACK", "12h")  # the environment wins over the file
    settings = load_settings(config=config)
    assert settings.first_lookback == timedelta(hours=12)
    assert settings.carry_unacked_for == timedelta(days=3)
    assert (settings.deliver_no_news, settings.misfire_grace) == (True, timedelta(minutes=10))
    assert settings.now() == datetime(2026, 5, 27, tzinfo=UTC)
    assert [(table, seed.command()) for table, seed in settings.seeds] == [
        ("subscriptions", "/wire subscribe executorch -author:pytorchbot"),
        ("demo.subscriptions", "/wire subscribe ci-infra"),
    ]
    assert settings.seeds[1][1].workspace == "local"


def test_a_subscription_of_a_chat_platform_needs_its_workspace(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        '[[subscriptions]]\nplatform = "slack"\nchannel = "C1"\ntarget = "executorch"\n'
        '[[subscriptions]]\nplatform = "irc"\nchannel = "C1"\ntarget = "executorch"\n'
        '[[subscriptions]]\nchannel = "C1"\n',
    )
    assert problems(config=config) == [
        f"[[subscriptions]] entry 1 in {config}: a slack subscription needs its workspace id",
        f"[[subscriptions]] platform (entry 2) in {config}: expected one of 'slack', "
        "'discord' or 'console', got 'irc'",
        f"[[subscriptions]] target (entry 3) in {config}: required, but not set",
    ]


def test_subscriptions_from_the_environment_name_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WIRE_SUBSCRIPTIONS", '[{"channel": "demo", "target": "et", "x": 1}]')
    assert problems() == [
        "WIRE_SUBSCRIPTIONS__X (entry 1): unknown setting; known keys: channel, exclude, "
        "platform, target, workspace"
    ]


async def test_subscriptions_as_code_are_seeded_at_start_once(tmp_path: Path) -> None:
    from bot.app.service import Service, seed_subscriptions
    from bot.delivery.platform import ConsolePlatform
    from digest.errors import ConfigError

    seeds = (
        '[[subscriptions]]\nplatform = "slack"\nworkspace = "T1"\nchannel = "C1"\n'
        'target = "executorch"\nexclude = ["author:pytorchbot"]\n'
    )
    db = f'[service]\ndatabase_url = "sqlite+aiosqlite:///{tmp_path / "w.db"}"\n'
    settings = load_settings(config=write(tmp_path, db + seeds))
    projects = load_config(EXAMPLE.parent / "demo.toml")
    for _ in range(2):  # a restart finds them there and adds nothing
        async with await Service.start(
            settings=settings, config=projects, platforms={"console": ConsolePlatform()}
        ) as service:
            (sub,) = await service.store.subscriptions.list()
            assert await seed_subscriptions(service.commands, settings) == 0
    assert (sub.platform, sub.workspace, sub.channel, sub.repo) == (
        "slack",
        "T1",
        "C1",
        "pytorch/executorch",
    )
    assert sub.excludes == ("author:pytorchbot",)

    wrong = load_settings(config=write(tmp_path, db + seeds.replace("executorch", "nope")))
    with pytest.raises(ConfigError) as caught:
        await Service.start(settings=wrong, config=projects, platforms={})
    assert str(caught.value).startswith("[[subscriptions]] 'nope' for slack #C1: ")


def test_a_misspelt_environment_name_is_refused_with_the_nearest_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("WIRE_SERVICE__DATABASE_URL", "sqlite+aiosqlite:///elsewhere.db")
    (tmp_path / ".env").write_text("WIRE_SLAK__BOT_TOKEN=xoxb-1\nWIRE_NOTHING_LIKE_IT=1\n")
    assert problems() == [
        "WIRE_NOTHING_LIKE_IT: not a setting of the Wire; "
        "config/wire.example.toml lists the settings",
        "WIRE_SERVICE__DATABASE_URL: not a setting of the Wire; did you mean WIRE_DATABASE_URL?",
        "WIRE_SLAK__BOT_TOKEN: not a setting of the Wire; did you mean WIRE_SLACK__BOT_TOKEN?",
    ]


def test_real_names_nested_names_and_the_wires_other_names_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in {
        "WIRE_DATABASE_URL": "sqlite+aiosqlite:///x.db",
        "WIRE_ACKS__ONCALL__SLACK": "@oncall",
        "WIRE_DELIVERY__MAX_ATTEMPTS": "3",
        "WIRE_CONFIG": "",
        "WIRE_CACHE_DIR": "/tmp",
        "WIRE_TEST_POSTGRES_URL": "postgresql://x",
    }.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    assert settings.acks.oncall.slack == "@oncall" and settings.delivery.max_attempts == 3
