"""``unsupported-conclusion``: a claim the sentence draws (its connective, or its own verdict
over an open class) that no inference or fact of the article states."""

from __future__ import annotations

import json

from verify_fixtures import load

from ledger.models import Article
from ledger.verify.conclusions import check_conclusions


def _claims(body: str, inference: str | None = None) -> list[str]:
    """The text of each unsupported-conclusion finding's span on ``body``."""
    doc = load()
    doc["body"] = body
    if inference is not None:
        doc["inferences"][0]["claim"] = inference
    article = Article.model_validate_json(json.dumps(doc))
    lines = article.body.split("\n")
    return [lines[f.line - 1][f.column - 1:f.end_column - 1]
            for f in check_conclusions(article) if f.line is not None]


def test_a_verdict_over_every_buyer_is_a_conclusion_without_a_connective() -> None:
    assert _claims("PCT has not run the engine, but it will cut any operator's power bill in "
                   "half.") == ["it will cut any operator's power bill in half"]
    assert _claims("With the new scheduler, batching no longer costs any latency.") == [
        "With the new scheduler, batching no longer costs any latency"]
    assert _claims("On these numbers the appliance is simply the cheapest way to host a 34B "
                   "model.") == [
        "On these numbers the appliance is simply the cheapest way to host a 34B model"]
    assert _claims("Taken together, the two posts say the chip runs faster than every rival "
                   "accelerator.") == []  # reported
    assert _claims("Taken together, the chip runs faster than every rival accelerator.") == [
        "Taken together, the chip runs faster than every rival accelerator"]
    assert _claims("The library makes memory limits irrelevant for every deployment.") == [
        "The library makes memory limits irrelevant for every deployment"]


def test_a_reported_hedged_or_counted_universal_is_no_conclusion() -> None:
    assert _claims("The vendor says the card is the fastest way to serve any model.") == []
    assert _claims("Buyers should check whether it is cheaper on every workload they run.") == []
    assert _claims("The team ran the model across all eight GPUs of one node.") == []
    assert _claims("Every serving engine has to decide how to schedule prefill.") == []
    assert _claims("The release added int4 weights for all supported devices.") == []
    assert _claims("It keeps the caches of all requests in cheaper host memory.") == []


def test_the_phrase_a_universal_quantifies_is_looked_up_not_the_quantifier() -> None:
    body = "This shows that 3-bit weights are as accurate as FP16 on any workload."
    # an inference that says "any" about something else does not state this conclusion
    assert _claims(body, inference="Any of the three runs took under a minute.") == [
        "shows that 3-bit weights are as accurate as FP16 on any workload"]
    assert _claims(body, inference="3-bit weights match FP16 on any workload tested.") == []


def test_a_judgement_with_its_scope_qualifies_a_figure() -> None:
    assert _claims("Decode is bound by memory bandwidth, so the compute multiplier overstates "
                   "what a chat user will see.") == []
    assert _claims("Decode is bound by memory bandwidth, so the vendor's multiplier is "
                   "overstated.") == ["the vendor's multiplier is overstated"]


def test_a_conclusion_span_starts_at_the_verb_that_draws_it() -> None:
    # the verb is what makes the sentence a conclusion: the finding covers it and its claim
    assert _claims("The trial run proves that tiered caching always beats a flat pool.") == [
        "proves that tiered caching always beats a flat pool"]
    assert _claims("Overall this demonstrates the scheduler suits any mixed fleet.") == [
        "this demonstrates the scheduler suits any mixed fleet"]
    assert _claims("The newer trace shows the vendor exaggerated its latency gain.") == [
        "shows the vendor exaggerated its latency gain"]


def test_a_superlative_over_the_market_or_an_equal_footing_is_a_conclusion() -> None:
    assert _claims("In short, the tiering layer makes Acme the fastest storage vendor for any "
                   "inference cluster.") == [
        "In short, the tiering layer makes Acme the fastest storage vendor for any inference "
        "cluster"]
    assert _claims("Our view: the appliance is the best value KV-cache tier on the market.") == [
        "the appliance is the best value KV-cache tier on the market"]
    assert _claims("Disaggregation makes a mixed fleet as efficient as a uniform one.") == [
        "Disaggregation makes a mixed fleet as efficient as a uniform one"]
    # what a vendor markets, and a market named as a place, are no verdict of the desk's
    assert _claims("Acme markets the appliance as the best value tier on the market.") == []
    assert _claims("The card went on the market in May at $1,200.") == []
