"""``conflated-experiments`` (ledger.verify.conflations, .experiments) on sentences written for
these tests: which figures and words mark an experiment, and which sentences join two."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

from verify_fixtures import load

from ledger.models import Article
from ledger.quantities import typed_figures
from ledger.verify.conflations import _name_words, conflations
from ledger.verify.consistency import word_count
from ledger.verify.experiments import Experiment, experiments_of


def _article(body: str, metrics: dict[str, tuple[float, str, str]] | None = None) -> Article:
    """The seed with ``body`` and, when given, reported metrics name -> (value, kind,
    experiment) in place of its own."""
    doc: dict[str, Any] = copy.deepcopy(load())
    doc["body"] = body + "\n"
    doc["editorial_word_count"] = word_count(doc["body"])
    if metrics is not None:
        scope = doc["benchmark_scope"]
        scope["reported_metrics"] = {n: v for n, (v, _, _) in metrics.items()}
        scope["metric_specs"] = {n: {"label": n.replace("_", " "), "kind": k, "vocabulary": [],
                                     "experiment": e} for n, (_, k, e) in metrics.items()}
    return Article.model_validate_json(json.dumps(doc))


def _joined(body: str, experiments: list[Experiment]) -> list[str]:
    article = _article(body)
    return [article.body[s:e] for s, e, _, _ in conflations(article, experiments, use_terms=True)]


BENCH = Experiment("bench test", [Decimal("37"), Decimal("3.3")], ["bench"])
TRIAL = Experiment("field trial", [Decimal("2"), Decimal("41")], ["field trial"])


def test_two_results_of_different_kinds_joined_by_and_are_no_list_of_values() -> None:
    """"37% and doubled" lists two results (a percent, a multiplier), never two values of one
    quantity set side by side, so the pair is a join."""
    for body in ("The cache cut waits by 37% and doubled the request rate.",
                 "Waits fell 37% and the request rate doubled.",
                 "It trimmed idle time 37%, and 2x the requests went through."):
        assert _joined(body, [BENCH, TRIAL]), body


def test_values_of_one_kind_listed_side_by_side_are_still_no_join() -> None:
    assert not _joined("Batch sizes of 37, 3 or 2 were tried.",
                       [Experiment("a", [Decimal("37")]), Experiment("b", [Decimal("2")])])


def test_a_word_joined_to_a_figure_spans_to_its_experiments_last_mark() -> None:
    """The finding runs from one experiment's figure to the other's words and figures, so that
    an editor sees the whole joined stretch."""
    body = "Each node gains 3.3x, rising further with the field trial's larger pool."
    assert _joined(body, [BENCH, TRIAL]) == ["3.3x, rising further with the field trial's"]
    body = "The bench result of 3.3x was, per the team, measured in the same field trial."
    assert _joined(body, [BENCH, TRIAL]) == [
        "3.3x was, per the team, measured in the same field trial"]


def test_an_experiments_name_words_are_words_not_figures_or_possessives() -> None:
    assert _name_words("the bench's 3.3x") == {"bench"}
    assert _name_words("the field trial's 41%") == {"field", "trial"}
    assert _name_words("L4 small test") == {"l4", "small"}
    assert _name_words("8xH100 long test") == {"h100", "long"}


def test_a_generic_head_noun_does_not_name_an_experiment() -> None:
    """"system throughput" does not name "the thesis system": the join stands."""
    nvidia = Experiment("NVIDIA multiturn test", [Decimal("2")], ["multiturn"])
    thesis = Experiment("university thesis system", [Decimal("14")], ["thesis"])
    body = ("The vendor says multiturn chats start up to 2x sooner, with no loss of system "
            "throughput and 14% more throughput overall.")
    assert _joined(body, [nvidia, thesis])


def test_a_metric_named_in_thousands_owns_the_figure_written_in_thousands() -> None:
    """``pool_tokens_k: 45`` is 45,000 tokens: "45k tokens" and "45,000 tokens" are its, as
    tracing reads them."""
    article = _article("A pool held 45k tokens.", {
        "pool_tokens_k": (45, "count", "one-card test"),
        "rig_speedup_x": (6, "multiplier", "eight-card rig")})
    one_card = next(e for e in experiments_of(article) if e.name == "one-card test")
    for text in ("45k tokens", "45,000 tokens", "45 thousand tokens"):
        (fig, quantity), = typed_figures(text)
        assert one_card.owns(fig, quantity), text
    (fig, quantity), = typed_figures("46k tokens")
    assert not one_card.owns(fig, quantity)
    metrics = {"pool_tokens_k": (45, "count", "one-card test"),
               "rig_speedup_x": (6, "multiplier", "eight-card rig")}
    joined = _article("A pool held 45k tokens at a 6x speed-up on the rig.", metrics)
    assert conflations(joined, experiments_of(joined))


FAST = Experiment("prefetch comparison", [Decimal("4.2")], ["prefetching"])
WIDE = Experiment("sharding comparison", [Decimal("6.7")], ["sharding"])


def test_coordinated_results_each_with_its_own_baseline_are_apart() -> None:
    """Two phrases of one role, each naming its own experiment, coordinated without a comma:
    the source's list of separate results, not one joined result."""
    for body in ("The pool serves up to 4.2x more users than prefetching and up to 6.7x more "
                 "against sharding.",
                 "The pool cuts stalls by 4.2x compared with prefetching and by 6.7x compared "
                 "with sharding.",
                 "A digest says that the pool beats prefetching by 4.2x and that sharding "
                 "trails it by 6.7x.",
                 "It is up to 4.2x faster than prefetching or 6.7x faster than sharding."):
        assert not _joined(body, [FAST, WIDE]), body


def test_coordinated_results_that_tie_back_to_one_run_still_join() -> None:
    for body in ("The pool beats prefetching by 4.2x and by 6.7x against sharding in the same "
                 "run.",
                 "The pool beats prefetching by 4.2x and, on top of that, sharding by 6.7x."):
        assert _joined(body, [FAST, WIDE]), body


def _two_runs(doc: Any) -> None:
    from verify_fixtures import add_fact, add_inference, add_metric
    add_metric(doc, "cold_turn_s", 54, "cold turn time", ["cold"], "quantity", "cold-start run")
    add_metric(doc, "warm_speedup_x", 18, "warm speed-up", ["warm"], "multiplier",
               "warm-cache run")
    add_metric(doc, "warm_users", 340, "users served warm", ["users"], "count",
               "warm-cache run")
    add_metric(doc, "cold_nodes", 7, "nodes of the cold run", ["nodes"], "count",
               "cold-start run")
    add_fact(doc, "The authors report a cold turn of 54 s on 7 nodes, a warm speed-up of 18x "
                  "in a separate warm-cache run, and 340 users served in that warm run.")
    add_inference(doc, "A 54 s cold turn and an 18x warm speed-up put a warm turn at 3 s.",
                  inputs={"cold_s": 54, "speedup": 18}, steps=(("warm_s", "cold_s / speedup",
                                                                   3),))


def test_the_desks_arithmetic_combines_its_inputs_but_joins_nothing_else(
        tmp_path: Any) -> None:
    """A sentence of the desk's arithmetic may put two runs' figures together (its inputs);
    a figure it does not compute from, joined in the same sentence, is still a join."""
    from verify_fixtures import adding, verify_with

    ok = "By PCT's arithmetic, a 54 s cold turn at 18x warm gives about 3 s per warm turn."
    _, result = verify_with(tmp_path, _two_runs, adding(ok))
    assert not [f for f in result.findings if f.rule in ("conflated-experiments", "schema")], \
        result.findings
    for joined in ("By PCT's arithmetic a warm turn takes about 3 s, and 7 nodes served "
                   "340 users.",
                   "A warm turn takes about 3 s by PCT's arithmetic, with 340 users served on "
                   "7 nodes."):
        _, result = verify_with(tmp_path, _two_runs, adding(joined))
        assert [f for f in result.findings if f.rule == "conflated-experiments"], \
            (joined, result.findings)
