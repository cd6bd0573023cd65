"""Readable text of a saved page: HTML, Markdown, PDF or plain text, with the page's metadata.

:func:`extract` turns a body into :class:`Readable` text, which ``ledger verify`` searches for
quotes. Libraries, chosen for speed on the grounding benchmark (60 pages well under a second):

* HTML: selectolax (the Lexbor parser); block-level tags end lines, scripts and styles are
  dropped. The page's own metadata comes from its meta tags (Open Graph, ``article:*``,
  ``author``, Dublin Core, citation tags) and JSON-LD (``datePublished``, ``dateModified``,
  ``publisher``, ``author``).
* Markdown: markdown-it-py renders it, then as HTML; YAML front matter gives title, author, date.
* PDF: pypdf, page by page; title and author from the document information.
* Plain text: decoded as it is.

The encoding of HTML comes from the HTTP content type, a byte-order mark or the page's
``<meta charset>``; otherwise UTF-8, falling back to windows-1252. Every problem (a PDF with no
text layer, a body over the size limit, an unreadable file) raises :class:`ExtractError` with
one line saying what is wrong.
"""

from __future__ import annotations

import codecs
import datetime as dt
import io
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from .errors import ExtractError

__all__ = ["DEFAULT_MAX_BYTES", "ExtractError", "PageMeta", "Readable", "extract", "kind_of"]

logger = logging.getLogger(__name__)

#: Bodies larger than this are refused for text extraction (bounded memory and time).
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

_BLOCK_END = re.compile(
    rb"(?i)(</(?:p|div|li|h[1-6]|tr|td|th|pre|blockquote|section|article|header|footer|"
    rb"table|ul|ol|dd|dt|figcaption|caption)\s*>|<br\s*/?>|<hr\s*/?>)")
_META_CHARSET = re.compile(rb"""(?i)<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n", re.DOTALL)
_DROP = "script, style, noscript, template, svg, head"


@dataclass(frozen=True)
class PageMeta:
    """What the page says about itself; None when it says nothing."""

    site_name: str | None = None
    author: str | None = None
    published: str | None = None
    modified: str | None = None
    title: str | None = None

    def to_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> PageMeta:
        data = data or {}
        return cls(**{k: data.get(k) for k in ("site_name", "author", "published", "modified",
                                                 "title")})


@dataclass(frozen=True)
class Readable:
    text: str
    kind: str  # html, markdown, pdf, text
    meta: PageMeta = field(default_factory=PageMeta)
    encoding: str | None = None


def kind_of(body: bytes, content_type: str | None = None, name: str | None = None) -> str:
    """``html``, ``markdown``, ``pdf`` or ``text``: by content type, then file name, then bytes."""
    ctype = (content_type or "").split(";")[0].strip().lower()
    by_type = {"text/html": "html", "application/xhtml+xml": "html", "application/pdf": "pdf",
               "text/markdown": "markdown", "text/x-markdown": "markdown", "text/plain": "text"}
    if ctype in by_type:
        return by_type[ctype]
    suffix = (name or "").lower().rsplit(".", 1)[-1] if name and "." in name else ""
    by_suffix = {"html": "html", "htm": "html", "xhtml": "html", "pdf": "pdf", "md": "markdown",
                 "markdown": "markdown", "txt": "text", "text": "text"}
    if suffix in by_suffix:
        return by_suffix[suffix]
    head = body[:1024].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return "pdf"
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "html"
    return "text"


def _charset(content_type: str | None) -> str | None:
    match = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", content_type or "", re.I)
    return match.group(1) if match else None


def _known(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        logger.info("unknown charset %r; guessing", name)
        return None


def decode(body: bytes, content_type: str | None = None, *, sniff_meta: bool = False
           ) -> tuple[str, str]:
    """``(text, encoding)``: the declared encoding, a BOM, ``<meta charset>``, UTF-8, windows-1252."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                      (codecs.BOM_UTF16_BE, "utf-16")):
        if body.startswith(bom):
            return body.decode(name, errors="replace"), name
    declared = _known(_charset(content_type))
    if declared is None and sniff_meta:
        match = _META_CHARSET.search(body[:4096])
        declared = _known(match.group(1).decode("ascii")) if match else None
    if declared:
        return body.decode(declared, errors="replace"), declared
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace"), "cp1252"


def _html_text(html_text: str) -> tuple[str, Any]:
    from selectolax.lexbor import LexborHTMLParser as HTMLParser

    marked = _BLOCK_END.sub(rb"\g<1>\n", html_text.encode("utf-8", "surrogatepass"))
    tree = HTMLParser(marked.decode("utf-8", "replace"))
    meta_tree = tree
    for node in tree.css(_DROP):
        if node.tag != "head":
            node.decompose()
    root = tree.body or tree.root
    text = root.text(separator="") if root is not None else ""
    return re.sub(r"[ \t\r\f\v]*\n\s*\n+", "\n\n", text).strip(), meta_tree


def _first(tree: Any, selectors: list[tuple[str, str]]) -> str | None:
    for selector, attr in selectors:
        for node in tree.css(selector):
            value = (node.attributes.get(attr) if attr else node.text()) or ""
            if value.strip():
                return value.strip()
    return None


def _json_ld(tree: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for node in tree.css('script[type="application/ld+json"]'):
        try:
            data = json.loads(node.text() or "")
        except ValueError:
            continue
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict):
                for key in ("datePublished", "dateModified", "publisher", "author", "headline"):
                    found.setdefault(key, item.get(key))
    return found


def _name(value: Any) -> str | None:
    if isinstance(value, list):
        names = [n for n in (_name(v) for v in value) if n]
        return ", ".join(names) or None
    if isinstance(value, dict):
        value = value.get("name")
    return str(value).strip() if value else None


def _html_meta(tree: Any) -> PageMeta:
    ld = _json_ld(tree)
    return PageMeta(
        site_name=_first(tree, [('meta[property="og:site_name"]', "content"),
                                ('meta[name="application-name"]', "content")])
        or _name(ld.get("publisher")),
        author=_first(tree, [('meta[name="author"]', "content"),
                             ('meta[property="article:author"]', "content"),
                             ('meta[name="citation_author"]', "content")])
        or _name(ld.get("author")),
        published=_first(tree, [('meta[property="article:published_time"]', "content"),
                                ('meta[name="citation_publication_date"]', "content"),
                                ('meta[name="dc.date"]', "content"),
                                ('meta[name="DC.date"]', "content"),
                                ('meta[name="date"]', "content")])
        or _name(ld.get("datePublished")),
        modified=_first(tree, [('meta[property="article:modified_time"]', "content"),
                               ('meta[property="og:updated_time"]', "content")])
        or _name(ld.get("dateModified")),
        title=_first(tree, [('meta[property="og:title"]', "content"), ("title", "")])
        or _name(ld.get("headline")),
    )


def _iso(value: str | None) -> str | None:
    """A date as ISO ``YYYY-MM-DD`` where it can be read (``September 10, 2025`` too)."""
    if not value:
        return None
    value = value.strip().strip("\"'")
    for fmt in ("%Y-%m-%d", "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%B %Y"):
        try:
            return dt.datetime.strptime(value[:10] if fmt == "%Y-%m-%d" else value, fmt
                                        ).date().isoformat()
        except ValueError:
            continue
    return value


def _front_matter(text: str) -> tuple[str, PageMeta]:
    match = _FRONT_MATTER.match(text)
    if not match:
        return text, PageMeta()
    import yaml

    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        data = None
    body = text[match.end():]
    if not isinstance(data, dict):
        return body, PageMeta()

    def get(*keys: str) -> str | None:
        for key in keys:
            if data.get(key):
                return str(data[key])
        return None

    return body, PageMeta(author=get("author", "authors"), title=get("title"),
                          published=_iso(get("date", "published")),
                          modified=_iso(get("updated", "last_modified", "modified")))


def _markdown(text: str) -> tuple[str, PageMeta]:
    from markdown_it import MarkdownIt

    body, meta = _front_matter(text)
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(body)
    plain, _ = _html_text(rendered)
    return plain, meta


def _pdf(body: bytes) -> tuple[str, PageMeta]:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
        info = reader.metadata
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as exc:
        raise ExtractError(f"not a readable PDF ({type(exc).__name__}: {exc})") from exc
    text = "\f".join(pages)
    if not text.strip():
        raise ExtractError(f"the PDF has no text layer ({len(pages)} page(s) of images?): "
                           "save a PDF with text, or its text as .txt")
    meta = PageMeta(title=(info.title if info else None) or None,
                    author=(info.author if info else None) or None)
    return text, meta


def extract(body: bytes, content_type: str | None = None, name: str | None = None, *,
            max_bytes: int = DEFAULT_MAX_BYTES) -> Readable:
    """The readable text of ``body``; raises :class:`ExtractError` with one line."""
    if len(body) > max_bytes:
        raise ExtractError(f"the body is {len(body) / 2**20:.1f} MiB, over the "
                           f"{max_bytes / 2**20:g} MiB text-extraction limit")
    kind = kind_of(body, content_type, name)
    if kind == "pdf":
        text, meta = _pdf(body)
        return Readable(text, kind, meta)
    decoded, encoding = decode(body, content_type, sniff_meta=kind == "html")
    if kind == "html":
        text, tree = _html_text(decoded)
        return Readable(text, kind, _html_meta(tree), encoding)
    if kind == "markdown":
        text, meta = _markdown(decoded)
        return Readable(text, kind, meta, encoding)
    return Readable(decoded.strip("\ufeff"), kind, PageMeta(), encoding)
