"""Replay a trace against serving instances and measure each request from the client side.

Sessions run concurrently; within a session each turn waits for the previous answer and its tool
delay. TTFT is the time from sending the request to receiving the first generated token from the
stream; end-to-end latency runs to the end of the stream. Two backends:

* :class:`InProcessBackend`: instances in this process (each request in a worker thread);
* :class:`HttpBackend`: any OpenAI-compatible ``/v1/completions`` endpoint that streams (our
  :mod:`replay.server`, vLLM, SGLang). Prompts are sent as token id lists, which
  vLLM and SGLang accept, so block hashes on the server match the trace's.

Command line (against real endpoints)::

    python -m replay.replayer --trace trace.json \\
        --target http://gpu1:8000 --target http://gpu2:8000 --routing prefix_affinity \\
        --model my-model --out records.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx

from replay.engine import DoneEvent, ServingInstance, TokenEvent
from replay.metrics import SLO, RequestRecord, summarise
from replay.router import ROUTING_POLICIES, Router
from replay.trace import Trace, TurnRequest, materialise

__all__ = [
    "Backend",
    "Chunk",
    "Fault",
    "HttpBackend",
    "InProcessBackend",
    "ReplayResult",
    "main",
    "replay",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Chunk:
    """A piece of a streamed answer: ``tokens`` generated, and the server's stats at the end."""

    tokens: int = 0
    stats: dict[str, Any] | None = None


class Backend(Protocol):
    """Where requests go. ``size`` instances, addressed by index."""

    size: int

    def stream(self, instance: int, req: TurnRequest) -> AsyncIterator[Chunk]: ...

    async def restart(self, instance: int) -> None: ...

    async def aclose(self) -> None: ...


class InProcessBackend:
    """Instances living in this process; each request runs in its own worker thread."""

    def __init__(self, instances: Sequence[ServingInstance]) -> None:
        self.instances = list(instances)
        self.size = len(self.instances)

    async def stream(self, instance: int, req: TurnRequest) -> AsyncIterator[Chunk]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Chunk | BaseException | None] = asyncio.Queue()

        def work() -> None:
            try:
                for ev in self.instances[instance].generate(req.prompt, req.output_tokens,
                                                            tenant=req.tenant):
                    item = Chunk(tokens=1) if isinstance(ev, TokenEvent) else \
                        Chunk(stats=ev.stats.to_dict()) if isinstance(ev, DoneEvent) else None
                    loop.call_soon_threadsafe(queue.put_nowait, item)
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
                loop.call_soon_threadsafe(queue.put_nowait, exc)
            loop.call_soon_threadsafe(queue.put_nowait, None)

        threading.Thread(target=work, daemon=True, name=f"req-{req.session_id}").start()
        while (item := await queue.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item

    async def restart(self, instance: int) -> None:
        await asyncio.to_thread(self.instances[instance].restart)

    async def aclose(self) -> None:
        return None


class HttpBackend:
    """OpenAI-compatible streaming completions over HTTP, one base URL per instance."""

    def __init__(self, urls: Sequence[str], *, model: str = "tiny", timeout_s: float = 300.0,
                 extra_body: dict[str, Any] | None = None) -> None:
        if not urls:
            raise ValueError("targets: at least one URL is needed")
        self.urls = [u.rstrip("/") for u in urls]
        self.size, self.model = len(self.urls), model
        self.extra_body = dict(extra_body or {})
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(timeout_s, connect=10.0),
                                        limits=httpx.Limits(max_connections=256))

    async def stream(self, instance: int, req: TurnRequest) -> AsyncIterator[Chunk]:
        body = {"model": self.model, "prompt": req.prompt, "max_tokens": req.output_tokens,
                "min_tokens": req.output_tokens, "ignore_eos": True, "temperature": 0.0,
                "stream": True, "stream_options": {"include_usage": True},
                "user": req.tenant, **self.extra_body}
        url = f"{self.urls[instance]}/v1/completions"
        async with self.client.stream("POST", url, json=body) as resp:
            if resp.status_code != 200:
                text = (await resp.aread()).decode(errors="replace")[:300]
                raise RuntimeError(f"{url}: HTTP {resp.status_code}: {text}")
            async for line in resp.aiter_lines():
                chunk = _parse_sse(line)
                if chunk is not None:
                    yield chunk

    async def restart(self, instance: int) -> None:
        resp = await self.client.post(f"{self.urls[instance]}/admin/restart")
        resp.raise_for_status()

    async def aclose(self) -> None:
        await self.client.aclose()


def _parse_sse(line: str) -> Chunk | None:
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    if not data or data == "[DONE]":
        return None
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as exc:
        raise RuntimeError(f"stream: malformed SSE data line: {data[:120]!r}") from exc
    if "error" in obj:
        raise RuntimeError(f"stream: server error: {obj['error']}")
    tokens = sum(1 for c in obj.get("choices") or [] if c.get("text"))
    stats = obj.get("kv_stats")
    if stats is None and obj.get("usage") and not obj.get("choices"):
        return None
    return Chunk(tokens=tokens, stats=stats) if tokens or stats else None


@dataclass(frozen=True)
class Fault:
    """Apply ``action`` once ``after_requests`` requests have been sent: ``restart_instance``
    (drops that instance's local cache), ``restart_store_node`` or ``restart_store_master``."""

    after_requests: int
    instance: int = 0
    action: str = "restart_instance"


FaultHandler = Callable[[Fault], Awaitable[None]]


@dataclass
class ReplayResult:
    records: list[RequestRecord]
    duration_s: float
    started_at: float
    faults_applied: list[Fault] = field(default_factory=list)


@dataclass
class _Run:
    backend: Backend
    router: Router
    t0: float
    delay_scale: float
    faults: list[Fault]
    sem: asyncio.Semaphore | None
    on_fault: FaultHandler | None = None
    records: list[RequestRecord] = field(default_factory=list)
    sent: int = 0
    applied: list[Fault] = field(default_factory=list)

    async def _faults_due(self) -> None:
        for f in [f for f in self.faults if f.after_requests <= self.sent]:
            self.faults.remove(f)
            logger.info("fault: %s on instance %d after %d requests", f.action, f.instance,
                        self.sent)
            if f.action == "restart_instance":
                await self.backend.restart(f.instance)
            elif self.on_fault is not None:
                await self.on_fault(f)
            else:
                raise ValueError(f"fault {f.action}: nothing in this run can apply it")
            self.applied.append(f)

    async def one(self, req: TurnRequest) -> RequestRecord:
        await self._faults_due()
        self.sent += 1
        inst = self.router.choose(req.prompt)
        rec = RequestRecord(session_id=req.session_id, tenant=req.tenant, turn=req.turn,
                            instance=inst, sent_s=time.perf_counter() - self.t0,
                            prompt_tokens=len(req.prompt), prefix_tokens=req.prefix_tokens)
        start = time.perf_counter()
        try:
            async for chunk in self.backend.stream(inst, req):
                if chunk.tokens and rec.ttft_s is None:
                    rec.ttft_s = time.perf_counter() - start
                rec.output_tokens += chunk.tokens
                if chunk.stats is not None:
                    rec.server = chunk.stats
            rec.e2e_s = time.perf_counter() - start
            rec.ok = rec.ttft_s is not None
        except Exception as exc:  # noqa: BLE001 - a failed request is a measurement
            rec.ok, rec.error = False, f"{type(exc).__name__}: {exc}"
            logger.warning("request %s/%d failed: %s", req.session_id, req.turn, rec.error)
        finally:
            self.router.done(inst)
        self.records.append(rec)
        return rec

    async def session(self, reqs: list[TurnRequest], start_s: float) -> None:
        await asyncio.sleep(start_s * self.delay_scale)
        for req in reqs:
            if self.sem is not None:
                async with self.sem:
                    rec = await self.one(req)
            else:
                rec = await self.one(req)
            if not rec.ok:
                return  # the rest of the conversation depends on this answer
            await asyncio.sleep(req.tool_delay_s * self.delay_scale)


async def replay(trace: Trace, backend: Backend, router: Router, *, delay_scale: float = 1.0,
                 max_concurrency: int | None = None, faults: Sequence[Fault] = (),
                 on_fault: FaultHandler | None = None) -> ReplayResult:
    """Replay every session of ``trace``; failed requests are recorded, not raised.

    ``delay_scale`` multiplies tool delays and session start offsets (0 = back to back).
    ``on_fault`` applies faults other than ``restart_instance`` (store restarts).
    """
    sem = asyncio.Semaphore(max_concurrency) if max_concurrency else None
    run = _Run(backend, router, time.perf_counter(), delay_scale, list(faults), sem, on_fault)
    started_at = time.time()
    await asyncio.gather(*(run.session(materialise(trace, s), s.start_s) for s in trace.sessions))
    duration = time.perf_counter() - run.t0
    run.records.sort(key=lambda r: r.sent_s)
    return ReplayResult(run.records, duration, started_at, run.applied)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m replay.replayer",
        description="Replay a trace against OpenAI-compatible streaming endpoints.",
        epilog="example: python -m replay.replayer --trace t.json "
               "--target http://127.0.0.1:8000 --routing round_robin --out records.json")
    p.add_argument("--trace", required=True, type=Path, help="trace JSON file")
    p.add_argument("--target", action="append", required=True, help="base URL (repeatable)")
    p.add_argument("--routing", default="round_robin", choices=ROUTING_POLICIES)
    p.add_argument("--model", default="tiny", help="model name sent in each request")
    p.add_argument("--delay-scale", type=float, default=1.0)
    p.add_argument("--max-concurrency", type=int, default=None)
    p.add_argument("--slo-ttft", type=float, default=2.0)
    p.add_argument("--slo-e2e", type=float, default=10.0)
    p.add_argument("--out", type=Path, help="write records and summary as JSON here")
    return p


async def _main_async(args: argparse.Namespace, trace: Trace) -> dict[str, Any]:
    backend = HttpBackend(args.target, model=args.model)
    try:
        result = await replay(trace, backend, Router(args.routing, backend.size),
                              delay_scale=args.delay_scale, max_concurrency=args.max_concurrency)
    finally:
        await backend.aclose()
    summary = summarise(result.records, result.duration_s,
                        SLO(ttft_s=args.slo_ttft, e2e_s=args.slo_e2e))
    return {"summary": summary.model_dump(),
            "records": [r.model_dump() for r in result.records]}


def _stdout(text: str) -> None:
    sys.stdout.write(text + "\n")


def main(argv: Sequence[str] | None = None,
         out: Callable[[str], None] | None = None) -> int:
    """Entry point; returns 0, 1 when every request failed, or 2 on a bad trace file."""
    out = out or _stdout
    args = _parser().parse_args(argv)
    try:
        trace = Trace.model_validate_json(args.trace.read_bytes())
    except (OSError, ValueError) as exc:
        out(f"error: {args.trace}: {exc}")
        return 2
    report = asyncio.run(_main_async(args, trace))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    out(json.dumps(report["summary"], indent=2))
    summary = report["summary"]
    if summary["requests"] and summary["completed"] == 0:
        first = next((r["error"] for r in report["records"] if r.get("error")), "no error given")
        out(f"error: every request failed ({summary['requests']} of {summary['requests']}); "
            f"first error: {first}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
