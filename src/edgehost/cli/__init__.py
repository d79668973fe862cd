"""Terminal commands. Each module registers its subcommands with ``register(subparsers)``."""
