"""``python -m ordergate`` is the ``ordergate`` command."""

from ordergate.cli import main

main()
