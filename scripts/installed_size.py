"""Print the installed size of every distribution in the running environment, pip and setuptools
aside (they come with any virtualenv): ``venv/bin/python scripts/installed_size.py``.

The last line is ``installed size: N.N MB (K distributions)``; .ci/run and
tests/test_packaging.py read it for the base install, which must stay under 60 MB.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import sys

TOOLING = {"pip", "setuptools", "wheel"}


def sizes() -> dict[str, int]:
    """Bytes on disk per distribution, from each one's RECORD."""
    out: dict[str, int] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name.lower() in TOOLING:
            continue
        total = 0
        for file in dist.files or []:
            path = str(dist.locate_file(file))
            if os.path.isfile(path):
                total += os.path.getsize(path)
        out[name] = total
    return out


def main() -> int:
    found = sizes()
    for name, size in sorted(found.items(), key=lambda kv: -kv[1]):
        print(f"{size / 1e6:8.1f} MB  {name}")
    print(f"installed size: {sum(found.values()) / 1e6:.1f} MB ({len(found)} distributions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
