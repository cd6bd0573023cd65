"""ledger sources fetch against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from db_fixtures import ledger_url, make_article  # noqa: F401

from ledger.cli import main
from ledger.db import Ledger
from ledger.errors import NotFound, UsageError
from ledger.models import Article
from ledger.sources import FetchConfig, SnapshotStore, fetch_sources, fetch_url

FAST = FetchConfig(timeout_s=0.5, connect_timeout_s=0.5, retries=2, backoff_s=0.01,
                   max_bytes=64 * 1024)


class _State:
    def __init__(self) -> None:
        self.page = b"<html>version one</html>"
        self.flaky_failures = 2
        self.hits: dict[str, int] = {}
        self.lock = threading.Lock()


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, status: int, body: bytes, ctype: str = "text/html") -> None:
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            with state.lock:
                state.hits[self.path] = state.hits.get(self.path, 0) + 1
                hits = state.hits[self.path]
            if self.path == "/page":
                self._send(200, state.page)
            elif self.path == "/moved":
                self.send_response(302)
                self.send_header("location", "/page")
                self.send_header("content-length", "0")
                self.end_headers()
            elif self.path == "/loop":
                self.send_response(302)
                self.send_header("location", "/loop")
                self.send_header("content-length", "0")
                self.end_headers()
            elif self.path == "/big":
                self._send(200, b"x" * (256 * 1024), "application/octet-stream")
            elif self.path == "/flaky":
                self._send(503 if hits <= state.flaky_failures else 200, b"flaky body")
            elif self.path == "/slow":
                time.sleep(1.5)  # longer than the client's read timeout
                self._send(200, b"late")
            else:
                self._send(404, b"not here")

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[str, _State]]:
    state = _State()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def _article(base: str, paths: list[str]) -> Article:
    doc = make_article(1)
    doc["sources"] = [{"id": f"S{i}", "title": f"Page {i}", "publisher": "Local",
                       "published_at": None, "retrieved_at": "2026-11-04",
                       "url": f"{base}{p}", "primary": True} for i, p in enumerate(paths, 1)]
    doc["facts"][0]["source_ids"] = [s["id"] for s in doc["sources"]]
    doc["body"] = "The pages say what the store does. " + " ".join(
        f"[{s['id']}]" for s in doc["sources"])
    doc["editorial_word_count"] = 7
    return Article.model_validate_json(json.dumps(doc))


def test_fetch_records_snapshots_and_detects_changes(
        ledger_url: str, server: tuple[str, _State], tmp_path: Path) -> None:
    base, state = server
    snapshots = tmp_path / "snap"
    with Ledger.open(ledger_url) as ledger:
        ledger.ingest(_article(base, ["/page", "/moved"]))
        first = fetch_sources(ledger, snapshot_dir=snapshots, config=FAST)
        assert [r["changed"] for r in first] == [False, False]
        assert first[1]["final_url"] == f"{base}/page" and first[1]["status_code"] == 200
        digest = hashlib.sha256(state.page).hexdigest()
        assert first[0]["sha256"] == digest
        assert SnapshotStore(snapshots).get(digest) == state.page
        assert state.hits["/page"] == 2  # same final page via two URLs, each fetched once
        state.page = b"<html>version two</html>"
        second = fetch_sources(ledger, "t1-2026-11-04", snapshot_dir=snapshots, config=FAST)
        assert [r["changed"] for r in second] == [True, True]
        assert second[0]["previous_sha256"] == digest
        with ledger.read() as conn:
            from ledger.impact import changed_sources
            assert len(changed_sources(conn)) == 2
        assert ledger.audit().ok
        with pytest.raises(NotFound):
            fetch_sources(ledger, "t9-2026-11-04", snapshot_dir=snapshots, config=FAST)


def test_limits_retries_and_failures(server: tuple[str, _State]) -> None:
    base, state = server
    with httpx.Client(timeout=httpx.Timeout(0.5), follow_redirects=True, max_redirects=3) as c:
        flaky = fetch_url(c, f"{base}/flaky", FAST)
        assert flaky.ok and flaky.attempts == 3 and flaky.body == b"flaky body"
        big = fetch_url(c, f"{base}/big", FAST)
        assert not big.ok and "limit" in (big.error or "") and big.attempts == 1
        slow = fetch_url(c, f"{base}/slow", FAST)
        assert not slow.ok and "Timeout" in (slow.error or "") and slow.attempts == 3
        missing = fetch_url(c, f"{base}/missing", FAST)
        assert missing.error == "HTTP 404" and missing.attempts == 1
        loop = fetch_url(c, f"{base}/loop", FetchConfig(max_redirects=3))
        assert loop.error == "more than 3 redirects"
        state.flaky_failures = 99
        gave_up = fetch_url(c, f"{base}/flaky", FAST)
        assert gave_up.error == "HTTP 503" and gave_up.attempts == 3


def test_fetch_cli_exit_codes_and_impact_changed(
        tmp_path: Path, server: tuple[str, _State], capsys: pytest.CaptureFixture[str]) -> None:
    base, state = server
    db = str(tmp_path / "l.db")
    with Ledger.open(db) as ledger:
        ledger.ingest(_article(base, ["/page"]))
    args = ["sources", "fetch", "--db", db, "--snapshots", str(tmp_path / "s"), "--timeout", "2"]
    assert main(args) == 0
    assert "S1 new 200" in capsys.readouterr().out
    state.page = b"edited"
    assert main(args) == 0  # a changed source is not a failure: `fetch && impact` runs impact
    assert "CHANGED" in capsys.readouterr().out
    assert main([*args, "--fail-on-change"]) == 0  # unchanged since the last fetch
    state.page = b"edited again"
    assert main([*args, "--fail-on-change"]) == 1
    capsys.readouterr()
    assert main(["impact", "--changed", "--db", db, "--format", "json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["changed"]
    assert result["target"] == "t1-2026-11-04:S1" and result["snapshots"][0]["changed"]
    assert main([*args, "--retries", "-1"]) == 2


def test_fetch_config_validation() -> None:
    with pytest.raises(UsageError, match="max_bytes"):
        FetchConfig(max_bytes=0)
