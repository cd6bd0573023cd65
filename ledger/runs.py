"""Recording measurement runs: the API the replay harness (and ``ledger ingest-bench``) calls.

A run moves from ``running`` to ``finished`` or ``failed``; once it leaves ``running`` it is
sealed and any further change raises :class:`~ledger.errors.SealedRunError`. Each change is a new
log entry holding the whole run record (a new *revision*); nothing is updated in place.

Quick use::

    from ledger.db import Ledger
    from ledger.runs import RunRecorder

    with Ledger.open("ledger.db") as ledger:
        with RunRecorder(ledger, command=sys.argv, parameters=config, seed=7) as rec:
            ...                                   # measure
            rec.metric("ttft_ms", 41.5, unit="ms", aggregation="p50", sample_count=200)
            rec.agent_fields["routing_policy"] = "prefix-affinity"
            rec.add_output("trace", Path("trace.jsonl"))
        print(rec.run_id)                         # sealed: finished, or failed if it raised

Or, with a complete record in hand (an imported benchmark result)::

    run_id = ledger.record_run(Run(id=..., status=RunStatus.finished, ...))
    ledger.get_run(run_id); ledger.list_runs()

The recorder captures the environment (Python, OS, CPU, memory, GPUs, torch and other package
versions) and the git commit with its dirty flag; see :func:`capture_environment` and
:func:`git_state`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import platform
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa
from pydantic import ValidationError
from sqlalchemy import Connection

from .errors import DocumentError, NotFound, SealedRunError, UsageError
from .log import Appender
from .models import Run, RunMetric, RunStatus, VerificationLevel
from .tables import LogEntry, RunMetricRow, RunRow, sql_table

if TYPE_CHECKING:
    from .db import Ledger

__all__ = [
    "DEFAULT_PACKAGES",
    "LATEST",
    "RunRecorder",
    "add_metrics",
    "capture_environment",
    "diff_runs",
    "digest_bytes",
    "digest_file",
    "finish_run",
    "get_run",
    "git_state",
    "import_run",
    "list_runs",
    "load_run_file",
    "machine_load",
    "new_run_id",
    "operator",
    "record_run",
    "run_document",
    "run_projection_rows",
]

logger = logging.getLogger(__name__)

#: Packages whose versions a run records (those installed).
DEFAULT_PACKAGES = (
    "kv-evidence-ledger", "torch", "numpy", "pydantic", "sqlmodel", "sqlalchemy", "httpx",
    "mooncake-transfer-engine-non-cuda", "mooncake-transfer-engine", "vllm", "sglang", "lmcache",
    "transformers",
)
_RUN_TABLE, _METRIC_TABLE = sql_table(RunRow), sql_table(RunMetricRow)


def new_run_id(now: dt.datetime | None = None) -> str:
    """``run-20261129T203100Z-1a2b3c4d``: sortable by time, unique by its random tail."""
    now = now or dt.datetime.now(dt.UTC)
    return f"run-{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(4)}"


def digest_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest_file(path: str | Path) -> str:
    """``sha256:<hex>`` of a file's bytes. Raises :class:`UsageError` if it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError as exc:
        raise UsageError(f"cannot read {path} to digest it: {exc.strerror}") from exc
    return "sha256:" + h.hexdigest()


# --- environment --------------------------------------------------------------------------------


def _run_quiet(args: Sequence[str], cwd: str | Path | None = None) -> str | None:
    try:
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state(cwd: str | Path | None = None) -> tuple[str | None, bool | None]:
    """``(commit, dirty)`` of the git work tree at ``cwd``; ``(None, None)`` outside one."""
    commit = _run_quiet(["git", "rev-parse", "HEAD"], cwd)
    if commit is None:
        return None, None
    status = _run_quiet(["git", "status", "--porcelain", "--untracked-files=no"], cwd)
    return commit.strip(), (None if status is None else bool(status.strip()))


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _gpus() -> list[dict[str, Any]]:
    """GPUs from torch when it is already imported, else from ``nvidia-smi`` if present."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return [{"name": torch.cuda.get_device_name(i),
                 "memory_bytes": torch.cuda.get_device_properties(i).total_memory}
                for i in range(torch.cuda.device_count())]
    if shutil.which("nvidia-smi") is None:
        return []
    out = _run_quiet(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                      "--format=csv,noheader"])
    gpus = []
    for line in (out or "").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3:
            gpus.append({"name": parts[0], "memory": parts[1], "driver": parts[2]})
    return gpus


def _versions(packages: Iterable[str]) -> dict[str, str]:
    found = {}
    for name in packages:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def _machine_id() -> str | None:
    """A digest of ``/etc/machine-id`` (or the host name): identifies the machine without
    publishing the id itself."""
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text:
            return hashlib.sha256(text.encode()).hexdigest()[:16]
    node = platform.node()
    return hashlib.sha256(node.encode()).hexdigest()[:16] if node else None


def operator() -> str | None:
    """Who ran it: ``$LEDGER_OPERATOR``, else the git user's email, else the login name."""
    name = os.environ.get("LEDGER_OPERATOR") or (_run_quiet(["git", "config", "user.email"])
                                                 or "").strip()
    if name:
        return name
    try:
        import getpass
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return None


def _busy_processes(limit: int = 5) -> list[str]:
    """Names of other processes running on a CPU right now (state R in /proc), at most
    ``limit``; empty where /proc is not there."""
    names: list[str] = []
    me = os.getpid()
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit() and int(e) != me]
    except OSError:
        return names
    for entry in entries:
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name, _, rest = stat.rpartition(")")
        if rest.split()[:1] == ["R"]:
            names.append(name.partition("(")[2])
            if len(names) >= limit:
                break
    return names


def machine_load() -> dict[str, Any]:
    """The machine's load now: 1/5/15-minute load averages and other running processes."""
    try:
        averages = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        averages = []
    return {"at": dt.datetime.now(dt.UTC).isoformat(), "loadavg": averages,
            "cpu_count": os.cpu_count(), "busy_processes": _busy_processes()}


def capture_environment(packages: Iterable[str] = DEFAULT_PACKAGES) -> dict[str, Any]:
    """A description of this machine and software, for ``Run.environment``."""
    torch = sys.modules.get("torch")
    env: dict[str, Any] = {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "os": platform.system(),
        "os_release": platform.release(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "machine_id": _machine_id(),
        "operator": operator(),
        "memory_bytes": _memory_bytes(),
        "gpus": _gpus(),
        "packages": _versions(packages),
    }
    if torch is not None:
        env["torch"] = torch.__version__
        env["cuda"] = getattr(torch.version, "cuda", None)
    return env


# --- storage ------------------------------------------------------------------------------------


def _latest(conn: Connection, run_id: str) -> Any:
    t = _RUN_TABLE
    return conn.execute(sa.select(t).where(t.c.run_id == run_id)
                        .order_by(t.c.revision.desc()).limit(1)).first()


def _load(conn: Connection, row: Any) -> Run:
    entries = sql_table(LogEntry)
    payload = conn.execute(sa.select(entries.c.payload)
                           .where(entries.c.seq == row.entry_seq)).scalar_one_or_none()
    if payload is None:
        raise NotFound(f"run {row.run_id}: its log entry {row.entry_seq} is missing")
    return Run.model_validate_json(json.dumps(json.loads(payload)["data"]["run"]))


def run_projection_rows(run: Run, revision: int, seq: int,
                        new_metrics: Sequence[RunMetric]) -> dict[sa.Table, list[dict[str, Any]]]:
    """The ``runs`` row and the ``run_metrics`` rows one run revision projects (recording
    inserts these; an audit rebuilds them from the log entry and compares)."""
    return {
        _RUN_TABLE: [{
            "run_id": run.id, "revision": revision, "status": run.status.value,
            "started_at": _rfc3339(run.started_at), "ended_at": _rfc3339(run.ended_at),
            "git_commit": run.git_commit, "git_dirty": run.git_dirty,
            "verification_level": run.verification_level.value, "entry_seq": seq}],
        _METRIC_TABLE: [{
            "run_id": run.id, "revision": revision, "name": m.name,
            "aggregation": m.aggregation, "value": m.value, "unit": m.unit,
            "sample_count": m.sample_count, "entry_seq": seq} for m in new_metrics],
    }


def _store(app: Appender, run: Run, revision: int, new_metrics: Sequence[RunMetric]) -> None:
    seq = app.append("run", run.id, {"revision": revision,
                                     "run": run.model_dump(mode="json", by_alias=True)})
    for table, rows in run_projection_rows(run, revision, seq, new_metrics).items():
        if rows:
            app.conn.execute(sa.insert(table), rows)


def _rfc3339(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _revalidate(run: Run, **changes: Any) -> Run:
    """``run`` with ``changes`` applied, validated again. Raises :class:`UsageError`."""
    data = run.model_dump(mode="json", by_alias=True)
    data.update({k: v.model_dump(mode="json") if hasattr(v, "model_dump") else v
                 for k, v in changes.items()})
    try:
        return Run.model_validate_json(json.dumps(data, default=_json_default))
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = "/".join(str(p) for p in first["loc"])
        raise UsageError(f"run {run.id}: {where}: {first['msg']}") from None


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "value"):
        return value.value
    raise TypeError(f"{type(value).__name__} is not JSON")


def record_run(ledger: Ledger, run: Run) -> str:
    """Store a new run (any status; a finished or failed one is sealed at once); returns its id.

    Raises :class:`SealedRunError` if a sealed run with this id exists, :class:`UsageError` if a
    running one does (change it with :func:`add_metrics` / :func:`finish_run`).
    """
    with ledger.write() as app:
        existing = _latest(app.conn, run.id)
        if existing is not None:
            if existing.status != RunStatus.running.value:
                raise SealedRunError(f"run {run.id} is sealed ({existing.status}); record a new run")
            raise UsageError(f"run {run.id} already exists; add metrics or finish it instead")
        _store(app, run, 1, run.metrics)
    logger.info("recorded run %s (%s)", run.id, run.status.value)
    return run.id


def _change(ledger: Ledger, run_id: str, new_metrics: Sequence[RunMetric], **changes: Any) -> Run:
    with ledger.write() as app:
        row = _latest(app.conn, run_id)
        if row is None:
            raise NotFound(f"no run {run_id!r} in the ledger")
        run = _load(app.conn, row)
        if run.sealed:
            raise SealedRunError(f"run {run_id} is sealed ({run.status.value}); it cannot change")
        updated = _revalidate(run, metrics=[*run.metrics, *new_metrics], **changes)
        _store(app, updated, row.revision + 1, new_metrics)
    return updated


def add_metrics(ledger: Ledger, run_id: str, metrics: Sequence[RunMetric]) -> Run:
    """Append metrics to a running run. Raises :class:`SealedRunError`, :class:`NotFound`,
    :class:`UsageError` (a metric with the same name and aggregation is already recorded)."""
    return _change(ledger, run_id, metrics)


def finish_run(ledger: Ledger, run_id: str, *, status: RunStatus = RunStatus.finished,
               ended_at: dt.datetime | None = None, metrics: Sequence[RunMetric] = (),
               **changes: Any) -> Run:
    """Seal a running run as ``finished`` (or ``failed``), optionally adding metrics and other
    fields (``outputs``, ``agent_fields``, ``error``, ...) in the same entry.

    Raises :class:`SealedRunError`, :class:`NotFound`, :class:`UsageError`.
    """
    if status is RunStatus.running:
        raise UsageError("finish_run needs a final status: finished or failed")
    ended = ended_at or dt.datetime.now(dt.UTC)
    return _change(ledger, run_id, metrics, status=status.value, ended_at=ended.isoformat(),
                   **changes)


def load_run_file(path: str | Path) -> Run:
    """A run file (``ledger runs export``, or the replay harness's ``--run-file``). Raises
    :class:`DocumentError` naming the file and the first problem."""
    from .schema import read_json, validation_findings

    data = read_json(path)
    try:
        return Run.model_validate_json(json.dumps(data))
    except ValidationError as exc:
        first = validation_findings(exc)[0]
        raise DocumentError(str(path), f"not a run record: {first.pointer or '/'}: "
                                       f"{first.message}") from None


def import_run(ledger: Ledger, run: Run) -> str:
    """Store a run read from a run file: ``"recorded"``, or ``"unchanged"`` when the identical
    run is already there. Raises :class:`SealedRunError` when a different run has its id."""
    try:
        stored = ledger.get_run(run.id)
    except NotFound:
        ledger.record_run(run)
        return "recorded"
    if stored.model_dump(mode="json") != run.model_dump(mode="json"):
        raise SealedRunError(f"run {run.id} is already in the ledger with different content; "
                             "a sealed run cannot be replaced")
    return "unchanged"


#: A run id that names the run started last, for commands typed by hand (`ledger runs show latest`).
LATEST = "latest"


def get_run(conn: Connection, run_id: str) -> Run:
    """The current revision of a run (``latest``: the run started last). Raises :class:`NotFound`."""
    if run_id == LATEST:
        t = _RUN_TABLE
        newest = conn.execute(sa.select(t.c.run_id)
                              .order_by(t.c.started_at.desc(), t.c.run_id.desc()).limit(1)).first()
        if newest is None:
            raise NotFound("no run in the ledger yet: record one with `ledger run CONFIG` or "
                           "`ledger runs import FILE`")
        run_id = newest.run_id
    row = _latest(conn, run_id)
    if row is None:
        raise NotFound(f"no run {run_id!r} in the ledger")
    return _load(conn, row)


def list_runs(conn: Connection, status: RunStatus | None = None) -> list[Run]:
    """The current revision of every run, oldest first."""
    t = _RUN_TABLE
    latest = (sa.select(t.c.run_id, sa.func.max(t.c.revision).label("revision"))
              .group_by(t.c.run_id).subquery())
    query = (sa.select(t).join(latest, sa.and_(t.c.run_id == latest.c.run_id,
                                               t.c.revision == latest.c.revision))
             .order_by(t.c.started_at, t.c.run_id))
    if status is not None:
        query = query.where(t.c.status == status.value)
    return [_load(conn, row) for row in conn.execute(query).all()]


#: Fields added with per-round spread; a run file leaves them out when they are empty, so a
#: run recorded before them exports exactly as it was written.
_OPTIONAL_RUN_FIELDS = ("machine_load", "threads")
_OPTIONAL_METRIC_FIELDS = ("samples", "spread")


def run_document(run: Run) -> dict[str, Any]:
    """The run as a JSON document (what ``ledger runs export`` writes)."""
    data = run.model_dump(mode="json")
    for key in _OPTIONAL_RUN_FIELDS:
        if not data.get(key):
            data.pop(key, None)
    for metric in data["metrics"]:
        for key in _OPTIONAL_METRIC_FIELDS:
            if metric.get(key) is None:
                metric.pop(key, None)
    return data


def diff_runs(a: Run, b: Run) -> dict[str, Any]:
    """What differs between two runs: parameters, environment, git, and each metric's ratio."""
    metrics = []
    b_metrics = {m.key: m for m in b.metrics}
    for m in a.metrics:
        other = b_metrics.get(m.key)
        ratio = (other.value / m.value) if other is not None and m.value else None
        metrics.append({"name": m.name, "aggregation": m.aggregation, "unit": m.unit,
                        "a": m.value, "b": None if other is None else other.value,
                        "ratio_b_over_a": ratio})
    a_keys = {m.key for m in a.metrics}
    metrics += [{"name": m.name, "aggregation": m.aggregation, "unit": m.unit, "a": None,
                 "b": m.value, "ratio_b_over_a": None} for m in b.metrics if m.key not in a_keys]
    return {
        "a": a.id, "b": b.id,
        "git": {"a": [a.git_commit, a.git_dirty], "b": [b.git_commit, b.git_dirty]},
        "parameters": _dict_diff(a.parameters, b.parameters),
        "environment": _dict_diff(a.environment, b.environment),
        "agent_fields": _dict_diff(a.agent_fields, b.agent_fields),
        "metrics": metrics,
    }


def _dict_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, list[Any]]:
    return {k: [a.get(k), b.get(k)] for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


# --- the recorder -------------------------------------------------------------------------------


class RunRecorder:
    """Context manager that records one run: running on enter, sealed on exit.

    On enter it captures the environment and git state and stores a ``running`` run; metrics
    given to :meth:`metric` are kept and stored on exit (or by :meth:`flush`); on exit the run
    is sealed ``finished``, or ``failed`` with the exception's text if the block raised (the
    exception still propagates). ``agent_fields``, ``outputs`` and ``inputs`` are plain dicts
    to fill in. Raises what :func:`record_run` and :func:`finish_run` raise.
    """

    def __init__(self, ledger: Ledger, *, command: Sequence[str] | None = None,
                 parameters: dict[str, Any] | None = None, run_id: str | None = None,
                 seed: int | None = None, description: str | None = None,
                 inputs: dict[str, str] | None = None,
                 agent_fields: dict[str, Any] | None = None,
                 verification_level: VerificationLevel = VerificationLevel.self_reported,
                 cwd: str | Path | None = None,
                 packages: Iterable[str] = DEFAULT_PACKAGES):
        self.ledger = ledger
        self.run_id = run_id or new_run_id()
        self.command = list(command if command is not None else sys.argv)
        self.parameters = dict(parameters or {})
        self.seed, self.description, self.cwd = seed, description, cwd
        self.inputs: dict[str, str] = dict(inputs or {})
        self.outputs: dict[str, str] = {}
        self.agent_fields: dict[str, Any] = dict(agent_fields or {})
        self.verification_level = verification_level
        self.packages = tuple(packages)
        self.threads: dict[str, int] = {}
        self._load_start: dict[str, Any] = {}
        self._pending: list[RunMetric] = []
        self.run: Run | None = None

    def __enter__(self) -> Self:
        commit, dirty = git_state(self.cwd)
        self._load_start = machine_load()
        self.run = Run(
            id=self.run_id, status=RunStatus.running,
            started_at=dt.datetime.now(dt.UTC), git_commit=commit, git_dirty=dirty,
            command=self.command, parameters=self.parameters,
            environment=capture_environment(self.packages), inputs=self.inputs,
            agent_fields=self.agent_fields, verification_level=self.verification_level,
            seed=self.seed, description=self.description)
        record_run(self.ledger, self.run)
        return self

    def metric(self, name: str, value: float, *, unit: str, aggregation: str,
               sample_count: int, description: str | None = None,
               samples: Sequence[float] | None = None,
               spread: dict[str, Any] | None = None) -> RunMetric:
        """Keep a metric for this run (with its per-round ``samples`` and their ``spread``
        when measured in rounds). Raises :class:`UsageError` for an invalid one."""
        try:
            m = RunMetric.model_validate({
                "name": name, "value": float(value), "unit": unit, "aggregation": aggregation,
                "sample_count": sample_count, "description": description,
                "samples": None if samples is None else [float(x) for x in samples],
                "spread": spread}, strict=False)
        except ValidationError as exc:
            raise UsageError(f"metric {name!r}: {exc.errors(include_url=False)[0]['msg']}") from None
        self._pending.append(m)
        return m

    def add_output(self, name: str, path: str | Path) -> str:
        """Record the digest of an output file; returns it."""
        self.outputs[name] = digest_file(path)
        return self.outputs[name]

    def add_input(self, name: str, path: str | Path) -> str:
        self.inputs[name] = digest_file(path)
        return self.inputs[name]

    def flush(self) -> Run:
        """Store the kept metrics now (the run stays running)."""
        pending, self._pending = self._pending, []
        self.run = add_metrics(self.ledger, self.run_id, pending)
        return self.run

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        failed = exc_type is not None
        pending, self._pending = self._pending, []
        self.run = finish_run(
            self.ledger, self.run_id,
            status=RunStatus.failed if failed else RunStatus.finished, metrics=pending,
            outputs=self.outputs, inputs=self.inputs, agent_fields=self.agent_fields,
            machine_load={"start": self._load_start, "end": machine_load()},
            threads=self.threads,
            error=f"{exc_type.__name__}: {exc}" if failed and exc_type else None)
