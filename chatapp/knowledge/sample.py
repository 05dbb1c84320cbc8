"""The bundled sample knowledge base (sample_kb/): where it lives, and whether a path belongs to it.

What ingest reads from there is marked origin 'sample', so that it can be told from the user's own
documents and records, and removed when those arrive."""

from __future__ import annotations

from pathlib import Path

SAMPLE_ORIGIN = "sample"


def sample_kb_path() -> Path | None:
    """The bundled sample knowledge base: inside the installed package, or
    beside it in a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "sample_kb", package.parent / "sample_kb"):
        if candidate.is_dir():
            return candidate
    return None


def is_within(path: Path, root: Path) -> bool:
    """Whether `path` is `root` or lies below it (both taken as they are: resolve them first)."""
    return path == root or root in path.parents
