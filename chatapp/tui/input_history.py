"""What the person sent before, for Up and Down in the message box, kept per data dir.

One JSON string a line in data_dir/input_history.jsonl, oldest first, the last KEPT of them. A file
that cannot be read or written costs the history, never the chat.
"""

from __future__ import annotations

import json
from pathlib import Path

KEPT = 500
# The file is cut back to KEPT once it holds this many more: a rewrite now and then, not on every line.
SLACK = 100
FILE_NAME = "input_history.jsonl"


class InputHistory:
    def __init__(self, path: Path | None):
        self.path = path
        self.entries: list[str] = self._read()
        # Where Up/Down stand: len(entries) is "below the newest", the draft being typed.
        self.position = len(self.entries)
        self.draft = ""

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> "InputHistory":
        return cls(Path(data_dir) / FILE_NAME)

    def _read(self) -> list[str]:
        if self.path is None:
            return []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return []
        entries = []
        for line in lines:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a crash mid-write
            if isinstance(entry, str) and entry.strip():
                entries.append(entry)
        return entries[-KEPT:]

    def add(self, text: str) -> None:
        """Remember `text` as the newest entry (not twice in a row) and go back below it."""
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            self._write(text)
        self.position, self.draft = len(self.entries), ""

    def _write(self, text: str) -> None:
        if self.path is None:
            return
        try:
            if len(self.entries) > KEPT + SLACK:
                self.entries = self.entries[-KEPT:]
                self.path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.entries),
                                     encoding="utf-8")
            else:
                with self.path.open("a", encoding="utf-8") as file:
                    file.write(json.dumps(text, ensure_ascii=False) + "\n")
        except OSError:
            self.path = None  # a read-only data dir: history lives for this run only

    def back(self, current: str) -> str | None:
        """The entry before the one shown (`current` is kept as the draft when leaving it); None at the oldest."""
        if self.position == 0:
            return None
        if self.position == len(self.entries):
            self.draft = current
        self.position -= 1
        return self.entries[self.position]

    def forward(self) -> str | None:
        """The entry after the one shown, or the draft past the newest; None when already at the draft."""
        if self.position >= len(self.entries):
            return None
        self.position += 1
        return self.entries[self.position] if self.position < len(self.entries) else self.draft
