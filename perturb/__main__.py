"""``python -m perturb``."""

from .cli import main

main()
