"""Process-wide settings that keep third-party libraries off the network.

Called before litellm, tiktoken or chromadb are imported: each reads these
variables at import time, so setting them later has no effect.
"""

from __future__ import annotations

import os
from pathlib import Path


def litellm_package_dir() -> Path | None:
    """Where litellm is installed, found without importing it (its import takes seconds)."""
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def litellm_tokenizer_dir() -> Path | None:
    """Where litellm keeps its bundled tiktoken BPE files."""
    package = litellm_package_dir()
    path = package / "litellm_core_utils" / "tokenizers" if package else None
    return path if path is not None and path.is_dir() else None


def prepare_offline_environment() -> None:
    # litellm fetches its model cost map from the network at import unless told not to.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # tiktoken downloads BPE files on first use; litellm ships the common ones.
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        bundled = litellm_tokenizer_dir()
        if bundled is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)
    # Chroma and Hugging Face libraries phone home for telemetry or hub lookups.
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
