"""Which files an ingest reads: everything under the given paths, in name order, hidden entries
skipped, symlinks kept inside the given roots.

A symlink is read only when it points inside one of the paths the user named (it then adds nothing
the walk would not find, so it is read once, by its real path); one that leads outside is skipped
with a note, unless `follow_links` is set. A symlink loop or a broken link is one failed file, not
an aborted ingest: discovery never raises for what it meets on disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from chatapp.records import FailedFile, IngestReport

OUTSIDE_FILE_NOTE = "symlink to a file outside the folders given (not followed; --follow-links follows it)"
OUTSIDE_FOLDER_NOTE = "symlink to a folder outside the folders given (not followed; --follow-links follows it)"


def _resolved(path: Path) -> Path | str:
    """The real path of `path`, or why it has none (a loop, a dangling link, no permission)."""
    try:
        return path.resolve(strict=True)
    except RuntimeError:  # Python before 3.13 says "Symlink loop" this way
        return "symlink loop"
    except FileNotFoundError:
        return "broken symlink (its target is missing)" if path.is_symlink() else "no such file or directory"
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return "symlink loop"
        return f"cannot read: {exc.strerror or exc}"


def _is_within(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def discover(paths: list[Path], report: IngestReport, follow_links: bool = False) -> Iterator[Path]:
    """Real paths of the files under `paths`, depth first in name order; what cannot be read is added
    to report.files_failed, links leading outside to report.files_skipped."""
    roots: list[tuple[Path, Path]] = []  # (as given, resolved)
    for given in paths:
        real = _resolved(given)
        if isinstance(real, str):
            report.files_failed.append(FailedFile(str(given), real))
        else:
            roots.append((given, real))
    inside = [real for _, real in roots]
    for given, real in roots:
        if real.is_file():
            yield real  # named by the user: read even when it is a link to elsewhere
        elif real.is_dir():
            yield from _walk(real, inside, report, follow_links)
        else:
            report.files_skipped.append(FailedFile(str(given), "not a regular file or folder"))


def _walk(root: Path, inside: list[Path], report: IngestReport, follow_links: bool) -> Iterator[Path]:
    seen_folders = {root}  # real paths: a followed link back up the tree is walked once

    def unreadable(error: OSError) -> None:
        report.files_failed.append(FailedFile(str(error.filename or root), f"cannot read folder: {error.strerror}"))

    for folder, dirs, files in os.walk(root, onerror=unreadable, followlinks=follow_links):
        kept = []
        for name in sorted(d for d in dirs if not d.startswith(".")):
            entry = Path(folder) / name
            if not entry.is_symlink():
                kept.append(name)
                continue
            real = _resolved(entry)
            if isinstance(real, str):
                report.files_failed.append(FailedFile(str(entry), real))
            elif not follow_links:
                # Not walked: one inside is walked by its real path anyway.
                if not _is_within(real, inside):
                    report.files_skipped.append(FailedFile(str(entry), OUTSIDE_FOLDER_NOTE))
            elif real not in seen_folders:
                seen_folders.add(real)
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if name.startswith("."):
                continue
            entry = Path(folder) / name
            real = _resolved(entry)
            if isinstance(real, str):
                report.files_failed.append(FailedFile(str(entry), real))
            elif entry.is_symlink() and not follow_links and not _is_within(real, inside):
                report.files_skipped.append(FailedFile(str(entry), OUTSIDE_FILE_NOTE))
            elif real.is_file():
                yield real
            else:  # a fifo, a socket, a device: reading one would block or never end
                report.files_skipped.append(FailedFile(str(entry), "not a regular file"))
