"""Facts against their quotes: unquoted-fact, ungrounded-figure, quote normalisation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import SECOND, load, verify_mutant

from ledger.grounding import (
    closest_passage,
    contains,
    ground_figures,
    normalize,
    ungrounded_figures,
)
from ledger.verify import verify_file

ROOT = Path(__file__).resolve().parent.parent


def _fact(doc: dict[str, Any], fact_id: str) -> dict[str, Any]:
    return next(f for f in doc["facts"] if f["id"] == fact_id)


def _rules(result: Any) -> list[str]:
    return [f.rule for f in result.findings]


def test_desk_articles_are_grounded_in_their_quotes() -> None:
    for path in sorted((ROOT / "claims").glob("*.json")):
        result = verify_file(path)
        assert not {"ungrounded-figure", "unquoted-fact", "quote-source-not-cited"} & set(
            _rules(result)), (path.name, [f.message for f in result.findings])
    assert all(_fact(load(), f)["quotes"] for f in ("F2", "F3", "F4", "F5", "F6"))


def test_a_changed_figure_in_a_fact_is_ungrounded(tmp_path: Path) -> None:
    def mutate(doc: dict[str, Any]) -> None:
        fact = _fact(doc, "F4")
        fact["claim"] = fact["claim"].replace("8.6×", "8.9×")
    _, result = verify_mutant(tmp_path, mutate)
    found = [f for f in result.findings if f.rule == "ungrounded-figure"]
    assert len(found) == 1 and "'8.9×'" in found[0].message
    assert found[0].pointer == "/facts/3/claim" and found[0].severity.value == "error"


def test_an_author_reported_fact_without_quotes_is_flagged(tmp_path: Path) -> None:
    def mutate(doc: dict[str, Any]) -> None:
        del _fact(doc, "F3")["quotes"]
    _, result = verify_mutant(tmp_path, mutate, source=SECOND)
    found = [f for f in result.findings if f.rule == "unquoted-fact"]
    assert [f.pointer for f in found] == ["/facts/2"]
    assert found[0].severity.value == "warning"


def test_documentation_facts_without_quotes_are_not_flagged(tmp_path: Path) -> None:
    def mutate(doc: dict[str, Any]) -> None:
        del _fact(doc, "F2")["quotes"]
    _, result = verify_mutant(tmp_path, mutate)
    assert "unquoted-fact" not in _rules(result)


def test_a_quote_from_a_source_the_fact_does_not_cite(tmp_path: Path) -> None:
    def mutate(doc: dict[str, Any]) -> None:
        _fact(doc, "F2")["quotes"][0]["source_id"] = "S3"
    _, result = verify_mutant(tmp_path, mutate)
    found = [f for f in result.findings if f.rule == "quote-source-not-cited"]
    assert [f.pointer for f in found] == ["/facts/1/quotes/0/source_id"]


@pytest.mark.parametrize("quote", [
    "throughput improves by 3.8x", "throughput improves by 3.8×",
    "throughput improves 3.8 times", "throughput improves by 3.80x",
])
def test_multipliers_match_however_written(quote: str) -> None:
    assert ungrounded_figures("3.8× throughput", [quote]) == []


def test_typed_quantities_convert_units() -> None:
    assert ungrounded_figures("a 2 TiB pool", ["a pool of 2048 GiB"]) == []


@pytest.mark.parametrize(("claim", "quote"), [
    ("3.8× throughput", "throughput improves by 3.9x"),
    ("a 38% gain", "a gain of 3.8x"),
    ("60 GPUs", "60 GB of memory"),
    ("56% lower", "56 points lower, measured on 56 GPUs"),
    ("reads at 1 GB/s", "reads at 1 Gb/s"),
    ("on 8 GPUs", "on 8 engineers"),
])
def test_a_changed_value_kind_or_unit_does_not_match(claim: str, quote: str) -> None:
    assert [f.text for f in ungrounded_figures(claim, [quote])] != []


def test_dates_ground_in_the_sources_own_dates() -> None:
    import datetime as dt
    assert ungrounded_figures("On May 6 the authors said so", ["said so"],
                              [dt.date(2026, 5, 6)]) == []
    assert [f.text for f in ungrounded_figures("On May 7 the authors said so", ["said so"],
                                               [dt.date(2026, 5, 6)])] == ["May 7"]


def test_normalisation_folds_markup_quotes_dashes_and_whitespace() -> None:
    page = normalize("<p>The <em>pool</em> “improves”\n throughput — by **3.8x**</p>\n"
                     "- [CPU offload](https://x.test/a): via `transfer_engine`.")
    assert contains(page, 'The pool "improves" throughput - by 3.8x')
    assert contains(page, "CPU offload: via transfer_engine.")
    assert not contains(page, "The pool improves latency")


def test_closest_passage_shows_the_edited_sentence() -> None:
    text = normalize("Intro text. APC only reduces the time of processing the queries. Outro.")
    near = closest_passage(text, "APC only reduces the cost of processing the queries.")
    assert "APC only reduces the time of processing the queries" in near.text
    assert 80 <= near.similarity < 100


def test_grounding_benchmark_runs_and_finds_each_edited_quote() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "benchmarks/bench_grounding.py", "--rounds", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert "ratio to the 2 s target" in done.stdout, done.stderr[-2000:]
    assert "60 pages" in done.stdout and "findings per round: [10]" in done.stdout


def test_an_article_with_no_quotes_at_all_gets_one_note(tmp_path: Path) -> None:
    def mutate(doc: dict[str, Any]) -> None:
        for fact in doc["facts"]:
            fact.pop("quotes", None)
    _, result = verify_mutant(tmp_path, mutate, source=SECOND)
    found = [f for f in result.findings if f.rule == "unquoted-fact"]
    assert len(found) == 1 and found[0].severity.value == "note"
    assert "F3" in found[0].message and "not grounded in quotes" in found[0].message


def test_a_capital_x_in_a_quote_is_the_same_multiplier() -> None:
    from ledger.grounding import ungrounded_figures

    quote = "The cache cut latency by 2.2-3.3X and lifted throughput 5X on the H100X2 rig."
    assert ungrounded_figures("latency fell 2.2-3.3x; throughput rose 5x", [quote]) == []
    assert [f.text for f in ungrounded_figures("throughput rose 6x", [quote])] == ["6x"]


# --- severity by what the quotes say ---------------------------------------------------------


def _ground(claim: str, *quotes: str) -> list[tuple[str, str | None]]:

    return [(u.figure.text, u.contradicted_by[0].text if u.contradicted_by else None)
            for u in ground_figures(claim, list(quotes))]


def test_a_partial_quote_leaves_figures_unquoted_not_contradicted() -> None:
    claim = ("The team reports a 41% cut in queueing delay, 2.6x more sessions per node and "
             "a 19 ms tail on 64 accelerators.")
    quote = "Queueing delay fell by 41% in our runs."
    assert _ground(claim, quote) == [("2.6x", None), ("19", None), ("64", None)]


def test_a_quote_that_gives_another_value_of_the_same_kind_contradicts() -> None:
    claim = "The cache lifts throughput 3.9x and cuts median latency 21x."
    quote = "Throughput rose 3.7x while median latency fell 21x."
    assert _ground(claim, quote) == [("3.9x", "3.7x")]


def test_one_unused_quoted_figure_marks_only_the_nearest_claim_figure() -> None:
    claim = "Speed-ups of 7x, 12x and 30x over the baselines."
    quote = "The largest speed-up we saw was 31x."
    assert _ground(claim, quote) == [("7x", None), ("12x", None), ("30x", "31x")]


def test_an_unused_quoted_figure_of_another_kind_does_not_contradict() -> None:
    claim = "Memory use fell 35% with the new allocator."
    quote = "We ran the allocator on 16 hosts."
    assert _ground(claim, quote) == [("35%", None)]


def test_a_quoted_date_that_differs_contradicts_the_claims_date() -> None:
    assert _ground("Released on March 9 after review.", "It shipped on March 8.") == [
        ("March 9", "March 8")]


def test_partial_quotes_give_one_note_per_fact_and_a_mistyped_figure_an_error(
        tmp_path: Path) -> None:
    def partial(doc: dict[str, Any]) -> None:
        fact = _fact(doc, "F4")
        fact["claim"] += " The pool also held 7 TB across 40 nodes."
    _, result = verify_mutant(tmp_path, partial)
    found = [f for f in result.findings if f.rule == "ungrounded-figure"]
    assert [(f.severity.value, f.pointer) for f in found] == [("note", "/facts/3/claim")]
    assert "'7'" in found[0].message and "'40'" in found[0].message
    assert found[0].trace is not None and len(found[0].trace) == 2

    def mistyped(doc: dict[str, Any]) -> None:
        fact = _fact(doc, "F4")
        fact["claim"] = fact["claim"].replace("3.8×", "3.6×")
    _, result = verify_mutant(tmp_path, mistyped)
    found = [f for f in result.findings if f.rule == "ungrounded-figure"]
    assert [f.severity.value for f in found] == ["error"]
    assert "'3.6×'" in found[0].message and "'3.8x'" in found[0].message


def test_a_range_with_one_end_changed_is_contradicted_by_the_quoted_range() -> None:
    claim = "Prefill got 1.4-2.9x faster and decode 1.1x."
    quote = "prefill is 1.6-2.9x faster, decode 1.1x"
    assert _ground(claim, quote) == [("1.4-2.9x", "1.6-2.9x")]


def test_a_bare_number_of_the_claim_does_not_use_a_quoted_multiplier() -> None:
    claim = "On three testbeds the cache gave 3.9x."
    quote = "the cache gave 2.9x"
    assert _ground(claim, quote) == [("three", None), ("3.9x", "2.9x")]


def test_a_quotes_bare_number_is_used_by_the_claims_typed_figure() -> None:
    claim = "Reads reached 18.2 GiB/s with 12 clients."
    quote = "the fastest backend (18.2) on this rig"
    assert _ground(claim, quote) == [("12", None)]


@pytest.mark.parametrize(("claim", "quote"), [
    # a factor of a product ("2×16 lanes") is a bare number, as is a result without its unit
    ("Writes reach 412 on the big node.", "The big node has 2×64 cores."),
    ("The scheduler handles 310 per node at most.", "Each rack holds 4 of them."),
    ("Decode sits at 6.25 on the small box.", "Version 3 of the kernel added batching."),
])
def test_two_bare_numbers_do_not_contradict_each_other(claim: str, quote: str) -> None:
    """A bare number has no known kind: a quote's unused bare number is no sign that the
    claim's bare number mistypes it (the quote is partial)."""
    assert all(partner is None for _, partner in _ground(claim, quote))


def test_a_bare_number_in_the_claim_uses_the_quoted_figure_of_that_value() -> None:
    # the claim writes "342B (56.3%)" bare, the quote "342B tokens": the claim uses it, so the
    # claim's unquoted 168B is merely unquoted, not a mistyping of the 342B
    found = ground_figures("608B input tokens, of which 342B (56.3%) hit the cache; 168B "
                           "output tokens.",
                           ["Total input tokens: 608B, of which 342B tokens (56.3%) hit the "
                            "cache."])
    assert [(u.figure.text, u.contradicted_by) for u in found] == [("168B", None)]
