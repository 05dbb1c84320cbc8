"""chroma_url: a team's Chroma server instead of the local index."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chatapp.engine import ChatEngine
from tests.conftest import SAMPLE_KB


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def chroma_server(tmp_path):
    chroma = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    if not Path(chroma).exists():
        pytest.fail("the chroma command (installed with chromadb) is missing")
    port = _free_port()
    process = subprocess.Popen([chroma, "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1",
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):  # 0.2 s apart: a minute to start listening
        if process.poll() is not None:
            pytest.fail(f"chroma run exited with {process.returncode} before it listened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("the chroma server never started listening")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=30)


def test_ingest_and_search_through_a_chroma_server(tmp_path, chroma_server):
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False, chroma_url=chroma_server)
    report = engine.ingest(SAMPLE_KB / "notes" / "2026-10-20-atlas-kickoff.md",
                           SAMPLE_KB / "emails" / "2026-11-26-q4-budget-review.eml")
    assert report.files_ingested == 2 and not report.files_failed
    assert not (tmp_path / "data" / "chroma").exists()  # nothing went to the local index
    hits = engine.search("Q4 budget review meeting", k=2)
    assert hits[0].source.endswith("q4-budget-review.eml")
    assert engine.kb.vector.count() == engine.kb.stats()["chunks"]
