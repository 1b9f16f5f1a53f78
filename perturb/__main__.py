"""``python -m perturb``."""

from perturb.cli import main

main()
