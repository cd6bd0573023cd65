"""Guardrails matched by meaning: lemmas and a small synonym table instead of exact strings,
and prose guardrails the structured rules cannot hold.

The concepts live in three modules; this one keeps the names other modules import from it:

* :mod:`.lemmas`: :func:`find_lemmas` finds a term in any of its forms, by a crude documented
  stemmer plus :data:`SYNONYMS`;
* :mod:`.prose_rules`: :func:`prose_rule` reads a present-as or credit-to rule from a
  guardrail's prose;
* :mod:`.prose_checks`: :func:`check_prose_rule` warns where a sentence breaks such a rule.
"""

from __future__ import annotations

from .lemmas import SYNONYMS, find_lemmas
from .lemmas import _same_word as _same_word
from .prose_checks import _distinctive as _distinctive
from .prose_checks import _owns as _owns
from .prose_checks import check_prose_rule
from .prose_rules import _NEGATED_BEFORE as _NEGATED_BEFORE
from .prose_rules import ProseRule, prose_rule
from .prose_rules import _content as _content
from .prose_rules import _result_values as _result_values
from .prose_rules import _values as _values

__all__ = ["SYNONYMS", "ProseRule", "check_prose_rule", "find_lemmas", "prose_rule"]
