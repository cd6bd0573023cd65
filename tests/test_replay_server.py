"""The OpenAI-compatible streaming server and the HTTP replayer, over real sockets."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from reference_store import EmbeddedStore, StoreConfig
from replay.cluster import ChildProcess
from replay.engine import InstanceConfig, ServingInstance
from replay.generators import CodingAgentParams, generate
from replay.metrics import SLO, summarise
from replay.model import ModelConfig, TinyTransformer
from replay.replayer import HttpBackend, replay
from replay.replayer import main as replayer_main
from replay.router import Router
from replay.server import CompletionServer

CFG = ModelConfig(layers=1, heads=2, width=32, vocab_size=512, block_size=16)


@pytest.fixture(scope="module")
def servers() -> Iterator[list[str]]:
    model = TinyTransformer(CFG)
    store = EmbeddedStore(StoreConfig(host_bytes=32 << 20))
    started = [CompletionServer(ServingInstance(model, InstanceConfig(name=f"i{i}"), store=store))
               for i in range(2)]
    try:
        for s in started:
            s.start_in_thread()
        yield [f"http://127.0.0.1:{s.port}" for s in started]
    finally:
        for s in started:
            s.shutdown()
            s.server_close()
        store.close()


def _events(url: str, body: dict[str, object]) -> list[dict[str, object]]:
    out = []
    with httpx.stream("POST", f"{url}/v1/completions", json=body, timeout=60) as resp:
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        lines = [ln for ln in resp.iter_lines() if ln]
    assert lines[-1] == "data: [DONE]"
    for ln in lines[:-1]:
        assert ln.startswith("data: ")
        out.append(json.loads(ln[6:]))
    return out


def test_stream_has_one_event_per_token_then_usage_and_stats(servers: list[str]) -> None:
    events = _events(servers[0], {"prompt": list(range(40)), "max_tokens": 3, "stream": True})
    tokens, final = events[:-1], events[-1]
    assert len(tokens) == 3
    assert [e["choices"][0]["finish_reason"] for e in tokens] == [None, None, "length"]  # type: ignore[index]
    assert final["choices"] == []
    assert final["usage"] == {"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43}
    assert final["kv_stats"]["computed_tokens"] in (40, 8)  # type: ignore[index]


def test_non_streaming_and_string_prompts(servers: list[str]) -> None:
    body = httpx.post(f"{servers[1]}/v1/completions",
                      json={"prompt": "hello there", "max_tokens": 2}, timeout=60).json()
    assert body["usage"]["completion_tokens"] == 2
    assert len(body["choices"][0]["text"].split()) == 2


@pytest.mark.parametrize("body, status, param", [
    (b"{not json", 400, None),
    (b'{"prompt": []}', 400, "prompt"),
    (b'{"prompt": [1, 9999]}', 400, "prompt"),
    (b'{"prompt": [1], "max_tokens": 0}', 400, "max_tokens"),
    (b'[1, 2]', 400, None),
])
def test_bad_requests_get_openai_errors(servers: list[str], body: bytes, status: int,
                                        param: str | None) -> None:
    resp = httpx.post(f"{servers[0]}/v1/completions", content=body, timeout=30)
    assert resp.status_code == status
    assert resp.json()["error"]["param"] == param


def test_other_routes(servers: list[str]) -> None:
    assert httpx.get(f"{servers[0]}/health").json() == {"status": "ok"}
    assert httpx.get(f"{servers[0]}/v1/models").json()["data"][0]["id"] == CFG.name
    assert "inserted" in httpx.get(f"{servers[0]}/stats").json()["local"]
    assert httpx.get(f"{servers[0]}/nope").status_code == 404
    assert httpx.post(f"{servers[0]}/admin/restart").json() == {"restarted": True}


def test_http_replay_measures_ttft_from_the_stream(servers: list[str]) -> None:
    trace = generate(CodingAgentParams(sessions=2, turns=3, vocab_size=512,
                                       system_prompt_tokens=64, repo_context_tokens=64))
    backend = HttpBackend(servers)

    async def go() -> object:
        try:
            return await replay(trace, backend, Router("round_robin", 2), delay_scale=0.0)
        finally:
            await backend.aclose()

    result = asyncio.run(go())
    records = result.records  # type: ignore[attr-defined]
    assert len(records) == 6 and all(r.ok for r in records)
    for r in records:
        assert 0 < r.ttft_s <= r.e2e_s
        assert r.output_tokens == r.server["output_tokens"]
    summary = summarise(records, result.duration_s, SLO())  # type: ignore[attr-defined]
    assert summary.hit_rate is not None and summary.hit_rate > 0.3  # the shared store serves


def test_failed_requests_are_recorded_not_raised(servers: list[str]) -> None:
    trace = generate(CodingAgentParams(sessions=1, turns=2))  # vocab 4096 > the model's 512
    backend = HttpBackend(servers)

    async def go() -> object:
        try:
            return await replay(trace, backend, Router("round_robin", 2))
        finally:
            await backend.aclose()

    records = asyncio.run(go()).records  # type: ignore[attr-defined]
    assert len(records) == 1 and not records[0].ok  # the session stops at its first failure
    assert "HTTP 400" in records[0].error


def test_replayer_command_line_against_an_endpoint(servers: list[str], tmp_path: Path) -> None:
    trace = generate(CodingAgentParams(sessions=1, turns=2, vocab_size=512,
                                       system_prompt_tokens=32, repo_context_tokens=32))
    tf = tmp_path / "trace.json"
    tf.write_text(trace.model_dump_json())
    out = tmp_path / "records.json"
    lines: list[str] = []
    rc = replayer_main(["--trace", str(tf), "--target", servers[0], "--target", servers[1],
                        "--delay-scale", "0", "--out", str(out)], out=lines.append)
    assert rc == 0
    report = json.loads(out.read_text())
    assert report["summary"]["completed"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert replayer_main(["--trace", str(bad), "--target", servers[0]], out=lines.append) == 2
    assert "error" in lines[-1]


def test_replayer_exits_1_when_every_request_failed(tmp_path: Path) -> None:
    trace = generate(CodingAgentParams(sessions=2, turns=2, vocab_size=512,
                                       system_prompt_tokens=32, repo_context_tokens=32))
    tf = tmp_path / "trace.json"
    tf.write_text(trace.model_dump_json())
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lines: list[str] = []
    rc = replayer_main(["--trace", str(tf), "--target", f"http://127.0.0.1:{port}",
                        "--delay-scale", "0"], out=lines.append)
    assert rc == 1
    assert lines[-1].startswith("error: every request failed (2 of 2); first error:")


@pytest.mark.slow
def test_server_runs_as_a_separate_process() -> None:
    child = ChildProcess("replay.server",
                         ["--port", "0", "--model-json", json.dumps({"layers": 1, "width": 32,
                                                                     "heads": 2}),
                          "--torch-threads", "1"])
    try:
        url = f"http://127.0.0.1:{child.ready[1]}"
        events = _events(url, {"prompt": list(range(20)), "max_tokens": 2, "stream": True})
        assert len(events) == 3
    finally:
        child.stop()
    assert child.popen.poll() is not None
