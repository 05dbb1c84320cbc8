"""A real full disk: the data dir on a small tmpfs filled to the last byte. Every command says so in
one line (no traceback), nothing stored before is lost, and once space is freed chatapp carries on.
Skipped where this machine may not mount a filesystem."""

from __future__ import annotations

import errno
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.fixture()
def small_disk(tmp_path):
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def _one_line_saying_full(result) -> None:
    said = (result.stdout + result.stderr).strip()
    assert result.returncode != 0
    assert "Traceback" not in said and len(said.splitlines()) == 1, said
    assert "no space left on device" in said and "free some space" in said


def test_a_full_disk_is_one_line_and_loses_nothing(small_disk):
    data = small_disk / "data"
    first = run_cli("ask", "who leads the migration?", "--model", "offline", "--session", "before", data_dir=data)
    assert first.returncode == 0, first.stdout + first.stderr
    filler = _fill(small_disk)

    _one_line_saying_full(run_cli("ask", "and the budget?", "--model", "offline", "--session", "before",
                                  data_dir=data))
    _one_line_saying_full(run_cli("doctor", data_dir=data))

    filler.unlink()
    shown = run_cli("sessions", "show", "before", "--json", data_dir=data)
    assert shown.returncode == 0, shown.stderr
    assert "who leads the migration?" in shown.stdout
    again = run_cli("ask", "and the budget?", "--model", "offline", "--session", "before", data_dir=data)
    assert again.returncode == 0, again.stdout + again.stderr
