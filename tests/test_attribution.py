"""The attribution grammar: who a paragraph's figures are attributed to."""

from __future__ import annotations

import pytest

from ledger.verify.attribution import attributes, desk_claims, desk_names

DESK = desk_names("Peterson Compute Trading")


@pytest.mark.parametrize("text", [
    "The post reports a fivefold gain.",
    "NVIDIA reports over 20x faster time to first token.",
    "NVIDIA reported it in March.",
    "The authors say the cache hit rate rose.",
    "Campi found that the router sheds load.",
    "The paper shows 6.4x the throughput.",
    "These are the post's figures, not PCT measurements.",
    "DeepSeek's two published benchmarks put the figure at 6.6 TiB/s.",
    "Her team ran the benchmark on eight GPUs.",
    "They measured 3.8 times the throughput.",
    "According to the README, 25 storage nodes sorted 110.5 TiB.",
    "The figure was reported by the vendor.",
    "Throughput rose 5x. Latency fell 40%. These are the blog's numbers.",
    "The test used a 7B model on 24 GB cards.",
])
def test_attributed(text: str) -> None:
    assert attributes(text, desk=DESK)


@pytest.mark.parametrize("text", [
    "Throughput rose 3.8 times on 12 GPUs.",
    "In a May 6, 2026 vLLM report, PCT tested Kimi-2.5 on 12 GB200 GPUs using agent traces.",
    "They saw 3.8 times the throughput.",
    "The setup is small: six sessions on a two-core CPU.",
])
def test_not_attributed(text: str) -> None:
    assert not attributes(text, ("vLLM",), desk=DESK)


def test_publisher_names_count_in_a_construction() -> None:
    assert attributes("vLLM reported 3.8 times the throughput.", ("vLLM",))
    assert attributes("The figures come from vLLM's benchmark post.", ("vLLM",))
    assert not attributes("A vLLM report lists 3.8 times.", ())


def test_naming_an_author_is_attribution() -> None:
    assert attributes("Danna Wang, working with others, tested tiered caching.", (), ("Danna Wang",))


@pytest.mark.parametrize("text, claims", [
    ("PCT measured 3.8 times the throughput.", True),
    ("We tested it and saw 46x lower TTFT.", True),
    ("Our benchmarks show 3.8 times the throughput.", True),
    ("The desk measured a 2x gain.", True),
    ("These are the authors' results, not PCT measurements.", False),
    ("The announcement includes instructions; PCT did not run them.", False),
    ("The authors measured 3.8 times the throughput.", False),
])
def test_desk_claims(text: str, claims: bool) -> None:
    assert bool(desk_claims(text, DESK)) is claims


@pytest.mark.parametrize("text, claims", [
    ("In PCT's replication, the cache held 90% of hits.", True),
    ("in our own trials the cache held 90% of hits.", True),
    ("PCT's own vLLM rerun gives 2.1 times the throughput.", True),
    ("Peterson Compute Trading reran the sweep and got 2.1x.", True),
    ("PCT reproduced the sweep and got 2.1x.", True),
    ("PCT checked these figures against the post in its own lab.", True),
    ("PCT's reading of the 2.1x is cautious.", False),
    ("PCT's arithmetic: 2 times 3 is 6.", False),
    ("We note that the vendor ran it in its own lab at 2.1x.", False),
    ("We noted that the vendor ran it in its own lab at 2.1x.", False),
    ("PCT reran none of these runs.", False),
    ("PCT's run-through of the post finds no setup details.", False),
    ('The authors write that "we measured 2.1x on eight GPUs".', False),
    ("The authors write that “we measured 2.1x on eight GPUs”; PCT measured 1.9x.", True),
    ("PCT ran the numbers: 1.4 times 0.8 is 1.12.", False),
    ("We found the 3x in the README, not in the paper.", False),
    ("PCT saw the same 3x in two places.", False),
    ("PCT found 2.9x in its own runs.", True),
    ("On PCT's hardware the cache held 90%.", True),
    ("PCT ran the sweep again and got 2.1x.", True),
])
def test_desk_claims_by_nouns_and_settings(text: str, claims: bool) -> None:
    assert bool(desk_claims(text, DESK)) is claims


def test_desk_names_come_from_the_publisher() -> None:
    desk = desk_names("Jones Daily Review")
    assert desk == ("Jones Daily Review", "JDR")
    assert desk_claims("JDR measured 3.8 times the throughput.", desk)
    assert not desk_claims("PCT measured 3.8 times the throughput.", desk)
    assert not attributes("JDR reports 3.8 times the throughput.", desk=desk)
    assert attributes("PCT reports 3.8 times the throughput.", desk=desk)


@pytest.mark.parametrize("text, claims", [
    # a negative subject whose predicate is the desk's work
    ("Neither of the two tallies is a PCT measurement.", False),
    ("None of these timings came from PCT testing.", False),
    ("Nothing in the table is a PCT benchmark.", False),
    ("Both tallies are PCT measurements.", True),
])
def test_desk_claims_with_a_negative_subject(text: str, claims: bool) -> None:
    assert bool(desk_claims(text, DESK)) is claims


def test_a_named_team_is_an_agent() -> None:
    assert attributes("Widget's team published its own sweep. It ran on four hosts and "
                      "ranked the disk tier last.")
    assert attributes("The Gadget group reports 2x; Widget's lab measured 3x.")
    assert not attributes("Widget's cache published to four hosts ranks the disk tier last.")


@pytest.mark.parametrize("text, claims", [
    # the desk's own work as the agent of a finding
    ("PCT's own tally of the request logs finds that 61% of sessions resume.", True),
    ("PCT's sweep of batch sizes found a 1.8x gain at 64.", True),
    ("Our survey of the traces showed 40% repeated prefixes.", True),
    ("PCT's replay put the hit rate at 71%.", True),
    ("In PCT's replays the cache held 71% of hits.", True),
    # its reading or arithmetic restates the sources; a count of a document locates a figure
    ("PCT's reading of the abstract finds a 2x gain.", False),
    ("PCT's arithmetic gives 44% of the original wait.", False),
    ("PCT's tally of the README comes to 14 backends.", False),
    ("Our count of the paper's tables gives 9 models.", False),
    # negated
    ("PCT's own replay did not reach 2x.", False),
    ("Our rerun never showed the 71%.", False),
])
def test_desk_claims_by_its_work_as_agent(text: str, claims: bool) -> None:
    assert bool(desk_claims(text, DESK)) is claims


@pytest.mark.parametrize("text, claims", [
    # the desk attesting a product's behaviour as a fact it established
    ("PCT confirmed that the engine serves 64 sessions on one GPU.", True),
    ("We verified that the cache holds 1,024K tokens on a single card.", True),
    ("Peterson Compute Trading has established that prefill runs 3x faster.", True),
    # a check of a source or of arithmetic
    ("PCT verified that the README lists 12 supported models.", False),
    ("We confirmed that the sum of the two figures is 40.", False),
    ("PCT confirmed that the paper says 64 sessions.", False),
    # someone else, or negated
    ("The authors confirmed that the engine serves 64 sessions.", False),
    ("PCT has not confirmed that the engine serves 64 sessions.", False),
])
def test_desk_claims_by_attesting(text: str, claims: bool) -> None:
    assert bool(desk_claims(text, DESK)) is claims


@pytest.mark.parametrize("text", [
    # a possessive heading the subject of a verb of saying, whatever the noun it owns
    "Acme's description of the card lists 96 GB of HBM and 3.2 TB/s.",
    "The Register's rundown of the launch said the cluster held 4,000 GPUs.",
    "Contoso's teardown states that 12 racks were used.",
    "Northwind's profile of the startup gives 300 tokens/s for the 70B model.",
    # a document by or from a named party as the subject
    "A deep dive by Fabrikam counts 12,000 stars and 900 forks.",
    "An April summary from Northwind reports 40% lower latency.",
])
def test_subject_owned_by_a_named_party(text: str) -> None:
    assert attributes(text, desk=DESK)


@pytest.mark.parametrize("text", [
    # the product's own part doing something is no report
    "Widget's chip reaches 900 TOPS at INT8.",
    "Widget's scheduler lifts throughput to 4 jobs per GPU.",
])
def test_a_products_part_is_no_reporter(text: str) -> None:
    assert not attributes(text, desk=DESK)


@pytest.mark.parametrize("text", [
    # a name and its people, without a possessive, as the agent
    "Widget contributors reported 9,000 tokens/s on two GPUs.",
    "Gadget maintainers measured 40% lower latency.",
    "In a pull request, Acme engineers say the cache holds 64 sessions.",
])
def test_a_names_people_are_agents(text: str) -> None:
    assert attributes(text, desk=DESK)


@pytest.mark.parametrize("text", [
    "Nobody at PCT has rerun the 2.1x.",
    "No one at PCT measured these figures.",
    "Nobody from the desk tested the 46x.",
])
def test_desk_claims_negated_by_nobody(text: str) -> None:
    assert desk_claims(text, DESK) is None


@pytest.mark.parametrize("text, claims", [
    # the desk attesting a figure on hardware of its own, anywhere in the sentence
    ("PCT validated the 2x on a rented eight-GPU server.", True),
    ("The desk verified the numbers on a loaned system.", True),
    ("The post gives no batch size, and PCT confirmed the 3x on an H100 in its own lab.", True),
    # a check of a document is no measurement
    ("PCT verified the date on the paper's first page.", False),
    ("PCT confirmed the figure in the README.", False),
])
def test_desk_claims_by_attesting_on_its_hardware(text: str, claims: bool) -> None:
    assert bool(desk_claims(text, DESK)) is claims


@pytest.mark.parametrize("text", [
    # where the figures come from, or where they are set out
    "The strongest figures come from a partner's test bench, eight nodes at 40 GB/s each.",
    "Those numbers came from a Contoso lab rig: 12 drives at 3 GB/s.",
    "The throughput results, tabulated in a community wiki, reach 9 GB/s.",
    "Each value is summarised in the vendor's sizing sheet: 64 lanes and 4 ports.",
])
def test_origin_and_compilation_attribute(text: str) -> None:
    assert attributes(text)


@pytest.mark.parametrize("text", [
    # a cause is no origin
    "The speedup comes from skipping the host copy, so 9 GB/s becomes 12 GB/s.",
    "Most of the gain came from larger batches: 40 requests instead of 8.",
])
def test_a_cause_is_no_origin(text: str) -> None:
    assert not attributes(text)


@pytest.mark.parametrize("text", [
    # the desk's depiction or worked case is not its measurement
    "PCT's illustration shows why the ceiling matters more than the median.",
    "The desk's worked example gives 40 seconds for a cold reload.",
    "Our diagram shows four tiers between the GPU and the array.",
    "PCT's scenario puts the saving at a third of the bill.",
])
def test_desk_depictions_are_no_claims(text: str) -> None:
    assert desk_claims(text, DESK) is None


def test_an_origin_without_an_owner_is_no_attribution() -> None:
    # how a figure was made names nobody
    assert not attributes("The largest number comes from a synthetic stress test: 4 TB/s.")


@pytest.mark.parametrize("text, claims", [
    # two verbs of the desk's work joined
    ("The rig, which PCT assembled and timed in March, moved 9 GB/s.", True),
    ("We rebuilt, then benchmarked the array.", True),
    ("PCT read and summarised the two posts.", False),
    # a decimal figure inside the clause does not end it
    ("PCT verified the 2.5x and 7.25x gains in its own testing.", True),
    # a bench or rig of the desk's own
    ("The desk validated the speedup on its own A6000 bench.", True),
    ("PCT confirmed the gains on a borrowed test rig.", True),
])
def test_desk_claims_joined_verbs_and_benches(text: str, claims: bool) -> None:
    assert bool(desk_claims(text, DESK)) is claims


def test_a_short_versioned_product_acting_is_no_report() -> None:
    # "V3" is the product's own name, however short
    assert not attributes("Against the old release, V3 reaches 1.3x the peak.", product="Widget V3")


def test_a_products_version_after_a_possessive_is_no_figure_of_the_party() -> None:
    assert not attributes("Initech's Widget-X 3.1 reaches 1TB and 72GB/s.", names=("Initech",))
    assert attributes("Initech's hit rate rose by 40 points.", names=("Initech",))


def test_a_unit_after_a_number_is_no_agent() -> None:
    assert not attributes("A 1 GB read runs at 6.8 GB/s, and 4 KB transfers reach 0.8 GB/s.")
    assert attributes("Later, Initech reported 6.8 GB/s.")


@pytest.mark.parametrize("text, attributed", [
    ("A wiki entry on the chip lists 96 GB of HBM and 900 TFLOPS.", True),
    ("An industry datasheet for the module states 72 GB/s.", True),
    ("A quick test on the node reaches 72 GB/s.", False),
])
def test_an_indefinite_source_that_says(text: str, attributed: bool) -> None:
    assert attributes(text) is attributed


@pytest.mark.parametrize("text", [
    "A 4 KB read ran at 0.8 GB/s, the release notes say.",
    "Those slides show 12 GB/s per port.",
])
def test_plural_documents_say(text: str) -> None:
    assert attributes(text)


@pytest.mark.parametrize("text", [
    "By its reading, the hot rows are about 2% of the table.",
    "By the survey's own count, 40% of sites run the old kernel.",
])
def test_a_sources_reading_frames_the_sentence(text: str) -> None:
    assert attributes(text)


@pytest.mark.parametrize(("text", "credits"), [
    ("Etched argues that GPUs are getting bigger, with compute density up only 15%.", True),
    ("The authors concede that the 2x holds only at batch one.", True),
    ("The documentation warns that replicas lose the benefit; TGI answers in 2 seconds.", False),
])
def test_a_verb_of_stance_credits_and_a_caveat_does_not(text: str, credits: bool) -> None:
    assert attributes(text, names=("Etched",)) is credits
