"""``misattributed-source`` for a source whose ``publisher`` is not the site its ``url`` is on.

A publisher is read against the URL's host (and, on a code host, the account in its path): it
agrees when a word of one is in the other, or one is the other's initials ("Carnegie Mellon
University" at pdl.cmu.edu). A resolver or archive (doi.org, web.archive.org) and a publisher
that says it is a copy ("via Style Pass", "(mirror)") say nothing of who published, so they are
left alone. A publisher that shares nothing with its site is a warning: a paper on an author's
page or a syndicated story may be right. It is an error when the article itself shows where
that publisher lives (another source with that publisher on its own site, "Wccftech" at
wccftech.com beside a ServeTheHome URL), or when the publisher names another domain
("NeurIPS 2024 (neurips.cc)" for an icml.cc page).
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from ..models import Article, Source
from ..report import Finding, Severity
from .sourcenames import GENERIC, initials, norm

__all__ = ["check_publishers"]

#: Hosts that resolve, archive or relay other publishers' documents.
_RELAYS = frozenset({"doi.org", "dx.doi.org", "hdl.handle.net", "web.archive.org",
                     "archive.org", "archive.ph", "archive.today", "scholar.google.com",
                     "semanticscholar.org", "www.semanticscholar.org", "threadreaderapp.com",
                     "nitter.net", "archive.is"})
#: Code and document hosts where the account in the path is the owner.
_ACCOUNT_HOSTS = ("github.com", "githubusercontent.com", "gitlab.com", "huggingface.co",
                  "bitbucket.org", "codeberg.org", "medium.com", "substack.com", "twitter.com",
                  "x.com", "linkedin.com", "youtube.com")
_COPY_RE = re.compile(r"\b(?:via|mirror(?:ed)?|cop(?:y|ies)|archived?|syndicated|reprint(?:ed)?|"
                      r"repost(?:ed)?|cached)\b", re.IGNORECASE)
_DOMAIN_RE = re.compile(r"\b[a-z0-9-]+\.(?:com|org|net|io|ai|cc|dev|app|co|edu|gov)\b",
                        re.IGNORECASE)
_HOST_NOISE = frozenset({"www", "com", "org", "net", "io", "ai", "co", "uk", "cn", "cc", "app",
                         "dev", "edu", "gov", "de", "fr", "jp", "blog", "blogs", "docs",
                         "developer", "developers", "news", "en", "static", "cdn", "raw"})


def _site_names(src: Source) -> list[str]:
    """The names the source's URL gives its site: host labels, and the account on a code
    host ("github.com/microsoft/DeepSpeed": microsoft)."""
    url = urlparse(src.url)
    host = (url.hostname or "").lower()
    names = [label for label in re.split(r"\.", host) if label and label not in _HOST_NOISE]
    if host.endswith(_ACCOUNT_HOSTS):  # the platform itself, or the account on it
        names += [p for p in url.path.split("/") if p][:1]
    return names


_SMALL = frozenset({"of", "on", "for", "and", "the", "in", "at", "to", "a", "an"})


def _initials(publisher: str) -> str:
    """"International Conference on Learning Representations" -> "iclr"."""
    return "".join(w[0] for w in norm(publisher).split() if w not in _SMALL)


def _agrees(publisher: str, names: list[str]) -> bool:
    key = norm(publisher).replace(" ", "")
    words = [w for w in norm(publisher).split() if len(w) > 2 and w not in GENERIC]
    short = initials(publisher) | {_initials(publisher)}
    for name in names:
        n = norm(name).replace(" ", "")
        if len(n) < 2:
            continue
        if n in key or (len(key) > 2 and key in n) or any(w in n for w in words):
            return True  # "hhoikoo.github.io" for "Hyunhoi Koo's slide deck"
        if any(n in s for s in short if len(s) > 2):
            return True  # "pdl.cmu.edu" for "Carnegie Mellon University Parallel Data Lab"
    return False


def check_publishers(article: Article) -> list[Finding]:
    findings = []
    for i, src in enumerate(article.sources):
        host = (urlparse(src.url).hostname or "").lower() if src.url else ""
        if not host or not src.publisher or host in _RELAYS or _COPY_RE.search(src.publisher):
            continue
        names = _site_names(src)
        if not names or _agrees(src.publisher, names):
            continue
        elsewhere = [o.id for o in article.sources if o is not src and o.url
                     and norm(o.publisher or "") == norm(src.publisher)
                     and _agrees(o.publisher or "", _site_names(o))]
        domains = [d for d in _DOMAIN_RE.findall(src.publisher)
                   if not host.endswith(d.lower())]
        sure = bool(elsewhere or domains)
        why = (f"; {', '.join(elsewhere)} shows {src.publisher!r} on its own site"
               if elsewhere else f"; it names another site ({domains[0]})" if domains
               else " (a paper on an author's page or a syndicated story may be right: the "
                    "checker cannot be sure)")
        findings.append(Finding(
            Severity.error if sure else Severity.warning, "misattributed-source",
            f"{src.id}'s publisher {src.publisher!r} is not the site its URL is on ({host})"
            f"{why}; name the site's owner, or say the copy is a mirror ('via ...')",
            f"/sources/{i}/publisher"))
    return findings
