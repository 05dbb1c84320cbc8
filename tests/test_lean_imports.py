"""spaCy and chromadb are imported without the parts of them a turn never runs — spaCy's command line,
chromadb's OpenTelemetry gRPC exporter, httpx's command line — and those parts still work when called.

Each check runs in a fresh interpreter: the test run itself has imported everything already.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import chatapp  # noqa: F401  (offline environment first)
from chatapp.engine import ChatEngine
from tests.conftest import RUN_CHATAPP

ROOT = Path(__file__).resolve().parent.parent
# python-docx and openpyxl too: only ingesting a Word or Excel file needs them.
LEFT_OUT = ("spacy.cli", "weasel", "requests", "grpc", "opentelemetry.exporter.otlp.proto.grpc", "httpx._main",
            "pygments", "docx", "openpyxl")


def _python(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false"})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_whole_offline_ask_loads_neither_spacys_command_line_nor_chromadbs_trace_exporter(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kestrel.md").write_text("# Project Kestrel\n\nLead: Imre Salo\n\nImre Salo leads Project Kestrel.\n",
                                     encoding="utf-8")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(docs)
    probe = (
        RUN_CHATAPP +
        f"left_out = {LEFT_OUT!r}\n"
        "print('loaded:', [n for n in left_out if any(m == n or m.startswith(n + '.') for m in sys.modules)],\n"
        "      'spacy and chromadb:', 'spacy' in sys.modules and 'chromadb' in sys.modules)\n"
    )
    out = _python(probe, "ask", "who leads Project Kestrel", "--model", "offline", "--data-dir", str(tmp_path / "data"))
    assert "Imre Salo" in out  # answered from the document, found through both indexes
    assert out.rstrip().endswith("loaded: [] spacy and chromadb: True")


def test_what_the_imports_leave_out_still_works_when_called():
    """`spacy.info()` imports spaCy's command line then; chromadb told to send traces to a collector gets
    the real exporter; and each module left out imports as usual afterwards."""
    script = (
        "import sys, chatapp\n"
        "from pathlib import Path\n"
        "from chatapp.nlp import import_spacy\n"
        "from chatapp.knowledge.vector_index import import_chromadb\n"
        "spacy = import_spacy()\n"
        "import_chromadb()\n"
        "before = [n in sys.modules for n in ('spacy.cli', 'grpc')]\n"
        "info = spacy.info()\n"
        "from chromadb.telemetry.opentelemetry import OpenTelemetryGranularity, otel_init\n"
        "otel_init('chatapp-test', 'http://127.0.0.1:9', None, OpenTelemetryGranularity.OPERATION)\n"
        "from opentelemetry import trace\n"
        "processors = trace.get_tracer_provider()._active_span_processor._span_processors\n"
        "exporter = type(processors[0]._batch_processor._exporter)\n"
        "import httpx._main, spacy.cli.info\n"
        "print(before, info['spacy_version'] == spacy.__version__, exporter.__module__, exporter.__name__,\n"
        "      Path(sys.modules['spacy.cli.info'].__file__).name)\n"
    )
    out = _python(script)
    assert out.split() == ["[False,", "False]", "True", "opentelemetry.exporter.otlp.proto.grpc.trace_exporter",
                           "OTLPSpanExporter", "info.py"]
