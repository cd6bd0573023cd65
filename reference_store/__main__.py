"""``python -m reference_store``: the same as the ``reference-store`` console script."""

import sys

from reference_store.cli import main

if __name__ == "__main__":
    sys.exit(main())
