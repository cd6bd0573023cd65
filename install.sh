#!/usr/bin/env bash
# Installs everything into .venv from nothing: the CPU build of PyTorch first (a bare `torch`
# requirement would pull a multi-GB CUDA build), then the project with every extra (dev includes
# all but mooncake) and the
# real Mooncake Store (optional extra; it needs Debian's libibverbs1 to load).
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3.11}

if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libibverbs\.so\.1'; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "install: adding libibverbs1 (Mooncake's Transfer Engine loads it)"
    (apt-get update -qq && apt-get install -y -qq libibverbs1 >/dev/null) \
      || echo "install: libibverbs1 unavailable; Mooncake comparisons will be skipped"
  else
    echo "install: libibverbs1 missing and not root; Mooncake comparisons will be skipped"
  fi
fi

# Debian's Chromium, for the browser tests of the fact-check report (best effort: without it
# those tests are skipped with the reason; Playwright's own browser download is not used).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "install: adding chromium (the fact-check report's browser tests drive it)"
    (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) \
      || echo "install: chromium unavailable; the report's browser tests will be skipped"
  else
    echo "install: chromium missing and not root; the report's browser tests will be skipped"
  fi
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e '.[dev,mooncake]' \
  || .venv/bin/python -m pip install -q -e '.[dev]'
# vLLM's own hashing modules, for the byte-for-byte key cross-check (best effort)
.venv/bin/python scripts/fetch_vllm_hashing.py || true
.venv/bin/ledger verify claims/ >/dev/null && echo "install: done; try: .venv/bin/ledger verify claims/"
