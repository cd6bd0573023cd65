"""One module per command family; each exposes ``register(subparsers)``."""
__all__: list[str] = []
