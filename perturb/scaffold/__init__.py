"""``perturb init``: project scaffolding and the bundled example (see :mod:`perturb.scaffold.core`)."""
