"""Fetch vLLM's own block-hashing modules for the cross-check in tests/test_keys.py.

vLLM cannot be installed beside our CPU torch (its wheel pins its own torch), so this downloads
the vLLM 0.33.0 wheel from the package index without dependencies and extracts only the two
modules the cross-check executes into ``.cache/vllm/vllm/``. Best effort: exits 0 with a message
when the index cannot be reached, and the cross-check then skips with its reason.

    python scripts/fetch_vllm_hashing.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

VERSION = "0.33.0"
MEMBERS = ("vllm/utils/hashing.py", "vllm/v1/core/kv_cache_utils.py")
TARGET = Path(__file__).resolve().parent.parent / ".cache" / "vllm"


def main() -> int:
    if all((TARGET / m).is_file() for m in MEMBERS):
        print(f"fetch_vllm_hashing: already in {TARGET}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
             f"vllm=={VERSION}", "-d", tmp],
            capture_output=True, text=True,
        )
        wheels = list(Path(tmp).glob("vllm-*.whl"))
        if done.returncode != 0 or not wheels:
            print(f"fetch_vllm_hashing: could not download vllm=={VERSION}; the cross-check "
                  f"will skip ({done.stderr.strip()[-200:]})")
            return 0
        with zipfile.ZipFile(wheels[0]) as wheel:
            for member in MEMBERS:
                wheel.extract(member, TARGET)
    print(f"fetch_vllm_hashing: vLLM {VERSION} hashing modules in {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
