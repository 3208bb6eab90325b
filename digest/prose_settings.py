"""The `[prose]` table: which engine writes the prose, and where the model is.

The API key is never part of the file: it is read from the environment variable named by
`api_key_env` (`WIRE_PROSE_API_KEY` unless set) when a client is made, kept as a
SecretStr, and never logged or shown in a repr.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

DEFAULT_KEY_ENV = "WIRE_PROSE_API_KEY"
_KEY_FIELDS = {"api_key", "key", "token", "api_token"}

ProseEngine = Literal["rules", "llm"]


class ProseSettings(BaseModel):
    """`engine = "rules"` (the default) writes every word by rule and calls nothing;
    `engine = "llm"` asks an OpenAI-compatible chat endpoint to rewrite lede and body."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    engine: ProseEngine = "rules"
    # `{base_url}/chat/completions` is called: Ollama http://127.0.0.1:11434/v1, vLLM and
    # llama.cpp's server http://HOST:8000/v1 or :8080/v1.
    base_url: str = Field(default="http://127.0.0.1:11434/v1", pattern=r"^https?://\S+$")
    model: str = ""
    # Seconds the whole rewrite may take (both attempts); beyond it the rules' text is used.
    timeout: float = Field(default=20.0, gt=0, le=600)
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=1200, ge=64, le=32768)
    # Ask for a JSON object (`response_format`); servers that do not know it may be told no.
    json_mode: bool = True
    api_key_env: str = Field(default=DEFAULT_KEY_ENV, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")

    @model_validator(mode="before")
    @classmethod
    def _no_key_in_file(cls, data: Any) -> Any:
        if isinstance(data, dict):
            found = sorted(_KEY_FIELDS & set(data))
            if found:
                raise ValueError(
                    f"{found[0]} does not belong in the file: set the environment variable "
                    f"{data.get('api_key_env', DEFAULT_KEY_ENV)} instead"
                )
        return data

    @model_validator(mode="after")
    def _model_named(self) -> ProseSettings:
        if self.engine == "llm" and not self.model.strip():
            raise ValueError('engine = "llm" needs the model to ask (model = "…")')
        return self

    @property
    def enabled(self) -> bool:
        """True when a language model rewrites the prose."""
        return self.engine == "llm"

    def api_key(self, environ: dict[str, str] | None = None) -> SecretStr | None:
        """The API key from the environment, or None (local servers need none)."""
        value = (os.environ if environ is None else environ).get(self.api_key_env, "").strip()
        return SecretStr(value) if value else None
