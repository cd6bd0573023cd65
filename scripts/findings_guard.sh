#!/usr/bin/env bash
# Guard for speed work on `ledger verify`: every finding on the corpus and the seed must be
# byte-identical before and after. Runs scripts/findings_dump.py in a checkout of BASE
# (default: the merge base of HEAD and main, so accuracy work landing on main meanwhile does not
# count) and in this working tree, both on this tree's corpus, and compares the outputs.
#   scripts/findings_guard.sh [BASE]      exit 0 when identical
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
base=${1:-$(git -C "$here" merge-base HEAD main)}
tmp=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$here" worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
cp "$here/scripts/findings_dump.py" "$tmp/base/scripts/findings_dump.py"
"$python" "$tmp/base/scripts/findings_dump.py" --root "$here" > "$tmp/before.txt"
"$python" "$here/scripts/findings_dump.py" --root "$here" > "$tmp/after.txt"
out=${GUARD_OUT:-$here/.guard}
mkdir -p "$out" && cp "$tmp/before.txt" "$tmp/after.txt" "$out/"
echo "base $base: $(wc -l < "$tmp/before.txt") findings; this tree: $(wc -l < "$tmp/after.txt")"
if cmp -s "$tmp/before.txt" "$tmp/after.txt"; then
    echo "identical"
else
    diff "$tmp/before.txt" "$tmp/after.txt" | head -40
    exit 1
fi
