"""Turn files on disk into indexable plain text plus its structure.

Each parser returns the text to index and a list of blocks (headings,
paragraphs, rows, ...) as offsets into that text, so the chunker can cut along
the document's own seams instead of at arbitrary token counts. A file that
should not be indexed raises FileRejected with a short reason the ingest
report can show the user as is.
"""

from .base import SUPPORTED_SUFFIXES, Block, FileRejected, ParsedDocument
from .dispatch import parse_file

__all__ = ["Block", "ParsedDocument", "FileRejected", "SUPPORTED_SUFFIXES", "parse_file"]
