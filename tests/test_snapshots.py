"""Readable snapshots, offline archives and the grounding checks, against pages written here and
served from 127.0.0.1; PDFs and WARC files are built in the tests."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from db_fixtures import ledger_url  # noqa: F401
from snapshot_fixtures import QUOTE, html_page, make_pdf, small_article

from ledger.cli import main
from ledger.db import Ledger
from ledger.errors import ExtractError
from ledger.models import Article
from ledger.readable import extract


class _Pages:
    def __init__(self) -> None:
        self.pages: dict[str, tuple[bytes, str]] = {}


@pytest.fixture
def site() -> Iterator[tuple[str, _Pages]]:
    pages = _Pages()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            body, ctype = pages.pages.get(self.path, (b"not here", "text/plain"))
            self.send_response(200 if self.path in pages.pages else 404)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", pages
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def _guide(sentence: str = QUOTE, published: str = "2026-10-01") -> bytes:
    return html_page("Pool guide", ["An introduction to the pool.", sentence,
                                    "Other notes follow."], published=published).encode()


def _ledger(tmp_path: Path, doc: dict[str, Any], url: str | None = None) -> tuple[str, Path]:
    db = url or str(tmp_path / "l.db")
    with Ledger.open(db) as ledger:
        ledger.ingest(Article.model_validate_json(json.dumps(doc)))
    path = tmp_path / f"{doc['id']}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return db, path


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]]]:
    capsys.readouterr()
    code = main(["verify", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["findings"]


def _rules(findings: list[dict[str, Any]]) -> list[str]:
    return [f["rule"] for f in findings if f["severity"] != "note"]


# --- text extraction --------------------------------------------------------------------------

def test_html_text_and_the_pages_own_metadata() -> None:
    page = html_page("Guide", ["First <em>para</em>graph.", "Second one."], site="Docs Site",
                     published="2026-10-01T08:00:00Z").encode()
    readable = extract(page, "text/html; charset=utf-8")
    assert "First paragraph." in readable.text and "Second one." in readable.text
    assert "not text" not in readable.text  # scripts are not text
    assert readable.meta.site_name == "Docs Site" and readable.meta.published.startswith(
        "2026-10-01")


@pytest.mark.parametrize(("charset", "words"), [
    ("windows-1252", "Caf\u00e9 \u201cquoted\u201d \u2014 na\u00efve"),
    ("shift_jis", "\u30ad\u30e3\u30c3\u30b7\u30e5\u306f\u5171\u6709\u3055\u308c\u308b"),
])
def test_a_page_in_another_encoding_is_read_from_its_meta_charset(charset: str, words: str) -> None:
    page = html_page("Page", [words], charset=charset).encode(charset)
    assert words in extract(page).text  # no content type: the <meta charset> decides


def test_markdown_front_matter_and_markup() -> None:
    text = ('---\ntitle: "A post"\nauthor: "A. Writer"\ndate: "September 10, 2025"\n---\n\n'
            "## Results\n\n- **CPU offload**: via [the engine](https://x.test/e).\n")
    readable = extract(text.encode(), name="post.md")
    assert "CPU offload: via the engine." in readable.text
    assert readable.meta.published == "2025-09-10" and readable.meta.author == "A. Writer"


def test_pdf_text_layer_and_info() -> None:
    readable = extract(make_pdf(["Throughput rose by 3.8x on 12 GPUs."]))
    assert readable.kind == "pdf" and "Throughput rose by 3.8x on 12 GPUs." in readable.text
    assert readable.meta.author == "Test Author"


@pytest.mark.parametrize(("body", "message"), [
    (make_pdf([]), "the PDF has no text layer"),
    (b"%PDF-1.4\nthis is not a pdf", "not a readable PDF"),
    (b"<html><body>" + b"x" * (50 * 1024 * 1024) + b"</body></html>",
     "50.0 MiB, over the 20 MiB text-extraction limit"),
])
def test_bad_pages_give_one_line(body: bytes, message: str) -> None:
    with pytest.raises(ExtractError, match=message) as info:
        extract(body)
    assert "\n" not in str(info.value)


# --- fetch, verify --db, stale quotes, impact -------------------------------------------------

def test_fetched_page_grounds_quotes_then_goes_stale(
        ledger_url: str, tmp_path: Path, site: tuple[str, _Pages],
        capsys: pytest.CaptureFixture[str]) -> None:
    base, pages = site
    pages.pages["/guide"] = (_guide(), "text/html; charset=utf-8")
    db, path = _ledger(tmp_path, small_article(f"{base}/guide"), ledger_url)
    snaps = str(tmp_path / "snaps")
    fetch = ["sources", "fetch", "--db", db, "--snapshots", snaps, "--timeout", "2"]
    assert main(fetch) == 0
    code, findings = _verify(capsys, str(path), "--db", db, "--snapshots", snaps)
    assert not {"quote-not-found", "stale-quote", "ungrounded-figure", "snapshot-unreadable",
                "source-metadata-mismatch"} & set(_rules(findings)), findings

    pages.pages["/guide"] = (_guide(QUOTE.replace("3.8x on 12", "2.1x on 16")), "text/html")
    capsys.readouterr()
    assert main(fetch) == 0  # changed is not a failure: `fetch && impact --changed` composes
    assert "CHANGED" in capsys.readouterr().out
    code, findings = _verify(capsys, str(path), "--db", db, "--snapshots", snaps)
    stale = [f for f in findings if f["rule"] == "stale-quote"]
    assert len(stale) == 1 and stale[0]["pointer"] == "/facts/0/quotes/0/text"
    assert "2.1x on 16 GPUs" in stale[0]["message"]

    assert main(["impact", "--changed", "--db", db, "--snapshots", snaps]) == 0
    out = capsys.readouterr().out
    assert "stale quote: t7-2026-11-04:F1 quotes S1" in out
    assert "'3.8×'" in out  # the body figure resting on F1
    assert main(["impact", "--changed", "--db", db, "--snapshots", snaps,
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [q["fact_id"] for q in data["stale_quotes"]] == ["F1"]
    assert data["stale_quotes"][0]["impact"]["figure_count"] >= 1


def test_metadata_that_disagrees_with_the_page(
        tmp_path: Path, site: tuple[str, _Pages], capsys: pytest.CaptureFixture[str]) -> None:
    base, pages = site
    pages.pages["/guide"] = (_guide(published="2026-09-15"), "text/html")
    db, path = _ledger(tmp_path, small_article(f"{base}/guide"))
    snaps = str(tmp_path / "snaps")
    assert main(["sources", "fetch", "--db", db, "--snapshots", snaps]) == 0
    _, findings = _verify(capsys, str(path), "--db", db, "--snapshots", snaps)
    found = [f for f in findings if f["rule"] == "source-metadata-mismatch"]
    assert [f["pointer"] for f in found] == ["/sources/0/published_at"]
    assert "2026-09-15" in found[0]["message"]


def test_offline_fetch_is_an_error_and_impact_does_not_say_nothing_changed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db, _ = _ledger(tmp_path, small_article(f"http://127.0.0.1:{port}/guide"))
    assert main(["sources", "fetch", "--db", db, "--snapshots", str(tmp_path / "s"),
                 "--retries", "0", "--timeout", "1"]) == 1
    assert "no source could be fetched (1 failure(s))" in capsys.readouterr().out
    assert main(["impact", "--changed", "--db", db]) == 1
    out = capsys.readouterr().out
    assert "no changed sources" not in out and "whether it changed is unknown" in out


# --- offline archives -------------------------------------------------------------------------

def _rows(db: str) -> list[tuple[str, str, str | None]]:
    from ledger.tables import SourceSnapshotRow, sql_table
    t = sql_table(SourceSnapshotRow)
    with Ledger.open(db) as ledger, ledger.read() as conn:
        return [(r.source_id, r.sha256, r.text_sha256) for r in conn.execute(
            t.select().order_by(t.c.pk)).all()]


def test_add_export_import_round_trip_keeps_every_hash(
        ledger_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = small_article("https://docs.example.test/guide")
    doc["sources"].append(dict(doc["sources"][0], id="S2", url="https://docs.example.test/r.pdf",
                               published_at=None))
    doc["body"] += " A report agrees. [S2]"
    doc["editorial_word_count"] += 3
    db, path = _ledger(tmp_path, doc)  # SQLite
    (tmp_path / "guide.html").write_bytes(_guide())
    (tmp_path / "report.pdf").write_bytes(make_pdf(["Throughput rose by 3.8x."]))
    snaps = str(tmp_path / "snaps")
    assert main(["sources", "add", f"{doc['id']}:S1", str(tmp_path / "guide.html"), "--db", db,
                 "--snapshots", snaps, "--retrieved-at", "2026-11-04"]) == 0
    assert main(["sources", "add", f"{doc['id']}:S2", str(tmp_path / "report.pdf"), "--db", db,
                 "--snapshots", snaps, "--retrieved-at", "2026-11-04T09:30:00Z"]) == 0
    warc = tmp_path / "out.warc.gz"
    assert main(["sources", "export", doc["id"], "--warc", str(warc), "--db", db,
                 "--snapshots", snaps]) == 0
    assert "wrote 2 snapshot(s)" in capsys.readouterr().out

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    db2, _ = _ledger(fresh, doc, ledger_url)  # the other kind of database from the first
    snaps2 = str(fresh / "snaps")
    assert main(["sources", "import", str(warc), "--db", db2, "--snapshots", snaps2]) == 0
    assert "imported 2 snapshot(s)" in capsys.readouterr().out
    assert _rows(db2) == _rows(db) and all(sha and text for _, sha, text in _rows(db2))
    _, findings = _verify(capsys, str(path), "--db", db2, "--snapshots", snaps2)
    assert "quote-not-found" not in _rules(findings)
    assert main(["sources", "import", str(warc), "--db", db2, "--snapshots", snaps2]) == 0
    assert "0 snapshot(s), 2 already recorded" in capsys.readouterr().out


def test_a_truncated_warc_is_one_line_and_imports_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = small_article("https://docs.example.test/guide")
    db, _ = _ledger(tmp_path, doc)
    (tmp_path / "g.html").write_bytes(_guide())
    snaps = str(tmp_path / "snaps")
    assert main(["sources", "add", f"{doc['id']}:S1", str(tmp_path / "g.html"), "--db", db,
                 "--snapshots", snaps]) == 0
    warc = tmp_path / "a.warc.gz"
    assert main(["sources", "export", doc["id"], "--warc", str(warc), "--db", db,
                 "--snapshots", snaps]) == 0
    data = warc.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    plain = gzip.decompress(data)
    in_headers, in_body = tmp_path / "headers.warc", tmp_path / "body.warc"
    in_headers.write_bytes(plain[:120])
    in_body.write_bytes(plain[:-60])
    not_warc = tmp_path / "notes.warc.gz"
    not_warc.write_bytes(gzip.compress(b"just some notes\n"))
    for broken in (cut, in_headers, in_body, not_warc):
        capsys.readouterr()
        assert main(["sources", "import", str(broken), "--db", db, "--snapshots", snaps]) == 2
        err = capsys.readouterr().err.strip()
        assert "truncated" in err and "nothing was imported" in err, err
        assert len(err.splitlines()) == 1, err
    assert len(_rows(db)) == 1


def test_saved_pages_folder_and_unreadable_pages(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = small_article("https://docs.example.test/guide")
    path = tmp_path / "a.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "S1.html").write_bytes(_guide(QUOTE.replace("improves", "raises")))
    code, findings = _verify(capsys, str(path), "--sources", str(pages))
    (found,) = [f for f in findings if f["rule"] == "quote-not-found"]
    assert code == 1 and "raises throughput by 3.8x on 12 GPUs" in found["message"]
    assert "% similar" in found["message"]
    (pages / "S1.html").unlink()
    (pages / "S1.pdf").write_bytes(make_pdf([]))
    code, findings = _verify(capsys, str(path), "--sources", str(pages))
    (found,) = [f for f in findings if f["rule"] == "snapshot-unreadable"]
    assert "S1.pdf: the PDF has no text layer" in found["message"]


def test_fetch_without_the_sources_extra_keeps_the_body_and_says_why_there_is_no_text(
        tmp_path: Path, site: tuple[str, _Pages], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    base, pages = site
    pages.pages["/guide"] = (_guide(), "text/html")
    db, _ = _ledger(tmp_path, small_article(f"{base}/guide"))
    monkeypatch.setitem(sys.modules, "selectolax.lexbor", None)  # as if not installed
    assert main(["sources", "fetch", "--db", db, "--snapshots", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert "no text: text not extracted" in out and "kv-evidence-ledger[sources]" in out
