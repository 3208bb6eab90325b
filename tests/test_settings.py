"""Settings from environment, `.env` and the shared TOML file, and their error sentences."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.errors import SettingsError
from bot.settings import load_settings, parse_duration
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
            f"platforms in [service] of {config}: expected a list of 'slack', 'discord' or "
            "'console', "
            "got 'irc'",
            f"max_attemps in [delivery] of {config}: unknown setting",
            f"workers in [delivery] of {config}: expected an integer ≥ 1, got 0",
            f"api_url in [github] of {config}: expected an http(s) URL, got 'api.github.com'",
        ]
    )


def test_missing_token_of_an_enabled_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_PLATFORMS", '["slack", "discord"]')
    monkeypatch.setenv("WIRE_SLACK__BOT_TOKEN", "xoxb-1")
    assert problems() == [
        "WIRE_SLACK__SIGNING_SECRET: required when 'slack' is an enabled platform, but not set",
        "WIRE_DISCORD__BOT_TOKEN: required when 'discord' is an enabled platform, but not set",
    ]


def test_secret_values_never_appear_in_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRE_SLACK", '{"bot_token": "xoxb-leak", "colour": "red"}')
    (problem,) = problems()
    assert "xoxb-leak" not in problem and "unknown setting" in problem


def test_missing_or_broken_config_file(tmp_path: Path) -> None:
    assert problems(config=tmp_path / "nope.toml") == [
        f"WIRE_CONFIG: config file {tmp_path / 'nope.toml'} does not exist"
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
