"""JSON Schemas generated from the models, and loading of documents with located findings.

``schemas/*.schema.json`` are generated from :mod:`ledger.models` (draft 2020-12) and committed,
so that tools outside Python can validate articles with any JSON Schema library.
:func:`check_schemas` reports drift; :func:`export_schemas` rewrites the files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import DocumentError, SchemaDriftError
from .jsonsafe import UnsafeJSON, loads_strict
from .models import Article, Run
from .report import Finding, Severity

__all__ = [
    "SCHEMA_BASE_URI",
    "SCHEMA_DIR",
    "SCHEMA_MODELS",
    "build_schema",
    "build_schemas",
    "check_schemas",
    "export_schemas",
    "load_article",
    "pointer",
    "read_json",
    "validation_findings",
]

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
#: ``.invalid`` is reserved (RFC 2606): the ids name the schemas without pretending to be URLs.
SCHEMA_BASE_URI = "https://kv-evidence-ledger.invalid/schemas/"
SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "article.schema.json": Article,
    "run.schema.json": Run,
}
_DESCRIPTIONS = {
    "article.schema.json": "An article of the research desk: facts tied to sources, inferences with "
    "their arithmetic, guardrails, benchmark scope, ledger measurements and the body text.",
    "run.schema.json": "A dated, reproducible measurement run recorded in the evidence ledger.",
}


def build_schema(filename: str, model: type[BaseModel]) -> dict[str, Any]:
    body = model.model_json_schema(mode="validation")
    head = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_BASE_URI + filename,
        "title": body.pop("title", model.__name__),
        "description": _DESCRIPTIONS.get(filename) or body.get("description", ""),
    }
    body.pop("description", None)
    return head | body


def build_schemas() -> dict[str, dict[str, Any]]:
    return {name: build_schema(name, model) for name, model in SCHEMA_MODELS.items()}


def _render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def export_schemas(directory: Path = SCHEMA_DIR) -> list[Path]:
    """Write every schema file; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in build_schemas().items():
        path = directory / name
        path.write_text(_render(schema), encoding="utf-8")
        written.append(path)
    return written


def check_schemas(directory: Path = SCHEMA_DIR) -> list[str]:
    """Names of committed schema files that are missing or differ from the models."""
    drifted = []
    for name, schema in build_schemas().items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != _render(schema):
            drifted.append(name)
    return drifted


def assert_no_drift(directory: Path = SCHEMA_DIR) -> None:
    drifted = check_schemas(directory)
    if drifted:
        raise SchemaDriftError(
            f"schemas out of date: {', '.join(drifted)}; run `ledger schema export`"
        )


def pointer(loc: tuple[int | str, ...]) -> str:
    """RFC 6901 pointer for a pydantic error location."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in loc]
    return "/" + "/".join(parts) if parts else ""


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r} in one object")
        seen[key] = value
    return seen


def read_json(path: str | Path) -> Any:
    """Parse a JSON file, raising :class:`DocumentError` with line and column on any problem."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DocumentError(name, "no such file") from None
    except IsADirectoryError:
        raise DocumentError(name, "is a directory, not a JSON file") from None
    except UnicodeDecodeError as exc:
        raise DocumentError(name, f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise DocumentError(name, f"cannot read: {exc.strerror}") from None
    try:
        return loads_strict(text, object_pairs_hook=_reject_duplicate_keys)
    except UnsafeJSON as exc:  # non-finite numbers, deep nesting, lone surrogates
        raise DocumentError(name, f"refused: {exc.message}", exc.line, exc.column) from None
    except json.JSONDecodeError as exc:
        raise DocumentError(name, f"malformed JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except ValueError as exc:  # duplicate key; json does not say where
        raise DocumentError(name, f"malformed JSON: {exc}") from None


def validation_findings(exc: ValidationError) -> list[Finding]:
    findings = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        message = err["msg"]
        if err["type"] == "value_error" and "unknown field(s)" in message:
            message = message.removeprefix("Value error, ")
        findings.append(Finding(Severity.error, "schema", message, pointer(loc)))
    return findings


def load_article(path: str | Path) -> tuple[Article | None, list[Finding]]:
    """Load and validate an article. Raises :class:`DocumentError` for unreadable files;
    returns ``(None, findings)`` when the JSON is well-formed but does not fit the model."""
    data = read_json(path)
    if not isinstance(data, dict):
        return None, [Finding(Severity.error, "schema", "an article must be a JSON object", "")]
    try:
        return Article.model_validate_json(json.dumps(data)), []
    except ValidationError as exc:
        return None, validation_findings(exc)
