"""``unattributed-figure``: who a paragraph or a sentence credits, on the attribution grammar and
on mutated copies of the desk's article (sentences written here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import add_inference, replace_body, span, verify_mutant

from ledger.report import FileResult
from ledger.verify.attribution import attributes, desk_names, reported_clause

Doc = dict[str, Any]
DESK = desk_names("Peterson Compute Trading")
S4_CLOSE = "These are the authors' results, not PCT measurements."
S11_OPEN = "PCT's economic reading is conditional."


@pytest.mark.parametrize(("text", "credits"), [
    ("The paper's authors reported 2.5 times the throughput.", True),
    ("Widget's own researchers found a 40% cut.", True),
    ("The later study is narrower: it reports 2.5 times the throughput.", True),
    ("A note on Example Weekly, dated May 3, 2026, says the cache doubles hits.", True),
    ("The maintainers, citing one trace, report a 40% cut.", True),
    ("Offline, it estimates the sparse index of each head.", False),
    ("It reaches 2.5 times the throughput.", False),
    ("Widget's scheduler, tuned for bursts, cuts tail latency by 40%.", False),
])
def test_attribution_forms(text: str, credits: bool) -> None:
    assert attributes(text, desk=DESK) is credits


def test_reported_clause() -> None:
    assert reported_clause("The post says ")
    assert reported_clause("the maintainers reported that ")
    assert not reported_clause("Under agent traffic ")


def unattributed(result: FileResult, doc: Doc, text: str, nth: int = 0) -> list[str]:
    line, column, end = span(doc["body"], text, nth)
    return [f.severity.value for f in result.findings if f.rule == "unattributed-figure"
            and f.line == line and f.column is not None and f.end_column is not None
            and f.column < end and column < f.end_column]


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Under agent traffic the shared store reaches up to 3.8 times the throughput.",
     ["warning"]),
    ("Under load the store turns away about 3.8 times fewer requests.", ["warning"]),
    ("The post says the store with vLLM reaches up to 3.8 times the throughput.", []),
    # the subject is the model the test ran, not the product the article is about
    ("In that trace, Kimi delivers up to 3.8 times the throughput.", []),
])
def test_desk_voice_claim_in_a_credited_paragraph(tmp_path: Path, sentence: str,
                                                  expected: list[str]) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, S4_CLOSE, S4_CLOSE + " " + sentence))
    assert unattributed(result, doc, "3.8 times", 1) == expected, result.findings


def test_secondary_report_needs_its_teller(tmp_path: Path) -> None:
    """A figure that a secondary account also reports still needs an owner named."""
    def mutate(doc: Doc) -> None:
        doc["facts"] += [
            {"id": "F90", "claim": "The May 6 post reports a 64% hit rate on the pool.",
             "source_ids": ["S4"],
             "evidence_type": "author_reported_benchmark_not_independently_reproduced"},
            {"id": "F91", "claim": "A newsletter repeats the post's 64% hit rate.",
             "source_ids": ["S4"], "evidence_type": "secondary_reporting"}]
        replace_body(doc, "Reuse also has boundaries.",
                     "The pool holds a 64% hit rate. [S4]\n\nReuse also has boundaries.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, "64%") == ["error"], result.findings


def test_analysis_weighs_a_figure_credited_earlier(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, S11_OPEN, S11_OPEN + " So 3.8 times the throughput need not mean a cheaper task."))
    assert unattributed(result, doc, "3.8 times", 1) == [], result.findings


@pytest.mark.parametrize(("text", "credits"), [
    # the product doing an action is a claim about it, not someone reporting
    ("FlexWidget reaches 1 token/s on one GPU.", False),
    ("FlexWidget ran 3 times faster than the baseline.", False),
    ("The authors reached 1 token/s on one GPU.", True),
    # a publisher named in the product's name still reports
    ("Acme ran both engines itself.", True),
    # a document as the subject of a verb that states its figures
    ("The workshop abstract keeps the 2.6x and adds 3.7x.", True),
    ("The OSDI version's abstract keeps the 2.6x.", True),
    ("The design document itself compares the two fabrics at 190 GB/s.", True),
    ("The documentation warns that replicas lose the benefit.", False),
])
def test_product_actions_and_documents(text: str, credits: bool) -> None:
    assert attributes(text, ("Acme",), desk=DESK,
                      product="Acme FlexWidget offloading for one GPU") is credits


@pytest.mark.parametrize(("text", "product", "claimed"), [
    ("vWidget delivers decode throughput up to 1.99x that of the baseline.", "vWidget paging",
     True),
    ("On three models, Widget keeps quality close to the baseline with 2.6 times less memory.",
     "Widget KV quantization", True),
    ("On three models, the baseline keeps quality with 2.6 times less memory.",
     "Widget KV quantization", False),
])
def test_claim_in_the_desks_voice(text: str, product: str, claimed: bool) -> None:
    from ledger.figures import extract_figures
    from ledger.verify.credits import _claimed_as_result

    figure = next(f for f in extract_figures(text) if f.text[0].isdigit())
    assert _claimed_as_result(text, figure, product) is claimed


@pytest.mark.parametrize(("text", "credits"), [
    ("Widget's developers put the gain at 3x.", True),
    ("By the maintainers' count, the cache saves 40%.", True),
    ("Those numbers belong to the vendor.", True),
    ("In its launch post, Acme put the gain at 3x.", True),
    ("Those are vendor figures.", True),
    ("The claimed speedup is 3x.", True),
    ("The paper's Table 2 lists 3x.", True),
    ("In the paper, throughput rises 3x.", True),
    ("Widget reaches 3x.", False),
    ("The cache puts hot blocks at the front.", False),
    ("In the end, Widget saves 40%.", False),
])
def test_more_ways_to_credit(text: str, credits: bool) -> None:
    assert attributes(text, ("Acme",), desk=DESK, product="Widget cache") is credits


@pytest.mark.parametrize(("sentence", "figure", "expected"), [
    # a result the authors report, which their documentation repeats, still needs an owner
    ("The pool serves 7.4 times the requests. [S4]", "7.4 times", ["error"]),
    # a count that documentation states is a design parameter
    ("The pool spans 74 nodes. [S4]", "74", []),
])
def test_documentation_repeating_an_authors_figure(tmp_path: Path, sentence: str, figure: str,
                                                   expected: list[str]) -> None:
    def mutate(doc: Doc) -> None:
        doc["facts"] += [
            {"id": "F90", "claim": "The May 6 post reports 7.4 times the requests on 74 nodes.",
             "source_ids": ["S4"],
             "evidence_type": "author_reported_benchmark_not_independently_reproduced"},
            {"id": "F91", "claim": "The guide lists 7.4 times the requests and 74 nodes.",
             "source_ids": ["S4"], "evidence_type": "primary_documentation"}]
        replace_body(doc, "Reuse also has boundaries.",
                     sentence + "\n\nReuse also has boundaries.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, figure) == expected, result.findings


@pytest.mark.parametrize(("text", "product", "claimed"), [
    # a second verb of the same subject states the figure as what the product does
    ("Widget-2 trains the heads on a frozen model and reaches 2.4x the decode speed.",
     "Widget-2 heads", True),
    ("The baseline trains the heads on a frozen model and reaches 2.4x the decode speed.",
     "Widget-2 heads", False),
    ("The post says Widget-2 trains the heads on a frozen model and reaches 2.4x the speed.",
     "Widget-2 heads", False),
])
def test_claim_by_a_second_verb(text: str, product: str, claimed: bool) -> None:
    from ledger.figures import extract_figures
    from ledger.verify.credits import _claimed_as_result

    figure = next(f for f in extract_figures(text) if f.text[0].isdigit())
    assert _claimed_as_result(text, figure, product) is claimed


@pytest.mark.parametrize(("names", "credits"), [
    # the product's people report; the product acting is still the product
    (("Widget-3 authors (arXiv)",), False),
    (("the Widget-3 team",), False),
    # a publisher whose name opens like the product's still reports
    (("Widget-3 Labs Inc",), True),
])
def test_people_of_the_product_are_not_the_product(names: tuple[str, ...],
                                                   credits: bool) -> None:
    assert attributes("Widget-3 runs attention 1.8 times faster than before.", names,
                      desk=DESK, product="Widget-3 attention kernels") is credits


def test_reporting_partys_possessive_before_its_figure() -> None:
    from ledger.verify.credits import _quoted_parties

    assert _quoted_parties("Widget Labs (Ada Byron), quoting Acme AI and Beta Group; Widget "
                           "team benchmark page") == [
        "Widget Labs", "Widget", "Ada Byron", "Acme AI", "Acme", "Beta Group", "Beta"]
    assert _quoted_parties("Widget-3 authors (arXiv); Gadget benchmark commit") == []
    text = "The desk's arithmetic: Acme's hit rate rose by 40 percentage points, a doubling."
    assert attributes(text, ("Acme",), desk=DESK)
    # the product's possessive is not a party crediting its figure
    assert not attributes(text.replace("Acme", "Widget"), ("Acme",), desk=DESK)


@pytest.mark.parametrize(("text", "claimed"), [
    # the product by name before a past-tense verb of result states it as the product's
    ("On two long tasks Gizmo delivered up to 4.5 times the throughput.", True),
    # a narrated setting, or a noun subject in the past tense, is not a fresh claim
    ("The first release ran at batch size 1, where Gizmo delivered about 1.8x the speed.",
     False),
    ("Transfers reached 4.5 times the old rate.", False),
])
def test_past_tense_claim_by_the_products_name(text: str, claimed: bool) -> None:
    from ledger.figures import extract_figures
    from ledger.verify.credits import _claimed_as_result

    figure = next(f for f in extract_figures(text) if f.text[0].isdigit())
    assert _claimed_as_result(text, figure, "Gizmo radix cache") is claimed


def _scope_names_the_products_readme(doc: Doc) -> None:
    doc["benchmark_scope"]["reported_by"] = "vLLM authors; Mooncake Store README"


@pytest.mark.parametrize("sentence", [
    "On coding traces, Mooncake achieves up to 3.8 times the throughput. [S4]",
    "Mooncake Store delivers 3.8 times the throughput on coding traces. [S4]",
    "With agent traffic, Mooncake reaches 3.8 times the throughput. [S4]",
])
def test_the_products_own_document_does_not_make_the_product_a_reporter(
        tmp_path: Path, sentence: str) -> None:
    def mutate(doc: Doc) -> None:
        _scope_names_the_products_readme(doc)
        replace_body(doc, S11_OPEN, sentence + "\n\n" + S11_OPEN)
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, "3.8 times", 1) == ["error"], result.findings


def test_the_products_document_still_reports(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        _scope_names_the_products_readme(doc)
        replace_body(doc, S11_OPEN, "The Mooncake Store README says coding traces get up to "
                                    "3.8 times the throughput. [S4]\n\n" + S11_OPEN)
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, "3.8 times", 1) == []


@pytest.mark.parametrize(("before", "expected"), [
    # a sentence that credits and announces results: the past-tense result after it is theirs
    ("The authors give one more result.", []),
    ("The vLLM report adds two figures:", []),
    # a sentence on the test's setup announces nothing: the result after it is the product's
    ("Their tests covered coding agents.", ["warning"]),
])
def test_a_past_result_after_an_announcing_sentence(tmp_path: Path, before: str,
                                                    expected: list[str]) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, S4_CLOSE, S4_CLOSE + " " + before + " On those traces, Mooncake Store delivered up "
                                               "to 3.8 times the throughput."))
    assert unattributed(result, doc, "3.8 times", 1) == expected, result.findings


@pytest.mark.parametrize(("text", "names"), [
    ("Bramble's summary fills in the rest: the index halves lookups and saves 40%.",
     ("Bramble",)),
    ("Orbit Weekly's review spells out the details: caching saves 40% of reads.", ()),
    ("The Foo Gazette's recap gives the remaining numbers, 3x on reads.", ()),
    ("Kestrel's tutorial walks through it: 14 GB of VRAM is enough.", ()),
    ("Quill's overview of the release lists a 2x cut in copies.", ("Quill",)),
])
def test_a_third_partys_document_credits_its_figures(text: str,
                                                     names: tuple[str, ...]) -> None:
    """A named party's summary, review, recap or tutorial is an owner of what it relays, like
    its post or report."""
    assert attributes(text, names, desk=DESK)


def test_the_desks_own_summary_credits_no_one() -> None:
    assert not attributes("PCT's summary: the index halves lookups, saving 40%.", desk=DESK)


@pytest.mark.parametrize(("sentence", "expected"), [
    # a participle names a document; it is no agent that reports
    ("In the version cited here, Mooncake Store delivers up to 3.8 times the throughput.",
     ["warning"]),
    ("As in the paper quoted above, Mooncake Store reaches up to 3.8 times the throughput.",
     ["warning"]),
    ("The version cited here reports up to 3.8 times the throughput.", []),
    # a long object between the verb and the figure
    ("Mooncake Store lifts the hourly completion count of a busy shared cluster by up to "
     "3.8 times.", ["warning"]),
])
def test_desk_voice_claims_past_participles_and_long_objects(tmp_path: Path, sentence: str,
                                                            expected: list[str]) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, S4_CLOSE, S4_CLOSE + " " + sentence))
    assert unattributed(result, doc, "3.8 times", 1) == expected, result.findings


def _pool_fact(doc: Doc) -> None:
    doc["facts"].append({
        "id": "F90", "claim": "The May 6 post reports a 64% hit rate on the pool.",
        "source_ids": ["S4"],
        "evidence_type": "author_reported_benchmark_not_independently_reproduced"})


@pytest.mark.parametrize(("opening", "expected"), [
    # a paragraph that goes on in time from an account credited earlier, citing the same
    # source: the reader was told whose account it is
    ("A week later, the pool held a 64% hit rate.", []),
    ("Two months on, a second release lifted the pool to a 64% hit rate.", []),
    ("The following Tuesday the pool reached a 64% hit rate.", []),
    ("Later that month, the pool held a 64% hit rate.", []),
    # no continuation: a new paragraph stating the figure in the desk's voice
    ("The pool held a 64% hit rate.", ["error"]),
    ("In a later test the pool held a 64% hit rate.", ["error"]),
])
def test_a_paragraph_continuing_a_credited_account(tmp_path: Path, opening: str,
                                                    expected: list[str]) -> None:
    def mutate(doc: Doc) -> None:
        _pool_fact(doc)
        replace_body(doc, "Reuse also has boundaries.",
                     f"{opening} [S4]\n\nReuse also has boundaries.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, "64%") == expected, result.findings


def test_a_continuation_citing_another_source_is_still_unattributed(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        _pool_fact(doc)
        doc["facts"][-1]["source_ids"] = ["S5"]
        replace_body(doc, "Reuse also has boundaries.",
                     "A week later, the pool held a 64% hit rate. [S5]\n\nReuse also has "
                     "boundaries.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, "64%") == ["error"], result.findings


@pytest.mark.parametrize(("sentence", "expected"), [
    # a figure credited earlier, referred back to with a determiner and an adjective
    ("The full 3.8 times need not mean a cheaper task.", []),
    ("Even the claimed 3.8 times need not mean a cheaper task.", []),
])
def test_a_credited_figure_referred_back_with_an_adjective(tmp_path: Path, sentence: str,
                                                            expected: list[str]) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "Reuse also has boundaries.", f"{sentence} [S4]\n\nReuse also has boundaries."))
    assert unattributed(result, doc, "3.8 times", 1) == expected, result.findings


@pytest.mark.parametrize(("sentence", "expected"), [
    # a hypothesis of the desk's own arithmetic: a conditional and a modal; its result is the
    # desk's inference, though the authors' 3.8x gives the same 73.7%
    ("If throughput rose by all 3.8 times at one price, cost per task would fall by 73.7%.",
     []),
    ("Were the gain to hold in full, cost per task would drop by 73.7%.", []),
    ("Suppose the gain holds: cost per task could fall by 73.7%.", []),
    # the same figure stated as a result
    ("Cost per task falls by 73.7%.", ["error"]),
])
def test_a_hypothesis_of_the_desks_arithmetic(tmp_path: Path, sentence: str,
                                              expected: list[str]) -> None:
    def mutate(doc: Doc) -> None:
        add_inference(doc, "At 3.8 times the throughput, cost per task falls by 73.7%.",
                      basis_fact_ids=("F4",), inputs={"gain": 3.8},
                      steps=(("saving", "(1 - 1 / gain) * 100", 73.6842),))
        doc["inferences"][-1]["computation"]["tolerance"] = 0.01
        replace_body(doc, "Reuse also has boundaries.",
                     f"{sentence} [S4]\n\nReuse also has boundaries.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, "73.7%") == expected, result.findings


def test_a_number_in_the_products_name(tmp_path: Path) -> None:
    # "Store 46" names the product the article is about; it is no figure to credit
    def mutate(doc: Doc) -> None:
        doc["subject"] = "Mooncake Store 46 shared KV cache"
        replace_body(doc, "Reuse also has boundaries.",
                     "Store 46 is a signal rather than a product. [S4]\n\nReuse also has "
                     "boundaries.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert unattributed(result, doc, "46", 1) == [], result.findings


@pytest.mark.parametrize(("text", "product", "claimed"), [
    # a model name with a point in the object, a cost verb, a particle verb, "as much as"
    ("Widget serves Mixtral-8x7B-v0.1 at 3.1x the rate of the baseline.", "Widget serving",
     True),
    ("Widget-2 trains for 38% less than its predecessor.", "Widget-2 training", True),
    ("Widget speeds decoding up by as much as 2.7x.", "Widget decoding", True),
    ("The baseline trains for 38% less than Widget.", "Widget training", False),
])
def test_claims_with_cost_and_particle_verbs(text: str, product: str, claimed: bool) -> None:
    from ledger.figures import extract_figures
    from ledger.verify.credits import _claimed_as_result

    figure = next(f for f in extract_figures(text) if f.text[0].isdigit())
    assert _claimed_as_result(text, figure, product) is claimed


@pytest.mark.parametrize(("lead", "expected"), [
    # a list is one unit with the line that introduces it: that line's credit covers its items
    ("The vLLM post lists two results (the figures are the post's, not PCT's):", []),
    ("According to the May 6 post, two workloads stand out:", []),
    # a lead-in that credits no one, or a line that introduces nothing, gives no credit
    ("Two workloads stand out:", ["error"]),
    ("Two workloads stand out, and the gain is not PCT's to claim.", ["error"]),
])
def test_a_list_takes_the_credit_of_the_line_that_introduces_it(
        tmp_path: Path, lead: str, expected: list[str]) -> None:
    items = ("- Agent traffic: the store reaches up to 3.8 times the throughput.\n"
             "- Chat traffic: the gain is smaller.")
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, S4_CLOSE, S4_CLOSE + "\n\n" + lead + "\n" + items))
    assert unattributed(result, doc, "3.8 times", 1) == expected, result.findings
