"""A real local HTTP server that imitates an OpenAI-compatible chat-completions endpoint.

It checks what a real endpoint would refuse (the Authorization header, the
text and image content parts), records every request it receives, and follows
a script for the next requests: an answer, an HTTP status with headers and a
body, or hanging until the client gives up. Unscripted requests get an answer
from ``answer(prompt)``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from studies.tests.model_eval_helpers import RIGHT

MIND_OPENING = "Here is a chart"


def right_answer(prompt: str) -> str:
    """The factory study's keyed answer for a FACT prompt; a MIND answer for a MIND prompt."""
    if prompt.startswith(MIND_OPENING):
        return "I predict 0.35 because the y axis is truncated, which exaggerates the gap."
    if "Which year" in prompt:
        return RIGHT["G1_Q1"]
    if "How many million bags" in prompt:
        return RIGHT["G1_Q2"]
    return RIGHT["G1_Q3"]


@dataclass
class Hit:
    path: str
    authorization: str | None
    kind: str  # "fact" or "mind"
    prompt: str
    image_sha: str
    payload: dict

    @property
    def request_key(self) -> tuple[str, str]:
        """Which chart (by image) and which question: the same key means a repeated request."""
        return (self.image_sha, self.kind)


@dataclass
class FakeChatServer:
    key: str = "test-key"
    answer: Callable[[str], str] = right_answer
    # When set, each successful reply carries the Authorization header it got,
    # as a careless proxy might, to prove the client keeps it out of storage.
    echo_authorization: bool = False
    script: list[tuple] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)

    def __post_init__(self):
        self.lock = threading.Lock()
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                server.handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # A client that gave up on a hanging request closes the socket; the
        # late write then fails, which is expected here.
        self.httpd.handle_error = lambda request, client_address: None
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- handling

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        try:
            payload = json.loads(request.rfile.read(length))
        except ValueError:
            return self.send(request, 400, {"error": {"message": "body is not JSON"}})
        authorization = request.headers.get("Authorization")
        prompt, image, problem = self.parse(payload)
        with self.lock:
            self.hits.append(
                Hit(
                    request.path,
                    authorization,
                    "mind" if prompt.startswith(MIND_OPENING) else "fact",
                    prompt,
                    hashlib.sha256(image).hexdigest(),
                    payload,
                )
            )
            action = self.script.pop(0) if self.script else ("answer",)
        if request.path != "/v1/chat/completions":
            return self.send(request, 404, {"error": {"message": f"No route {request.path}"}})
        if authorization != f"Bearer {self.key}":
            # Real endpoints quote (part of) the key they were given; this one quotes all of it.
            given = (authorization or "").removeprefix("Bearer ")
            return self.send(
                request, 401, {"error": {"message": f"Incorrect API key provided: {given}"}}
            )
        if problem:
            return self.send(request, 400, {"error": {"message": problem}})
        name, *args = action
        if name == "status":
            status, headers, body = (list(args) + [{}, None])[:3]
            body = body if body is not None else {"error": {"message": f"status {status}"}}
            return self.send(request, status, body, headers)
        if name == "hang":
            self.release.wait(args[0] if args else 5)
            return self.send(request, 200, self.completion(payload, "too late"))
        text = args[0] if args else self.answer(prompt)
        body = self.completion(payload, text)
        if self.echo_authorization:
            body["system_fingerprint"] = f"seen {authorization}"
        return self.send(request, 200, body)

    @staticmethod
    def parse(payload: dict) -> tuple[str, bytes, str | None]:
        """(prompt, image bytes, problem) of a request with one user message."""
        try:
            (message,) = payload["messages"]
            parts = {p["type"]: p for p in message["content"]}
            prompt = parts["text"]["text"]
            url = parts["image_url"]["image_url"]["url"]
        except (KeyError, TypeError, ValueError):
            return "", b"", "expected one user message with a text and an image_url part"
        prefix = "data:image/png;base64,"
        if not url.startswith(prefix):
            return prompt, b"", "the image must be a PNG data URL"
        image = base64.b64decode(url[len(prefix) :], validate=True)
        if not image.startswith(b"\x89PNG"):
            return prompt, image, "the image is not a PNG"
        if not payload.get("model"):
            return prompt, image, "no model"
        return prompt, image, None

    @staticmethod
    def completion(payload: dict, text: str) -> dict:
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": payload.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
        }

    @staticmethod
    def send(request, status: int, body: dict, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        try:
            request.send_response(status)
            for name, value in (headers or {}).items():
                request.send_header(name, value)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)
        except OSError:
            pass
