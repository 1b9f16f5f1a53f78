"""Helpers shared by perturb's own tests and docs scripts (not part of the public API)."""
