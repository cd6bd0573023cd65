"""``python -m reference_store.replay``."""

from reference_store.replay.cli import main

raise SystemExit(main())
