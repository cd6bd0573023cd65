"""The fact-check report (``ledger report``), the Markdown summary and the readable text of
``ledger verify`` and ``ledger figures``, read from the real files they write."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_fixtures import MEASURED, RUN_ID, RUNS, broken_article, write_article
from verify_fixtures import SEED, load

from ledger.cli import main
from ledger.reporting import build_view, load_run_files, render_html


class Elements(HTMLParser):
    """Every start tag with its attributes and the text inside it (for the elements we ask about)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def parse(html: str) -> Elements:
    parser = Elements()
    parser.feed(html)
    return parser


def figure_html(html: str, text: str) -> str:
    match = re.search(r'<button type="button" class="fig [^"]*"[^>]*>' + re.escape(text), html)
    assert match, f"no figure button for {text!r}"
    return match.group()


def chain_html(html: str, index: str) -> str:
    start = html.index(f'<section class="chain" id="chain-{index}"')
    return html[start:html.index("</section>", start)]


def fig_index(button: str) -> str:
    found = re.search(r'data-fig="(\d+)"', button)
    assert found
    return found.group(1)


def report(tmp_path: Path, *args: str, code: int | None = 0) -> str:
    """The page ``ledger report`` writes; ``code=None`` takes any exit code."""
    out = tmp_path / "report.html"
    result = main(["report", *args, "-o", str(out)])
    assert code is None or result == code
    return out.read_text(encoding="utf-8")


def test_seed_report_is_one_self_contained_file(tmp_path: Path) -> None:
    html = report(tmp_path, str(SEED))
    assert len(html.encode()) < 1_000_000
    tags = parse(html).tags
    assert not [a for t, a in tags if t in ("script", "img", "iframe") and a.get("src")]
    assert not [a for t, a in tags if t == "link"]
    assert "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html  # the page itself refuses to load anything
    figures = [a for t, a in tags if t == "button" and "fig" in (a.get("class") or "").split()]
    assert len(figures) == 16 and all("s-traced" in (a["class"] or "") for a in figures)


def test_source_figure_chain_names_fact_source_and_level(tmp_path: Path) -> None:
    html = report(tmp_path, str(SEED))
    chain = chain_html(html, fig_index(figure_html(html, "46-fold")))
    assert "Fact F4" in chain and "46× lower median TTFT" in chain
    assert "Serving Agentic Workloads at Scale with vLLM x Mooncake" in chain
    assert "2026-05-06" in chain and "https://vllm.ai/blog/2026-05-06-mooncake-store" in chain
    assert "not independently reproduced" in chain
    assert "Quote from S4" in chain and "not recorded" in chain  # no quote in the seed yet


def test_quotes_are_looked_up_in_the_saved_copies(tmp_path: Path) -> None:
    doc = load(SEED)
    quotes = next(f for f in doc["facts"] if f["id"] == "F4")["quotes"]
    saved = tmp_path / "sources"
    saved.mkdir()
    words = quotes[1]["text"].split()  # the copy wraps lines and marks up a word
    (saved / "S4.md").write_text("## Results\n\n" + " ".join(words[:5]) + "\n**"
                                 + words[5] + "** " + " ".join(words[6:]) + "\n")
    html = report(tmp_path, str(SEED), "--sources", str(saved), code=1)
    chain = chain_html(html, fig_index(figure_html(html, "12")))
    assert quotes[1]["text"] in chain and "found in saved page S4.md" in chain
    # the quote that states the figure comes first, and says so
    assert chain.index(quotes[1]["text"]) < chain.index(quotes[0]["text"])
    first = chain[chain.index("Quote from S4"):]
    assert first.index("states this figure</th><td>yes") < first.index(quotes[0]["text"])
    # the other quotes of F4 are not in this copy: the chain says so, and so do the findings
    assert "NOT found in saved page S4.md; closest passage (" in chain
    assert "<code>quote-not-found</code>" in html


def test_quotes_of_the_seed_are_in_the_shared_saved_sources(tmp_path: Path) -> None:
    shared = SEED.parents[2] / "shared" / "sources"
    if not (shared / "S4.md").exists():
        pytest.skip(f"the saved sources are not at {shared}")
    html = report(tmp_path, str(SEED), "--sources", str(shared))
    chain = chain_html(html, fig_index(figure_html(html, "46-fold")))
    assert "found in saved page S4.md" in chain and "NOT found" not in chain
    assert "snapshot</th><td>saved page S4.md" in chain


def test_measured_figure_chain_names_run_machine_revision_and_config(tmp_path: Path) -> None:
    html = report(tmp_path, str(MEASURED), "--runs", str(RUNS))
    button = figure_html(html, "84.5%")
    assert "s-measured" in button
    chain = chain_html(html, fig_index(button))
    for text in ("Measurement M2", "shared_store_hit_rate", f"Run {RUN_ID}", "AMD EPYC",
                 "2 cores", "ab4f17c2dd5b (uncommitted changes)", "3 arms: no_store, "
                 "shared_store, warm_store", "2026-11-29 20:58 UTC", "Reproductions",
                 f"measured: run {RUN_ID}"):
        assert text in chain, text
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') >= 3


def test_measured_figure_without_its_run_says_not_recorded(tmp_path: Path) -> None:
    html = report(tmp_path, str(MEASURED))
    chain = chain_html(html, fig_index(figure_html(html, "84.5%")))
    assert f"Run {RUN_ID}" in chain and "not recorded: not in the ledger or run files" in chain


def test_broken_article_shows_both_findings_at_their_spans(tmp_path: Path) -> None:
    html = report(tmp_path, str(broken_article(tmp_path)), code=1)
    rules = re.findall(r'class="finding sev-error" data-finding="\d+" data-has-span>'
                       r'<span class="sev">error</span> <code>([a-z-]+)</code>', html)
    assert rules == ["untraced-figure", "mislabeled-figure", "guardrail"]
    untraced, mislabel = figure_html(html, "64"), figure_html(html, "46-fold")
    assert "s-error" in untraced and "s-error" in mislabel
    assert 'data-findings="0"' in untraced  # untraced-figure is the first finding
    assert re.search(r'data-findings="1 2"', mislabel)  # mislabel and guardrail
    assert re.search(r"nearest evidence: 60 \([^)]*F4", html)
    assert "not ready" in html


def test_guardrails_and_inferences_are_shown(tmp_path: Path) -> None:
    html = report(tmp_path, str(SEED))
    assert html.count('class="g-enforced"') >= 1
    assert "\u2713 agrees" in html and "\u2716 differs" not in html
    doc = copy.deepcopy(load(SEED))
    doc["corrections"].append({"status": "prepublication_guardrail",
                               "text": "Keep the tone measured."})
    html = report(tmp_path, str(write_article(tmp_path, doc)), code=0)
    assert 'class="g-unchecked"' in html


def test_report_all_writes_an_index_of_articles(tmp_path: Path, capsys) -> None:
    claims = tmp_path / "claims"
    claims.mkdir()
    for path in (SEED, MEASURED):
        (claims / path.name).write_bytes(path.read_bytes())
    broken_article(claims)
    site = tmp_path / "site"
    assert main(["report", "--all", str(claims), "-o", str(site), "--runs", str(RUNS)]) == 1
    index = (site / "index.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in site.iterdir()) == sorted([
        "broken.html", "index.html", f"{MEASURED.stem}.html", f"{SEED.stem}.html"])
    assert index.count("ready to publish") == 2 and index.count("not ready") == 1
    assert f'href="{SEED.stem}.html"' in index
    assert "2 of 3 article(s) ready to publish" in capsys.readouterr().err


def test_report_refuses_bad_input_with_one_line(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 2
    assert "give one article file, or use --all" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    assert main(["report", str(SEED), "--runs", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "malformed JSON" in err and "Traceback" not in err


def test_verify_markdown_summary(tmp_path: Path, capsys) -> None:
    broken = broken_article(tmp_path)
    assert main(["verify", str(broken), str(SEED), "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("## Fact-check: 1 of 2 article(s) ready to publish")
    assert "| pct-2026-11-04-spotlight-mooncake-store | not ready | 3 | 0 | 2 |" in out
    assert "`untraced-figure`" in out and re.search(r"nearest evidence: 60 \([^)]*F4", out)
    assert out.count("**Weakest figures**") == 2
    weakest = out.split("**Weakest figures**")[1]
    assert "`46-fold` \u2716 error" in weakest and "`64` \u2716 error" in weakest


def test_verify_text_gives_sentence_and_nearest_evidence(tmp_path: Path, capsys) -> None:
    assert main(["verify", str(broken_article(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "[untraced-figure]" in out and re.search(r"nearest evidence: 60 \([^)]*F4", out)
    assert "sentence: \u201cTheir separate scaling experiment used a synthetic workload and " \
        "reached 64 GPUs" in out


def test_figures_text_says_what_each_figure_rests_on(capsys) -> None:
    assert main(["figures", str(MEASURED)]) == 0
    out = capsys.readouterr().out
    assert "\u00b63 With the store the hit rate was 84.5%" in out
    assert re.search(r"'84\.5%'\s+\u25c6 measured\s+M2 value of shared_store_hit_rate, run", out)
    assert "/measurements/" not in out and "body " not in out


def test_load_run_files_reads_the_example_run() -> None:
    runs = load_run_files([RUNS])
    assert RUN_ID in runs and runs[RUN_ID].metrics
    view = build_view(MEASURED, runs.get)
    assert view.runs and view.runs[0].id == RUN_ID
    assert "measured" in render_html(view)


def _action_step(step_id: str) -> str:
    import yaml

    action = yaml.safe_load((SEED.parents[1] / "action.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == step_id]
    return str(step["run"])


def test_action_writes_the_summary_and_the_report(tmp_path: Path) -> None:
    runner = tmp_path / "runner"
    runner.mkdir()
    (runner / "ledger-venv").symlink_to(Path(sys.executable).parent.parent)
    broken = broken_article(tmp_path)
    summary, output = tmp_path / "summary.md", tmp_path / "github_output"
    env = {"PATH": "/usr/bin:/bin", "RUNNER_TEMP": str(runner), "GITHUB_OUTPUT": str(output),
           "GITHUB_STEP_SUMMARY": str(summary), "LEDGER_PATHS": f"{broken} {SEED}",
           "LEDGER_REPORT_DIR": str(tmp_path / "site")}
    proc = subprocess.run(["bash", "-e", "-c", _action_step("report")], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert summary.read_text().startswith("## Fact-check: 1 of 2 article(s) ready to publish")
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "broken.html").exists()
    assert output.read_text().strip() == f"dir={tmp_path / 'site'}"


def test_runs_come_from_the_ledger_with_db(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "ledger.db")
    assert main(["runs", "import", *map(str, sorted(RUNS.glob("*.json"))), "--db", db]) == 0
    html = report(tmp_path, str(MEASURED), "--db", db)
    chain = chain_html(html, fig_index(figure_html(html, "90.2%")))
    assert "Measurement M3" in chain and f"Run {RUN_ID}" in chain and "AMD EPYC" in chain
    assert "unknown-run" not in html


def test_snapshots_come_from_the_ledger_with_db(tmp_path: Path, capsys) -> None:
    shared = SEED.parents[2] / "shared" / "sources"
    if not (shared / "S4.md").exists():
        pytest.skip(f"the saved sources are not at {shared}")
    db, snaps = str(tmp_path / "ledger.db"), str(tmp_path / "snaps")
    assert main(["ingest", str(SEED), "--db", db]) == 0
    assert main(["sources", "add", f"{SEED.stem}:S4", str(shared / "S4.md"), "--db", db,
                 "--snapshots", snaps, "--retrieved-at", "2026-11-04"]) == 0
    html = report(tmp_path, str(SEED), "--db", db, "--snapshots", snaps)
    chain = chain_html(html, fig_index(figure_html(html, "46-fold")))
    assert "snapshot</th><td>add of 2026-11-04" in chain
    assert "in snapshot</th><td>found in add of 2026-11-04" in chain
    s1 = chain_html(html, fig_index(figure_html(html, "June 24, 2024")))  # S1 has none
    assert "snapshot</th><td class=missing>not recorded: no snapshot of S1" in s1


def test_unreadable_and_invalid_articles_get_a_page_of_findings(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    html = report(tmp_path, str(bad), code=2)
    assert "<code>unreadable</code>" in html and "malformed JSON" in html
    invalid = tmp_path / "invalid.json"
    invalid.write_text('{"id": "x"}')
    html = report(tmp_path, str(invalid), code=1)
    assert "<code>schema</code>" in html and "not ready" in html


def test_a_recorded_reproduction_makes_figures_reproduced(tmp_path: Path) -> None:
    from ledger.db import Ledger
    from ledger.levels import Reproduction
    from ledger.reproductions import record_reproduction

    db = str(tmp_path / "ledger.db")
    assert main(["runs", "import", *map(str, sorted(RUNS.glob("*.json"))), "--db", db]) == 0
    html = report(tmp_path, str(MEASURED), "--db", db)
    assert "none recorded in the ledger" in html and 'class="fig s-reproduced"' not in html
    with Ledger.open(db) as ledger:
        record_reproduction(ledger, Reproduction(
            RUN_ID, "run-20261130T101500Z-0a1b2c3d", "2026-11-30T10:15:00Z", "4f9c2e1a7b3d",
            "desk", "0123456789abcdef", False, held=("shared_store_hit_rate",),
            failed=("cost_ratio",)))
    html = report(tmp_path, str(MEASURED), "--db", db)
    button = figure_html(html, "84.5%")
    assert "s-reproduced" in button
    chain = chain_html(html, fig_index(button))
    for text in ("Reproduction 1: run run-20261130T101500Z-0a1b2c3d", "2026-11-30 10:15:00",
                 "4f9c2e1a7b3d (the same machine)", "shared_store_hit_rate</th><td>held",
                 "did not hold: cost_ratio", "reproduced 2026-11-30"):
        assert text in chain, text
    cost = chain_html(html, fig_index(figure_html(html, "90.2%")))
    assert "warm_store_hit_rate</th><td>not checked" in cost
    assert "s-measured" in figure_html(html, "90.2%")


def test_a_metrics_spread_and_samples_show_when_the_run_has_them(tmp_path: Path) -> None:
    import json

    run = json.loads((RUNS / f"{RUN_ID}.json").read_text(encoding="utf-8"))
    metric = next(m for m in run["metrics"] if m["name"] == "shared_store_hit_rate")
    doc = copy.deepcopy(load(MEASURED))
    m2 = next(m for m in doc["measurements"] if m["id"] == "M2")
    m2["interval"] = [0.841, 0.849]
    m13 = next(m for m in doc["measurements"] if m["id"] == "M13")
    m13["derived_from"] = {"expression": "M12 / M11"}
    metric["samples"] = [0.84, 0.85, 0.845]  # what a run with rounds records
    metric["spread"] = {"median": 0.845, "min": 0.84, "max": 0.85, "ci_low": 0.841,
                          "ci_high": 0.849, "confidence": 0.95, "method": "bootstrap"}
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "run.json").write_text(json.dumps(run), encoding="utf-8")
    html = report(tmp_path, str(write_article(tmp_path, doc)), "--runs", str(runs), code=None)
    chain = chain_html(html, fig_index(figure_html(html, "84.5%")))
    assert "stated interval</th><td>0.841 to 0.849" in chain
    assert "derived from</th><td>M12 / M11" in chain_html(html, fig_index(figure_html(
        html, "4.7 times")))
    assert ("spread</th><td>median 0.845, range 0.84 to 0.85; 95% interval 0.841 to 0.849 "
            "(bootstrap)") in chain
    assert "samples</th><td>0.84, 0.85, 0.845" in chain
    other = chain_html(html, fig_index(figure_html(html, "90.2%")))
    assert "not recorded (a single pooled value)" in other
    assert html.count('class="chart-range"') == 1  # the hit-rate chart's whisker


def test_a_finding_on_a_fact_points_at_the_figures_resting_on_it(tmp_path: Path) -> None:
    doc = copy.deepcopy(load(SEED))
    f4 = next(f for f in doc["facts"] if f["id"] == "F4")
    f4["quotes"][1]["text"] = f4["quotes"][1]["text"].replace("12 GPUs", "16 GPUs")
    saved = tmp_path / "sources"
    saved.mkdir()
    (saved / "S4.md").write_text(" ".join(q["text"] for q in load(SEED)["facts"][3]["quotes"]))
    html = report(tmp_path, str(write_article(tmp_path, doc)), "--sources", str(saved), code=1)
    assert re.search(r'data-finding="0" data-has-span><span class="sev">error</span> '
                     r"<code>quote-not-found</code>", html)
    assert re.search(r'class="where">F4 \(/facts/3/quotes/1', html)
    for text in ("46-fold", "3.8 times", "60"):
        button = figure_html(html, text)
        assert 'data-findings="0"' in button and "s-traced" in button
        assert "On its evidence F4: error [quote-not-found]" in chain_html(html, fig_index(button))
    assert 'data-findings=""' in figure_html(html, "June 24, 2024")


def _png() -> bytes:
    """A 1x1 PNG, written here."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00\x20\x60\xa0")) + chunk(b"IEND", b""))


def test_the_runs_own_plots_are_inlined_when_their_digest_matches(tmp_path: Path) -> None:
    import base64
    import hashlib
    import json

    png = _png()
    run = json.loads((RUNS / f"{RUN_ID}.json").read_text(encoding="utf-8"))
    run["outputs"]["ttft.png"] = "sha256:" + hashlib.sha256(png).hexdigest()
    runs, plots = tmp_path / "runs", tmp_path / "plots"
    (plots / RUN_ID).mkdir(parents=True)
    runs.mkdir()
    (runs / "run.json").write_text(json.dumps(run), encoding="utf-8")
    (plots / RUN_ID / "ttft.png").write_bytes(png)
    (plots / RUN_ID / "cost.png").write_bytes(png)  # not the bytes the run recorded
    html = report(tmp_path, str(MEASURED), "--runs", str(runs), "--plots", str(plots))
    assert f'<img src="data:image/png;base64,{base64.b64encode(png).decode()}"' in html
    assert f'alt="ttft.png, recorded by run {RUN_ID}"' in html
    assert "cost.png: the file in" in html and "differs from the run's record" in html
    assert "the run's plots hit_rate.png: not recorded here" in html
