"""Bundled examples for perturb: a rule-based travel-desk agent for ``tasks/travel.jsonl``."""
