"""The label checks of a traced figure: what it is called, who it is credited to, and which
experiment it belongs to. Each concept has its own module; this one runs them in order.

* ``mislabeled-figure``: the words of the figure's clause name another metric
  (:mod:`.wording`, with the vocabularies of :mod:`.vocabulary`); the statistic, tag, system or
  parameter name written around it is another metric's (:mod:`.qualifiers`); its baseline is
  another metric's (:mod:`.baselines`); it is counted per another thing than its facts'
  (:mod:`.normalisers`).
* ``unattributed-figure`` and ``desk-claims-authors-figure``: an author's figure without its
  owner, or presented as the desk's own measurement (:mod:`.credits`).
* ``conflated-experiments``: one sentence joins figures of two experiments
  (:mod:`.conflations`, with the experiments of :mod:`.experiments`), or says figures of
  another experiment come from one run (:mod:`.sameruns`).
"""

from __future__ import annotations

from ..models import Article
from ..report import Finding
from .baselines import check_baselines
from .conflations import SEPARATION_RE, check_conflations, conflations
from .credits import agent_names, check_desk_claims, check_unattributed
from .experiments import Experiment, experiments_of
from .normalisers import check_normalisers
from .qualifiers import check_parameters, check_statistics, check_subjects, check_tags
from .sameruns import check_one_run_claims
from .tracing import TracedFigure
from .vocabulary import DEFAULT_VOCABULARY, metric_family, vocabularies
from .wording import check_vocabulary

__all__ = [
    "DEFAULT_VOCABULARY",
    "SEPARATION_RE",
    "Experiment",
    "agent_names",
    "check_labels",
    "conflations",
    "experiments_of",
    "metric_family",
    "vocabularies",
]


def check_labels(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """Mislabeled, unattributed, desk-claimed and conflated figures of the body, in the order
    the findings have always been reported."""
    joined = check_conflations(article, traced)
    claimed = [f for f in check_one_run_claims(article, traced)
               if not any(_overlap(f, g) for g in joined)]
    return (check_vocabulary(article, traced) + check_statistics(article, traced)
            + check_baselines(article, traced) + check_parameters(article, traced)
            + check_tags(article, traced) + check_subjects(article, traced)
            + check_normalisers(article, traced)
            + check_unattributed(article, traced)
            + check_desk_claims(article, traced) + joined + claimed)


def _overlap(a: Finding, b: Finding) -> bool:
    return a.line == b.line and a.column is not None and b.column is not None and (
        a.end_column is not None and b.end_column is not None
        and a.column < b.end_column and b.column < a.end_column)
