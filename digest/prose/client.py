"""An OpenAI-compatible chat-completions client over httpx.

`POST {base_url}/chat/completions` with `model` and `messages` is what OpenAI, Ollama,
vLLM and llama.cpp's server all answer. Every way the call can fail (time-out, refused
connection, an HTTP error status, a body that is not a chat completion) raises
`ProseUnavailable` with a reason that names no URL, header or key.
"""

from __future__ import annotations

import json
import ssl
from functools import cache
from typing import Any

import httpx
from pydantic import SecretStr

from digest.prose_settings import ProseSettings

Message = dict[str, str]


@cache
def _tls() -> ssl.SSLContext:
    """One TLS context per process, as httpx would build it: building one per client costs
    tens of milliseconds (it reads the CA bundle), more than the rest of a rewrite."""
    return httpx.create_ssl_context()


class ProseUnavailable(Exception):
    """The model could not be asked or did not answer with a chat completion."""


class ChatClient:
    """Asks one model for one chat completion at a time; the API key stays a SecretStr."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: SecretStr | None,
        timeout: float,
        temperature: float = 0.0,
        max_tokens: int = 1200,
        json_mode: bool = True,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key
        self._timeout = timeout
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._json_mode = json_mode
        self._transport = transport

    @classmethod
    def from_settings(
        cls, settings: ProseSettings, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> ChatClient:
        """A client for the configured endpoint, with the key read from the environment."""
        return cls(
            base_url=settings.base_url,
            model=settings.model,
            api_key=settings.api_key(),
            timeout=settings.timeout,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            json_mode=settings.json_mode,
            transport=transport,
        )

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"ChatClient(url={self.url!r}, model={self.model!r}, api_key={key})"

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        return headers

    def request_body(self, messages: list[Message]) -> dict[str, Any]:
        """The JSON body of one chat-completions request."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self._temperature,
            "max_tokens": self._max_tokens,
            "stream": False,
        }
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    async def complete(self, messages: list[Message]) -> str:
        """The assistant's reply to `messages`; raises ProseUnavailable on any failure."""
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout), transport=self._transport, verify=_tls()
        ) as http:
            try:
                response = await http.post(
                    self.url, json=self.request_body(messages), headers=self._headers()
                )
            except httpx.TimeoutException:
                raise ProseUnavailable(
                    f"the model did not answer within {self._timeout:g}s"
                ) from None
            except httpx.HTTPError as error:
                raise ProseUnavailable(
                    f"the model could not be reached ({type(error).__name__})"
                ) from None
        if response.status_code >= 400:
            raise ProseUnavailable(f"the model endpoint answered HTTP {response.status_code}")
        return _content(response)


def _content(response: httpx.Response) -> str:
    """The first choice's message content of a chat-completion body."""
    try:
        payload = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ProseUnavailable("the model endpoint answered a body that is not JSON") from None
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ProseUnavailable(
            "the model endpoint answered JSON that is not a chat completion"
        ) from None
    if not isinstance(content, str) or not content.strip():
        raise ProseUnavailable("the model answered no content")
    return content
