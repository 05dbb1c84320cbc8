"""What a model call is made with: the model, where it is served, the key,
timeouts and the retry policy. Below both the client and its error messages,
which name these settings when they tell the user what to change."""

from __future__ import annotations

from dataclasses import dataclass

OFFLINE_MODEL = "offline"


@dataclass
class LLMSettings:
    model: str = OFFLINE_MODEL
    api_base: str | None = None
    api_key: str | None = None
    # Seconds: until the first piece of the answer, between two pieces once it
    # streams, and for the whole call with its retries (config.toml and CHATAPP_* set them).
    first_byte_timeout: float = 30.0
    stall_timeout: float = 60.0
    total_timeout: float = 600.0
    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    temperature: float | None = None
    max_tokens: int | None = None

    @property
    def is_offline(self) -> bool:
        return self.model.strip().lower() == OFFLINE_MODEL
