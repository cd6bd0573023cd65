"""Pages written for the tests: a small PDF built here, HTML pages, a ledger with one article."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from db_fixtures import make_article

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
SEED_ID = "pct-2026-11-04-spotlight-mooncake-store"
SHARED_SOURCES = ROOT.parent / "shared" / "sources"
SEED_FILES = {"S1": "S1.pdf", "S2": "S2.md", "S3": "S3.md", "S4": "S4.md", "S5": "S5.md",
              "S6": "S6.txt"}


def make_pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose text layer holds ``lines`` (Helvetica); no lines: no text layer."""
    ops = ["q 0.9 g 50 50 200 200 re f Q"]  # a grey box, so an empty page still draws
    if lines:
        ops.append("BT /F1 11 Tf 14 TL 50 750 Td")
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        ops.append("ET")
    stream = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (A test report) /Author (Test Author) >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)


def html_page(title: str, paragraphs: list[str], *, site: str = "Test Docs",
              published: str | None = None, charset: str = "utf-8") -> str:
    meta = [f'<meta charset="{charset}">', f'<meta property="og:site_name" content="{site}">']
    if published:
        meta.append(f'<meta property="article:published_time" content="{published}">')
    body = "".join(f"<p>{p}</p>\n" for p in paragraphs)
    return (f"<!doctype html><html><head>{''.join(meta)}<title>{title}</title>"
            f"<style>p {{ margin: 0 }}</style><script>var x = 'not text';</script></head>"
            f"<body><nav>Home | Docs</nav><h1>{title}</h1>\n{body}</body></html>")


def seed() -> dict[str, Any]:
    return json.loads(SEED.read_text(encoding="utf-8"))


QUOTE = "The distributed pool improves throughput by 3.8x on 12 GPUs."


def small_article(url: str, *, published_at: str | None = "2026-10-01") -> dict[str, Any]:
    """One source (at ``url``) and one author-reported fact that quotes it."""
    body = "Its authors report that the pool improves throughput by 3.8× on 12 GPUs. [S1]"
    doc = make_article(7, body=body, url=url)
    doc["sources"][0].update(publisher="Test Docs", published_at=published_at,
                             retrieved_at="2026-11-04")
    doc["facts"] = [{
        "id": "F1", "claim": "The pool improves throughput by 3.8× on 12 GPUs.",
        "source_ids": ["S1"],
        "evidence_type": "author_reported_benchmark_not_independently_reproduced",
        "quotes": [{"source_id": "S1", "text": QUOTE}],
    }]
    return doc
