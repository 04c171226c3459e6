"""Command-line programs, run with ``python -m site_build.commands.<name>``."""
