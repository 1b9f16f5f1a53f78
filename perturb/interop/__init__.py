"""``perturb export`` and ``perturb import``: fixtures out to other eval runners, eval sets in.

``core.py`` holds the two entry points (:func:`~perturb.interop.core.export_fixtures`,
:func:`~perturb.interop.core.import_tasks`); ``formats/`` holds one module per format, each
exporting ``SPEC`` (:class:`~perturb.interop.spec.InteropSpec`): ``inspect`` (Inspect AI
JSONL samples), ``promptfoo`` (a promptfoo test file) and ``csv``. The registry is
:data:`~perturb.interop.formats.INTEROP` (entry-point group ``perturb.interop``).
"""
