"""Import vLLM's multi-turn benchmark conversation files as a trace.

``benchmarks/multi_turn`` in vLLM reads a JSON list of conversations, each
``{"id": str, "messages": [{"role": "system"|"user"|"assistant", "content": str}, ...]}`` (the
shape its ``convert_sharegpt_to_openai.py`` writes). Each user message becomes a turn: the whole
conversation so far is carried over, the user message is new, and the following assistant
message's length is the output length. A leading system message becomes a shared prefix, and
conversations with the same system text share the same prefix.

Text is not tokenised by a real tokenizer here (none is bundled): a message counts as
``ceil(utf8_bytes / bytes_per_token)`` tokens, 4 bytes per token by default, roughly what BPE
tokenizers give on English. The trace keeps only counts, as every trace does.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from replay.trace import Session, SharedPrefix, Trace, Turn

__all__ = ["ConversationFormatError", "import_conversations", "load_conversations"]


class ConversationFormatError(ValueError):
    """The file is not a conversation list; the message names the item and field."""


def _count(text: Any, where: str, bytes_per_token: float) -> int:
    if not isinstance(text, str):
        raise ConversationFormatError(f"{where}.content: must be a string")
    return max(1, math.ceil(len(text.encode()) / bytes_per_token))


def _session(i: int, conv: Any, prefixes: dict[str, SharedPrefix], *, bytes_per_token: float,
             default_output: int) -> Session | None:
    where = f"[{i}]"
    if not isinstance(conv, dict) or not isinstance(conv.get("messages"), list):
        raise ConversationFormatError(f"{where}: expected an object with a 'messages' list")
    msgs = conv["messages"]
    for j, m in enumerate(msgs):
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant"):
            raise ConversationFormatError(f"{where}.messages[{j}].role: must be system, user or assistant")
    prefix_id, context = None, 0
    if msgs and msgs[0]["role"] == "system":
        text = msgs[0].get("content")
        n = _count(text, f"{where}.messages[0]", bytes_per_token)
        prefix_id = "system-" + hashlib.sha256(str(text).encode()).hexdigest()[:12]
        prefixes.setdefault(prefix_id, SharedPrefix(id=prefix_id, tokens=n))
        context, msgs = n, msgs[1:]
    turns: list[Turn] = []
    for j, m in enumerate(msgs):
        if m["role"] != "user":
            continue
        new = _count(m.get("content"), f"{where}.messages[{j}]", bytes_per_token)
        nxt = msgs[j + 1] if j + 1 < len(msgs) else None
        out = (_count(nxt.get("content"), f"{where}.messages[{j + 1}]", bytes_per_token)
               if nxt is not None and nxt["role"] == "assistant" else default_output)
        turns.append(Turn(carried_tokens=context, new_tokens=new, output_tokens=out))
        context += new + out
    if not turns:
        return None
    return Session(id=str(conv.get("id", f"conv{i}")), prefix_id=prefix_id, turns=turns)


def import_conversations(data: Any, *, name: str = "vllm-multi-turn", vocab_size: int = 4096,
                         bytes_per_token: float = 4.0, default_output_tokens: int = 16) -> Trace:
    """Build a trace from a parsed conversation list (conversations without a user turn skipped).

    Raises:
        ConversationFormatError: not a list of conversations, or a malformed message (named by position).
    """
    if not isinstance(data, list) or not data:
        raise ConversationFormatError("conversation file: the top level must be a non-empty JSON list")
    prefixes: dict[str, SharedPrefix] = {}
    sessions: list[Session] = []
    seen: set[str] = set()
    for i, conv in enumerate(data):
        s = _session(i, conv, prefixes, bytes_per_token=bytes_per_token,
                     default_output=default_output_tokens)
        if s is None:
            continue
        if s.id in seen:
            s = s.model_copy(update={"id": f"{s.id}#{i}"})
        seen.add(s.id)
        sessions.append(s)
    if not sessions:
        raise ConversationFormatError("conversation file: no conversation has a user message")
    return Trace(name=name, kind="vllm_multiturn", vocab_size=vocab_size,
                 prefixes=list(prefixes.values()), sessions=sessions)


def load_conversations(path: str | Path, **kwargs: Any) -> Trace:
    """Read a conversation file and import it (see :func:`import_conversations`).

    Raises:
        ConversationFormatError: unreadable or malformed file.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConversationFormatError(f"{p}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ConversationFormatError(f"{p}: not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") \
            from None
    kwargs.setdefault("name", p.stem)
    return import_conversations(data, **kwargs)
