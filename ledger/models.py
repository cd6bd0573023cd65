"""Pydantic models of the desk's article format and of measurement runs.

An :class:`Article` is what the desk writes: facts tied to sources, inferences with their
arithmetic, guardrails, a benchmark scope and the body text. The LINK that the whole project is
about runs through three optional parts designed here for the checks that use them:

* ``Inference.computation`` -- the arithmetic behind an inference, as named steps with safe
  arithmetic expressions and their stated results, so ``ledger verify`` can recompute them;
* ``Correction.rule`` -- a machine-checkable form of a guardrail (a figure that must not be
  relabelled, two experiments that must not be joined, a status that must carry its date, dates
  that must stay distinct);
* ``Article.measurements`` -- figures the desk measured itself, each citing a ledger
  :class:`Run` by id with its unit and the date it was measured, so a figure in the body traces
  to a dated, reproducible run.

Every model forbids unknown fields (typo protection) except names starting with ``x-``, which
are kept and dumped back unchanged. Load documents with :func:`ledger.schema.load_article`, which
validates JSON in strict mode (``"558"`` is not an integer) and reports every problem at once.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

__all__ = [
    "AUTHOR_REPORTED_EVIDENCE",
    "EXTENSION_PREFIX",
    "INDEPENDENT_EVIDENCE",
    "Article",
    "ArticleId",
    "ArticleStatus",
    "BenchmarkScope",
    "Computation",
    "ComputationStep",
    "ContentType",
    "Correction",
    "CorrectionStatus",
    "DatedStatusRule",
    "DerivedFrom",
    "DistinctDatesRule",
    "EvidenceType",
    "ExperimentSpec",
    "Fact",
    "FactId",
    "ForbiddenLabelRule",
    "GuardrailRule",
    "Inference",
    "InferenceId",
    "License",
    "Measurement",
    "MeasurementId",
    "MetricSpec",
    "MetricSpread",
    "Model",
    "PublicProjection",
    "Quote",
    "Run",
    "RunId",
    "RunMetric",
    "RunStatus",
    "SeparateExperimentsRule",
    "Source",
    "SourceId",
    "VerificationLevel",
]

#: Fields whose names start with this prefix are extensions: allowed anywhere, kept verbatim.
EXTENSION_PREFIX = "x-"

ArticleId = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*-\d{4}-\d{2}-\d{2}(?:-[a-z0-9]+)*$"),
    Field(description="Lower-case slug that contains the publication date, e.g. pct-2026-11-04-spotlight."),
]
SourceId = Annotated[str, StringConstraints(pattern=r"^S[1-9][0-9]*$")]
FactId = Annotated[str, StringConstraints(pattern=r"^F[1-9][0-9]*$")]
InferenceId = Annotated[str, StringConstraints(pattern=r"^I[1-9][0-9]*$")]
MeasurementId = Annotated[str, StringConstraints(pattern=r"^M[1-9][0-9]*$")]
RunId = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$"),
    Field(description="Identifier of a measurement run in the ledger database."),
]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]
Name = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$")]


class EvidenceType(str, Enum):
    """How a fact is known. The first four are the values the desk's first article uses."""

    dated_primary_research = "dated_primary_research"
    primary_documentation = "primary_documentation"
    author_reported_benchmark_not_independently_reproduced = (
        "author_reported_benchmark_not_independently_reproduced"
    )
    repository_license = "repository_license"
    secondary_reporting = "secondary_reporting"
    supplier_statement = "supplier_statement"
    interview = "interview"
    ledger_measurement = "ledger_measurement"
    independently_reproduced_benchmark = "independently_reproduced_benchmark"


#: Evidence types that claim the desk (or someone independent) reproduced the result.
INDEPENDENT_EVIDENCE = frozenset(
    {EvidenceType.ledger_measurement, EvidenceType.independently_reproduced_benchmark}
)
#: Evidence types whose figures must be attributed to their authors in the body.
AUTHOR_REPORTED_EVIDENCE = frozenset(
    {EvidenceType.author_reported_benchmark_not_independently_reproduced, EvidenceType.supplier_statement}
)


class ArticleStatus(str, Enum):
    desk_research = "desk_research"
    draft = "draft"
    in_review = "in_review"
    approved = "approved"
    published = "published"
    corrected = "corrected"
    retracted = "retracted"


class CorrectionStatus(str, Enum):
    prepublication_guardrail = "prepublication_guardrail"
    correction = "correction"
    clarification = "clarification"
    update = "update"
    retraction = "retraction"


class ContentType(str, Enum):
    product_spotlight = "product_spotlight"
    analysis = "analysis"
    news = "news"
    benchmark_report = "benchmark_report"
    explainer = "explainer"


class Model(BaseModel):
    """Base of every article model: unknown fields are errors unless they start with ``x-``."""

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        allow_inf_nan=False,  # no evidence is infinite; inf <= inf would pass any check
        populate_by_name=True,
        use_enum_values=False,
        json_schema_extra={
            "patternProperties": {"^x-": {}},
            "additionalProperties": False,
        },
    )

    @model_validator(mode="after")
    def _only_extension_extras(self) -> "Model":
        extras = self.__pydantic_extra__ or {}
        unknown = [name for name in extras if not name.startswith(EXTENSION_PREFIX)]
        if unknown:
            allowed = ", ".join(sorted(type(self).model_fields))
            raise ValueError(
                f"unknown field(s) {', '.join(map(repr, unknown))}; allowed: {allowed} "
                f"(extensions must start with {EXTENSION_PREFIX!r})"
            )
        return self


class Source(Model):
    """A cited source; ``[S#]`` markers in the body refer to ``id``."""

    id: SourceId
    title: NonEmpty
    publisher: NonEmpty
    authors: list[NonEmpty] | None = None
    published_at: dt.date | None = Field(
        description="Original publication date; null where none was established."
    )
    updated_at: dt.date | None = None
    page_date: dt.date | None = Field(default=None, description="Date displayed on the page.")
    page_date_label: str | None = None
    retrieved_at: dt.date
    url: Annotated[str, StringConstraints(pattern=r"^https?://\S+$")]
    primary: bool
    license: str | None = None


class Quote(Model):
    """Words of a source that support a fact, as the source printed them."""

    source_id: SourceId
    text: NonEmpty = Field(description="The source's own words (whitespace, quote marks, dashes "
                           "and markup are normalised when the quote is looked up).")
    locator: str | None = Field(default=None, description="Heading, page or section.")


class Fact(Model):
    id: FactId
    claim: NonEmpty
    source_ids: list[SourceId] = Field(min_length=1)
    evidence_type: EvidenceType
    measurement_ids: list[MeasurementId] | None = Field(
        default=None, description="Ledger measurements that back this fact."
    )
    quotes: list[Quote] | None = Field(
        default=None, description="The source's words that support the claim (ledger verify "
        "finds them in the source snapshots)."
    )


class ComputationStep(Model):
    """One named step: ``expression`` uses numbers, + - * / ** ( ) and earlier names."""

    name: Name
    expression: NonEmpty
    result: int | float
    unit: str | None = None


class Computation(Model):
    """The arithmetic behind an inference, recomputed by ``ledger verify``."""

    inputs: dict[Name, int | float] = Field(default_factory=dict)
    steps: list[ComputationStep] = Field(min_length=1)
    tolerance: float = Field(default=1e-9, ge=0, description="Absolute tolerance on each result.")


class Inference(Model):
    id: InferenceId
    claim: NonEmpty
    basis_fact_ids: list[FactId]
    label: NonEmpty
    assumptions: list[NonEmpty] | None = None
    computation: Computation | None = None


class ForbiddenLabelRule(Model):
    """A figure (by value, or by the reported metric it traces to) must not be called ``forbidden``."""

    kind: Literal["forbidden_label"]
    value: int | float | None = None
    metric: str | None = Field(default=None, description="Name in benchmark_scope.reported_metrics.")
    forbidden: list[NonEmpty] = Field(min_length=1)
    scope: Literal["clause", "sentence"] = "clause"


class ExperimentSpec(Model):
    name: NonEmpty
    values: list[int | float] = Field(default_factory=list, description="Figures that identify it.")
    terms: list[NonEmpty] = Field(default_factory=list, description="Words that identify it.")


class SeparateExperimentsRule(Model):
    """Figures of two experiments must not be joined in one sentence as one result."""

    kind: Literal["separate_experiments"]
    experiments: list[ExperimentSpec] = Field(min_length=2)


class DatedStatusRule(Model):
    """Statements about ``subjects`` must cite a source observed on ``observed_on``."""

    kind: Literal["dated_status"]
    subjects: list[NonEmpty] = Field(min_length=1)
    observed_on: dt.date
    stale_dates: list[dt.date] = Field(default_factory=list)


class DistinctDatesRule(Model):
    """Each labelled date belongs to its own event; none may be given to another's event."""

    kind: Literal["distinct_dates"]
    dates: dict[NonEmpty, dt.date] = Field(min_length=2)
    terms: dict[NonEmpty, list[NonEmpty]] = Field(default_factory=dict)


GuardrailRule = Annotated[
    ForbiddenLabelRule | SeparateExperimentsRule | DatedStatusRule | DistinctDatesRule,
    Field(discriminator="kind"),
]


class Correction(Model):
    """A guardrail or correction. ``rule`` makes it machine-checkable."""

    id: Annotated[str, StringConstraints(pattern=r"^[CG][1-9][0-9]*$")] | None = None
    status: CorrectionStatus
    text: NonEmpty
    date: dt.date | None = None
    rule: GuardrailRule | None = None


class License(Model):
    editorial_text: NonEmpty
    third_party_material: str | None = None
    software: str | None = None
    republication_note: str | None = None


class MetricSpec(Model):
    """What a reported metric is, and the words that may (and may not) describe it."""

    label: NonEmpty
    kind: Literal["multiplier", "percent", "count", "quantity", "money"] = "quantity"
    vocabulary: list[NonEmpty] = Field(default_factory=list)
    experiment: str | None = None


class BenchmarkScope(Model):
    reported_by: NonEmpty
    publication_date: dt.date
    model: NonEmpty
    hardware: NonEmpty
    topology: str | None = None
    workload: str | None = None
    independent_reproduction: bool
    reported_metrics: dict[Name, int | float] = Field(default_factory=dict)
    metric_specs: dict[Name, MetricSpec] | None = Field(
        default=None, description="Per-metric label and vocabulary; defaults come from the name."
    )
    separate_scaling_experiment: str | None = None


class PublicProjection(Model):
    version: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+\.\d+$")]
    date: dt.date
    changes: list[NonEmpty]
    rights: NonEmpty


class DerivedFrom(Model):
    """How a measurement is computed from others: ``expression`` over measurement ids of the
    same article (``M4 / M5``, ``1 - M13 / M12``), with numbers, + - * / ** and parentheses.
    ``ledger verify --db`` recomputes it and gives it the spread of its inputs."""

    expression: NonEmpty


class Measurement(Model):
    """A figure the desk measured, citing the ledger run that produced it."""

    id: MeasurementId
    metric: NonEmpty
    value: int | float
    unit: NonEmpty
    run_id: RunId
    measured_at: dt.date
    aggregation: str | None = Field(default=None, description="p50, p99, mean, ratio, ...")
    sample_count: int | None = Field(default=None, ge=0)
    description: str | None = None
    derived_from: DerivedFrom | None = None
    interval: list[int | float] | None = Field(
        default=None, min_length=2, max_length=2,
        description="[low, high]: the 95% interval the body may print as a range; "
        "`ledger verify --db` checks it against the run's spread.")


class Article(Model):
    """One article of the desk, as stored in ``claims/<id>.json``."""

    id: ArticleId
    title: NonEmpty
    section: NonEmpty
    publisher: NonEmpty
    as_of_date: dt.date
    status: ArticleStatus
    subject: NonEmpty
    editorial_word_count: int = Field(ge=0, description=(
        "Words of the body: white-space tokens, not counting tokens made only of [S#] "
        "citation markers."))
    facts: list[Fact]
    inferences: list[Inference] = Field(default_factory=list)
    unknowns: list[NonEmpty] = Field(default_factory=list)
    corrections: list[Correction] = Field(default_factory=list)
    license: License
    sources: list[Source] = Field(min_length=1)
    benchmark_scope: BenchmarkScope | None = None
    measurements: list[Measurement] | None = None
    agent_fields: list[Name] = Field(default_factory=list)
    body: NonEmpty
    content_type: ContentType
    publication_date: dt.date
    observation_date: dt.date
    editorial_voice: str | None = None
    license_status: str | None = None
    public_url: Annotated[str, StringConstraints(pattern=r"^https?://\S+$")] | None = None
    public_projection: PublicProjection | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """The document as it was written: only fields that were given, in model order."""
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)

    @property
    def date_in_id(self) -> dt.date | None:
        match = re.search(r"\d{4}-\d{2}-\d{2}", self.id)
        if match is None:
            return None
        try:
            return dt.date.fromisoformat(match.group())
        except ValueError:
            return None


# --- measurement runs -------------------------------------------------------------------------


class RunStatus(str, Enum):
    running = "running"
    finished = "finished"
    failed = "failed"


class VerificationLevel(str, Enum):
    self_reported = "self_reported"
    rerun_in_ci = "rerun_in_ci"
    independently_reproduced = "independently_reproduced"


class MetricSpread(Model):
    """How a metric varied over the rounds of a run: the spread a printed figure must respect."""

    median: float
    min: float
    max: float
    ci_low: float = Field(description="Low end of the confidence interval of the median.")
    ci_high: float = Field(description="High end of the confidence interval of the median.")
    confidence: float = Field(default=0.95, gt=0, lt=1)
    method: NonEmpty = "percentile bootstrap of the median over rounds"
    resamples: int | None = Field(default=None, ge=1)

    @property
    def width(self) -> float:
        return self.ci_high - self.ci_low


class RunMetric(Model):
    """One measured figure of a run; ``(name, aggregation)`` is unique within the run.

    ``value`` is the figure over every round pooled; ``samples`` holds one value per round
    (arms alternate between rounds) and ``spread`` their median, range and confidence
    interval. Runs recorded before rounds were kept have neither: their spread is unknown.
    """

    name: Name
    value: float
    unit: NonEmpty
    aggregation: NonEmpty = Field(description="p50, p99, mean, sum, ratio, rate, ...")
    sample_count: int = Field(ge=0)
    description: str | None = None
    samples: list[float] | None = Field(default=None, description="One value per round.")
    spread: MetricSpread | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.aggregation)


class Run(Model):
    """A dated, reproducible measurement run. Once ``status`` is final the run is sealed."""

    id: RunId
    status: RunStatus
    started_at: dt.datetime
    ended_at: dt.datetime | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    command: list[str]
    parameters: dict[str, Any] = Field(default_factory=dict)
    environment: dict[str, Any] = Field(default_factory=dict)
    inputs: dict[str, str] = Field(default_factory=dict, description="name -> sha256 digest")
    outputs: dict[str, str] = Field(default_factory=dict, description="name -> sha256 digest")
    metrics: list[RunMetric] = Field(default_factory=list)
    agent_fields: dict[str, Any] = Field(default_factory=dict)
    verification_level: VerificationLevel = VerificationLevel.self_reported
    seed: int | None = None
    description: str | None = None
    error: str | None = Field(default=None, description="Why a failed run failed.")
    machine_load: dict[str, Any] | None = Field(
        default=None, description="Load while it ran: load averages and other busy processes "
        "at start and end (see ledger.runs.machine_load).")
    threads: dict[str, int] = Field(default_factory=dict,
                                    description="Pinned thread counts (torch, interop, ...).")

    @model_validator(mode="after")
    def _consistent(self) -> "Run":
        for name in ("started_at", "ended_at"):
            value = getattr(self, name)
            if value is not None and value.utcoffset() is None:
                raise ValueError(f"{name} must carry a time zone (UTC), got {value.isoformat()}")
        if self.ended_at is not None and self.ended_at < self.started_at:
            raise ValueError(f"ended_at {self.ended_at} is before started_at {self.started_at}")
        if self.status is not RunStatus.running and self.ended_at is None:
            raise ValueError(f"a {self.status.value} run needs ended_at")
        keys = [m.key for m in self.metrics]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            raise ValueError(f"metric(s) recorded twice: {duplicates}")
        return self

    @property
    def sealed(self) -> bool:
        """A finished or failed run is sealed: it can no longer change."""
        return self.status is not RunStatus.running
