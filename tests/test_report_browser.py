"""The fact-check report in a real browser: Debian's Chromium driven by Playwright.

The pages are the real files ``ledger report`` writes. Without Chromium (``apt-get install
chromium``; install.sh adds it when run as root) or Playwright (the dev extra), every test here
is skipped with the reason, never passed.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_fixtures import MEASURED, RUN_ID, RUNS, broken_article
from verify_fixtures import SEED

from ledger.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium: apt-get install chromium "
                       "(install.sh does it as root)"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright missing: pip install "
                               "-e '.[dev]'")


@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[Any]:
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        yield chromium
        chromium.close()


class Opened:
    """A report open in a page, with every request the page attempted (all are refused)."""

    def __init__(self, browser: Any, path: Path, color_scheme: str = "light") -> None:
        self.context = browser.new_context(color_scheme=color_scheme,
                                           viewport={"width": 1280, "height": 900})
        self.requests: list[str] = []
        self.uri = path.as_uri()
        self.context.route("**/*", self._refuse)
        self.page = self.context.new_page()
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.goto(self.uri)

    def _refuse(self, route: Any) -> None:
        if route.request.url == self.uri:  # the report itself, read from disk
            route.continue_()
        else:
            route.abort()

    def figure(self, text: str) -> Any:
        return self.page.locator(".fig", has_text=text).first

    def visible_chain(self) -> Any:
        chains = self.page.locator(".chain:visible")
        assert chains.count() == 1
        return chains.first


def write_report(tmp_path: Path, article: Path, *extra: str, code: int = 0) -> Path:
    out = tmp_path / f"{article.stem}.html"
    assert main(["report", str(article), *extra, "-o", str(out)]) == code
    return out


def write_index(tmp_path: Path) -> Path:
    claims = tmp_path / "claims"
    claims.mkdir()
    for article in (SEED, MEASURED):
        (claims / article.name).write_bytes(article.read_bytes())
    broken_article(claims)
    assert main(["report", "--all", str(claims), "-o", str(tmp_path / "site")]) == 1
    return tmp_path / "site" / "index.html"


@pytest.fixture()
def seed(chromium_browser: Any, tmp_path: Path) -> Iterator[Opened]:
    opened = Opened(chromium_browser, write_report(tmp_path, SEED))
    yield opened
    opened.context.close()


def test_click_a_source_figure_shows_fact_quote_and_source(seed: Opened, tmp_path: Path) -> None:
    seed.figure("46-fold").click()
    chain = seed.visible_chain()
    text = chain.inner_text()
    assert "Fact F4" in text and "46\u00d7 lower median TTFT" in text
    assert "Quote from S4" in text and "using 12 GPUs in total" in text
    assert "Serving Agentic Workloads at Scale with vLLM x Mooncake" in text
    assert "not independently reproduced" in text
    assert seed.figure("46-fold").get_attribute("aria-expanded") == "true"
    shot = tmp_path / "seed-46-fold.png"
    seed.page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_click_a_measured_figure_shows_its_run(chromium_browser: Any, tmp_path: Path) -> None:
    opened = Opened(chromium_browser, write_report(tmp_path, MEASURED, "--runs", str(RUNS)))
    opened.figure("84.5%").click()
    text = opened.visible_chain().inner_text()
    assert "Measurement M2" in text and f"Run {RUN_ID}" in text
    assert "AMD EPYC" in text and "ab4f17c2dd5b" in text and "Reproductions" in text
    assert opened.page.locator("svg.chart").count() >= 3
    opened.page.screenshot(path=str(tmp_path / "measured.png"), full_page=True)
    assert opened.requests == [opened.uri]
    opened.context.close()


def test_tab_and_arrows_move_through_figures(seed: Opened) -> None:
    figures = seed.page.locator(".fig")
    figures.first.focus()
    order = []
    for _ in range(4):
        order.append(seed.page.evaluate("document.activeElement.dataset.fig"))
        seed.page.keyboard.press("Tab")
    assert order == ["0", "1", "2", "3"]
    assert seed.visible_chain().get_attribute("data-fig") == "4"  # focus opens the chain
    seed.page.keyboard.press("ArrowLeft")
    assert seed.page.evaluate("document.activeElement.dataset.fig") == "3"
    seed.page.keyboard.press("End")
    last = str(figures.count() - 1)
    assert seed.page.evaluate("document.activeElement.dataset.fig") == last
    outline = seed.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"  # focus is visible


def test_selecting_a_finding_highlights_its_span(chromium_browser: Any, tmp_path: Path) -> None:
    opened = Opened(chromium_browser, write_report(tmp_path, broken_article(tmp_path), code=1))
    findings = opened.page.locator(".finding")
    assert findings.count() == 3
    findings.nth(0).click()  # untraced-figure
    highlighted = opened.page.locator(".hl")
    assert highlighted.count() == 1 and highlighted.inner_text().startswith("64")
    assert highlighted.is_visible()
    assert re.search(r"nearest evidence: 60 \([^)]*F4", findings.nth(0).inner_text())
    findings.nth(1).click()  # mislabeled-figure
    # a mislabel spans the figure and the label it contradicts: both are highlighted
    texts = opened.page.locator(".hl").all_inner_texts()
    assert texts[0][:7] == "46-fold" and "".join(texts).endswith(" increase in throughput")
    assert "mislabeled-figure" in opened.visible_chain().inner_text()
    findings.nth(1).focus()
    opened.page.keyboard.press("ArrowDown")
    assert opened.page.evaluate("document.activeElement.dataset.finding") == "2"
    assert opened.requests == [opened.uri]
    opened.context.close()


def test_no_request_leaves_the_page(seed: Opened) -> None:
    seed.figure("3.8 times").click()
    seed.page.locator(".finding, .fig").last.click()
    seed.page.emulate_media(media="print")
    assert seed.requests == [seed.uri]


def test_print_shows_every_chain_and_dark_scheme_applies(chromium_browser: Any, seed: Opened,
                                                          tmp_path: Path) -> None:
    seed.page.emulate_media(media="print")
    assert seed.page.locator(".chain:visible").count() == seed.page.locator(".fig").count()
    dark = Opened(chromium_browser, write_report(tmp_path, SEED), color_scheme="dark")
    background = "getComputedStyle(document.body).backgroundColor"
    assert seed.page.evaluate(background) == "rgb(255, 255, 255)"
    assert dark.page.evaluate(background) == "rgb(21, 23, 27)"
    dark.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("article", ["seed", "measured", "broken", "index"])
def test_axe_finds_no_serious_violation(chromium_browser: Any, tmp_path: Path, scheme: str,
                                        article: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    path = {"seed": lambda: write_report(tmp_path, SEED),
            "measured": lambda: write_report(tmp_path, MEASURED, "--runs", str(RUNS)),
            "broken": lambda: write_report(tmp_path, broken_article(tmp_path), code=1),
            "index": lambda: write_index(tmp_path)}[article]()
    opened = Opened(chromium_browser, path, color_scheme=scheme)
    if article != "index":
        opened.page.locator(".fig").first.click()  # with a chain open
    if article == "broken":
        opened.page.locator(".finding").first.click()
    results = Axe().run(opened.page)
    serious = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
               for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert serious == []
    opened.context.close()
