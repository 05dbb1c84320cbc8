"""A small, real OpenAI-compatible HTTP server for tests.

It speaks POST /v1/chat/completions (streamed as server-sent events, or as
one JSON body when the request does not ask to stream), runs on 127.0.0.1 on
a free port in a background thread, and answers each request with the next
response from a script that the test queues up: text in N pieces (or in
pieces the test cuts itself, even between the halves of an emoji), an HTTP
error, a stream that breaks after a few pieces, a stream that stalls after a
few pieces (until the test resumes it), an endless stream, or a slow first
byte. Every
request is recorded (path, headers, JSON body) so a test can assert on what
the client actually sent, and what the server delivered in answer to it (so
a test can tell that a client gave up before the rest arrived).

Fixtures (import them into tests/conftest.py):
    openai_server    a running OpenAITestServer, stopped after the test
    closed_port_url  an api_base on 127.0.0.1 where nothing listens
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Scripted:
    """One scripted answer. Build it with the class methods below."""

    text: str = "OK"
    pieces: int = 1
    piece_delay: float = 0.0
    first_byte_delay: float = 0.0
    status: int = 200
    retry_after: str | None = None
    error_message: str = ""
    # For a stream that breaks: how many pieces go out before it does, and how
    # it breaks: "error_event" sends an SSE error object (code 500 by default),
    # the way OpenAI-compatible servers report a fault mid-stream; "close"
    # drops the connection mid-body.
    break_after: int | None = None
    break_mode: str = "close"
    break_code: int = 500
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # Some servers ignore stream_options.include_usage; False plays one of those.
    send_usage: bool = True
    # The pieces exactly as sent, when the test cuts the text itself (`text` is then their join).
    parts: list[str] | None = None
    # A stream that stalls: after this many pieces nothing more is sent until `resume` is set
    # (never, when it is None) or the server stops.
    stall_after: int | None = None
    resume: threading.Event | None = None
    # A stream that never ends: the pieces of `text` are sent again and again, `piece_delay` apart.
    endless: bool = False
    # An error message with "{key}" replaced by the bearer token the request carried.
    echo_key: bool = False
    # SSE as some proxies and hosted servers send it: a ": keep-alive" comment before every event,
    # each event named ("event: message") and its JSON split over two data lines.
    verbose_events: bool = False

    @classmethod
    def reply(cls, text: str, pieces: int = 1, piece_delay: float = 0.0, first_byte_delay: float = 0.0,
              prompt_tokens: int | None = None, completion_tokens: int | None = None,
              finish_reason: str = "stop", send_usage: bool = True, verbose_events: bool = False) -> "Scripted":
        return cls(text=text, pieces=pieces, piece_delay=piece_delay, first_byte_delay=first_byte_delay,
                   prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                   finish_reason=finish_reason, send_usage=send_usage, verbose_events=verbose_events)

    @classmethod
    def stalled(cls, text: str, pieces: int, stall_after: int, resume: threading.Event | None = None,
                piece_delay: float = 0.0) -> "Scripted":
        return cls(text=text, pieces=pieces, stall_after=stall_after, resume=resume, piece_delay=piece_delay)

    @classmethod
    def endless_stream(cls, text: str, piece_delay: float = 0.05) -> "Scripted":
        return cls(text=text, pieces=len(text.split()) or 1, piece_delay=piece_delay, endless=True)

    @classmethod
    def in_parts(cls, *parts: str, piece_delay: float = 0.0, stall_after: int | None = None) -> "Scripted":
        """Exactly these pieces: a test can cut a character's UTF-16 halves apart ("\ud83d", "\ude00")."""
        return cls(text="".join(parts), pieces=len(parts), parts=list(parts), piece_delay=piece_delay,
                   stall_after=stall_after)

    @classmethod
    def error(cls, status: int, message: str = "", retry_after: float | str | None = None) -> "Scripted":
        return cls(status=status, error_message=message or f"scripted error {status}",
                   retry_after=None if retry_after is None else str(retry_after))

    @classmethod
    def error_echoing_key(cls, status: int = 400) -> "Scripted":
        """An error whose message quotes the key the request carried, as some providers' 400s and 401s do."""
        return cls(status=status, error_message="Invalid request for key {key}: check your credentials",
                   echo_key=True)

    @classmethod
    def broken_stream(cls, text: str, pieces: int, break_after: int, mode: str = "error_event",
                      code: int = 500, message: str = "upstream model crashed",
                      piece_delay: float = 0.0) -> "Scripted":
        if mode not in ("close", "error_event"):
            raise ValueError("mode is 'close' or 'error_event'")
        return cls(text=text, pieces=pieces, break_after=break_after, break_mode=mode, break_code=code,
                   error_message=message, piece_delay=piece_delay)


class Headers(dict):
    """Request headers; looked up in any case ("Authorization" or "authorization")."""

    def __init__(self, items=()):
        super().__init__((k.lower(), v) for k, v in items)

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())

    def get(self, key: str, default=None):
        return super().get(key.lower(), default)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: Headers
    body: dict[str, Any] = field(default_factory=dict)
    received_at: float = 0.0
    # What the server has delivered so far, updated as it writes: whether the
    # status line went out, how many text pieces were sent, and whether the
    # whole answer (through [DONE]) reached the socket.
    responded: bool = False
    pieces_sent: int = 0
    completed: bool = False


def _repeated(parts: list[str]):
    """The parts, over and over (an endless stream)."""
    while True:
        yield from parts


def split_into_pieces(text: str, pieces: int) -> list[str]:
    """`text` cut into `pieces` consecutive parts of near-equal length (none empty)."""
    pieces = max(1, min(pieces, len(text) or 1))
    size, extra = divmod(len(text), pieces)
    parts, start = [], 0
    for index in range(pieces):
        end = start + size + (1 if index < extra else 0)
        parts.append(text[start:end])
        start = end
    return parts


_STATUS_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    403: "permission_denied",
    404: "model_not_found",
    429: "rate_limit_exceeded",
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked bodies, like real servers
    server: "_Server"
    verbose_events = False  # the answer being sent is a Scripted with verbose_events

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # keep test output clean

    # --- helpers -------------------------------------------------------------

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _write_event(self, payload: dict | str) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        if self.verbose_events and data != "[DONE]":
            # The same JSON over two data lines (a reader joins them with a newline: still JSON).
            head, sep, tail = data.partition(", ")
            lines = f"data: {head}{sep.strip()}\ndata: {tail}" if sep else f"data: {data}"
            self._write_chunk(f": keep-alive\n\nevent: message\n{lines}\n\n".encode())
            return
        self._write_chunk(f"data: {data}\n\n".encode())

    def _drop_connection(self) -> None:
        """Close the socket mid-body: the client sees a truncated chunked response."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # --- routes --------------------------------------------------------------

    def do_GET(self):  # noqa: N802 - http.server's naming
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        self.recorded = RecordedRequest(
            method="POST", path=self.path, headers=Headers(self.headers.items()),
            body=body, received_at=time.monotonic(),
        )
        self.server.owner._record(self.recorded)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        script = self.server.owner._next_script()
        if script.first_byte_delay and self.server.owner._stopping.wait(script.first_byte_delay):
            self._drop_connection()
            return
        if script.status != 200:
            self._answer_error(script)
        elif body.get("stream"):
            self._answer_stream(script, body)
        else:
            self._answer_whole(script, body)

    def _answer_error(self, script: Scripted) -> None:
        headers = {"Retry-After": script.retry_after} if script.retry_after is not None else {}
        message = script.error_message
        if script.echo_key:
            sent = self.recorded.headers.get("Authorization") or ""
            message = message.replace("{key}", sent.removeprefix("Bearer ").strip())
        error = {"message": message, "type": _STATUS_ERROR_TYPES.get(script.status, "server_error"),
                 "code": script.status}
        self.recorded.responded = True
        self._send_json(script.status, {"error": error}, headers)
        self.recorded.completed = True

    def _usage(self, script: Scripted, body: dict, parts: list[str]) -> dict:
        prompt = script.prompt_tokens
        if prompt is None:
            prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion = script.completion_tokens if script.completion_tokens is not None else len(parts)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _answer_whole(self, script: Scripted, body: dict) -> None:
        parts = split_into_pieces(script.text, script.pieces)
        self.recorded.responded = True
        self._send_json(200, {
            "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": script.text},
                         "finish_reason": script.finish_reason}],
            "usage": self._usage(script, body, parts),
        })
        self.recorded.pieces_sent, self.recorded.completed = len(parts), True

    def _answer_stream(self, script: Scripted, body: dict) -> None:
        model = body.get("model", "test-model")
        created = int(time.time())

        def chunk(delta: dict, finish_reason: str | None = None) -> dict:
            return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

        self.verbose_events = script.verbose_events
        self.recorded.responded = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        parts = script.parts if script.parts is not None else split_into_pieces(script.text, script.pieces)
        stopping = self.server.owner._stopping
        try:
            self._write_event(chunk({"role": "assistant", "content": ""}))
            for index, part in enumerate(_repeated(parts) if script.endless else parts):
                if script.break_after is not None and index == script.break_after:
                    self._break_stream(script)
                    return
                if script.stall_after is not None and index == script.stall_after:
                    if not self._stall(script):
                        return
                elif index and script.piece_delay and stopping.wait(script.piece_delay):
                    self._drop_connection()
                    return
                self._write_event(chunk({"content": part}))
                self.recorded.pieces_sent += 1
            if script.break_after is not None:  # asked to break after the last piece
                self._break_stream(script)
                return
            self._write_event(chunk({}, script.finish_reason))
            if script.send_usage and (body.get("stream_options") or {}).get("include_usage"):
                usage_chunk = chunk({})
                usage_chunk["choices"] = []
                usage_chunk["usage"] = self._usage(script, body, parts)
                self._write_event(usage_chunk)
            self._write_event("[DONE]")
            self._write_chunk(b"")  # the zero-length chunk that ends the body
            self.recorded.completed = True
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away (cancelled); nothing to do

    def _stall(self, script: Scripted) -> bool:
        """Send nothing until the script's `resume` is set (True) or the server stops (False: the
        connection is dropped)."""
        stopping = self.server.owner._stopping
        while not stopping.is_set():
            if script.resume is not None and script.resume.wait(0.05):
                return True
            if script.resume is None:
                stopping.wait(0.05)
        self._drop_connection()
        return False

    def _break_stream(self, script: Scripted) -> None:
        if script.break_mode == "error_event":
            self._write_event({"error": {"message": script.error_message, "type": "server_error",
                                         "code": script.break_code}})
            self._write_chunk(b"")
        else:
            self._drop_connection()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: "OpenAITestServer"

    def handle_error(self, request, client_address):
        # Clients that hang up (a cancelled stream, a test that timed out) are
        # expected here; anything else is still reported.
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class OpenAITestServer:
    """Start with `with OpenAITestServer() as server:` or start()/stop().

    `server.script(Scripted.error(429, retry_after=0), Scripted.reply("Hi", pieces=3))`
    queues answers, one per request; when the queue is empty every request gets
    `default` (the text "OK"). `server.requests` lists every request that
    arrived, `server.chat_requests` the chat completions among them.
    """

    def __init__(self, default: Scripted | None = None):
        self.default = default or Scripted.reply("OK")
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The api_base to give a client: http://127.0.0.1:PORT/v1"""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *responses: Scripted) -> "OpenAITestServer":
        with self._lock:
            self._queue.extend(responses)
        return self

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat-completion requests received so far, oldest first."""
        with self._lock:
            return self._chat_requests_locked()

    def wait_for_chat_requests(self, count: int, timeout: float = 60.0) -> bool:
        """Block until `count` chat-completion requests have arrived (True), or
        `timeout` seconds passed without them (False)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self._chat_requests_locked()) >= count, timeout)

    def _chat_requests_locked(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def _record(self, request: RecordedRequest) -> None:
        with self._arrived:
            self.requests.append(request)
            self._arrived.notify_all()

    def _next_script(self) -> Scripted:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default

    def start(self) -> "OpenAITestServer":
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="openai-test-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers that are sleeping through a scripted delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "OpenAITestServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def free_closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago and has nothing listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def openai_server():
    with OpenAITestServer() as server:
        yield server


@pytest.fixture
def closed_port_url() -> str:
    return f"http://127.0.0.1:{free_closed_port()}/v1"
