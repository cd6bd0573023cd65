"""An OpenAI-compatible streaming completions server for one serving instance (stdlib only).

``POST /v1/completions`` takes ``prompt`` as a list of token ids (or a string, encoded as UTF-8
bytes modulo the vocabulary), ``max_tokens``, ``stream``; it answers Server-Sent Events in
OpenAI's shape, each generated token as ``" <id>"`` text, ending with ``data: [DONE]``. The last
data chunk carries ``usage`` and an extension field ``kv_stats`` with the instance's counters for
the request (hit tokens, transfer time, prefill and decode time), which the replayer records.
Other routes: ``GET /health``, ``GET /v1/models``, ``GET /stats`` (local cache counters),
``POST /admin/restart`` (drop the local cache, as a restarted process would).

Run as a process (prints ``READY <port>`` on stdout once it accepts connections)::

    python -m replay.server --port 0 --layers 2 --width 128 \\
        --store-master 127.0.0.1:7000
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from replay.engine import DoneEvent, InstanceConfig, ServingInstance, TokenEvent
from replay.model import ModelConfig, TinyTransformer

__all__ = ["CompletionServer", "RequestError", "main", "parse_completion_request"]

logger = logging.getLogger(__name__)
MAX_BODY_BYTES = 64 << 20


class RequestError(ValueError):
    """A bad request; ``param`` names the offending field."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


def parse_completion_request(body: bytes, vocab_size: int) -> dict[str, Any]:
    """Validate a completions request body.

    Raises:
        RequestError: not JSON, or a field missing or of the wrong type (named in ``param``).
    """
    try:
        req = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RequestError(f"body is not valid JSON: {exc}") from None
    if not isinstance(req, dict):
        raise RequestError("body must be a JSON object")
    prompt = req.get("prompt")
    if isinstance(prompt, str):
        prompt = [b % vocab_size for b in prompt.encode()]
    if (not isinstance(prompt, list) or not prompt
            or not all(isinstance(t, int) and not isinstance(t, bool) for t in prompt)):
        raise RequestError("prompt: must be a non-empty string or list of token ids", "prompt")
    if min(prompt) < 0 or max(prompt) >= vocab_size:
        raise RequestError(f"prompt: token ids must lie in [0, {vocab_size})", "prompt")
    max_tokens = req.get("max_tokens", 16)
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise RequestError("max_tokens: must be a positive integer", "max_tokens")
    user = req.get("user")
    return {"prompt": prompt, "max_tokens": max_tokens, "stream": bool(req.get("stream", False)),
            "model": str(req.get("model", "")), "tenant": user if isinstance(user, str) else None}


class _Handler(BaseHTTPRequestHandler):
    server: CompletionServer
    protocol_version = "HTTP/1.1"
    _limit: int = 0

    def log_message(self, fmt: str, *args: Any) -> None:
        logger.debug("%s " + fmt, self.address_string(), *args)

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, param: str | None = None) -> None:
        self._json(status, {"error": {"message": message, "type": "invalid_request_error",
                                      "param": param, "code": status}})

    def do_GET(self) -> None:
        inst = self.server.instance
        if self.path == "/health":
            self._json(200, {"status": "ok"})
        elif self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [
                {"id": inst.model.cfg.name, "object": "model", "owned_by": "reference_store"}]})
        elif self.path == "/stats":
            self._json(200, {"instance": inst.cfg.name, "local": asdict(inst.local.stats)})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self._error(413, "body too large")
            return
        body = self.rfile.read(length)
        if self.path == "/admin/restart":
            self.server.instance.restart()
            self._json(200, {"restarted": True})
        elif self.path == "/v1/completions":
            self._completions(body)
        else:
            self._error(404, f"no route {self.path}")

    def _completions(self, body: bytes) -> None:
        inst = self.server.instance
        try:
            req = parse_completion_request(body, inst.model.cfg.vocab_size)
        except RequestError as exc:
            self._error(400, str(exc), exc.param)
            return
        rid, created = f"cmpl-{uuid.uuid4().hex[:16]}", int(time.time())
        events = inst.generate(req["prompt"], req["max_tokens"], tenant=req["tenant"])
        if req["stream"]:
            self._limit = req["max_tokens"]
            self._stream(rid, created, events)
            return
        tokens, stats = [], None
        for ev in events:
            if isinstance(ev, TokenEvent):
                tokens.append(ev.token)
            elif isinstance(ev, DoneEvent):
                stats = ev.stats.to_dict()
        self._json(200, self._chunk(rid, created, "".join(f" {t}" for t in tokens), "length",
                                    len(req["prompt"]), len(tokens), stats, obj="text_completion"))

    def _chunk(self, rid: str, created: int, text: str, finish: str | None, prompt_n: int,
               out_n: int | None, stats: dict[str, Any] | None,
               obj: str = "text_completion") -> dict[str, Any]:
        chunk: dict[str, Any] = {"id": rid, "object": obj, "created": created,
                                 "model": self.server.instance.model.cfg.name,
                                 "choices": [{"index": 0, "text": text, "logprobs": None,
                                              "finish_reason": finish}]}
        if out_n is not None:
            chunk["usage"] = {"prompt_tokens": prompt_n, "completion_tokens": out_n,
                              "total_tokens": prompt_n + out_n}
        if stats is not None:
            chunk["kv_stats"] = stats
        return chunk

    def _send_event(self, obj: Any) -> None:
        data = b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _stream(self, rid: str, created: int, events: Any) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        count, limit = 0, None
        try:
            for ev in events:
                if isinstance(ev, TokenEvent):
                    count += 1
                    limit = limit or self._limit
                    finish = "length" if count == limit else None
                    self._send_event(self._chunk(rid, created, f" {ev.token}", finish, 0, None,
                                                 None))
                elif isinstance(ev, DoneEvent):
                    stats = ev.stats.to_dict()
                    final = self._chunk(rid, created, "", None, stats["prompt_tokens"], count,
                                        stats)
                    final["choices"] = []
                    self._send_event(final)
            self._send_event(b"[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            logger.info("client went away during %s", rid)
        finally:
            events.close()  # releases the instance if the client left early


class CompletionServer(ThreadingHTTPServer):
    """A threading HTTP server around one :class:`ServingInstance`."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, instance: ServingInstance, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__((host, port), _Handler)
        self.instance = instance

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def start_in_thread(self) -> threading.Thread:
        """Serve in a daemon thread; stop with ``shutdown()`` then ``server_close()``."""
        t = threading.Thread(target=self.serve_forever, daemon=True, name="completion-server")
        t.start()
        return t


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m replay.server",
        description="Serve the tiny model over the OpenAI streaming completions API.",
        epilog="example: python -m replay.server --port 8000 --store-master "
               "127.0.0.1:7000")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port")
    p.add_argument("--name", default="instance0")
    p.add_argument("--model-json", default="{}", help="ModelConfig fields as JSON")
    p.add_argument("--local-cache-blocks", type=int, default=256)
    p.add_argument("--isolation", choices=("shared", "salt"), default="shared")
    p.add_argument("--store-master", help="reference-store master HOST:PORT (shared KV store)")
    p.add_argument("--store-data-path", default="auto", choices=("auto", "tcp", "shm"),
                   help="how the store client moves bytes (default auto: shared memory with "
                        "nodes on this machine, TCP otherwise)")
    p.add_argument("--torch-threads", type=int, default=None)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run one instance until interrupted; 2 on bad arguments."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    try:
        mcfg = ModelConfig(**json.loads(args.model_json))
        icfg = InstanceConfig(name=args.name, local_cache_blocks=args.local_cache_blocks,
                              isolation=args.isolation)
    except (ValueError, TypeError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    if args.torch_threads:
        import torch
        torch.set_num_threads(args.torch_threads)
    store = None
    if args.store_master:
        from reference_store.client import StoreClient
        store = StoreClient(args.store_master, data_path=args.store_data_path)
    server = CompletionServer(ServingInstance(TinyTransformer(mcfg), icfg, store=store),
                              args.host, args.port)
    sys.stdout.write(f"READY {server.port}\n")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if store is not None:
            store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
