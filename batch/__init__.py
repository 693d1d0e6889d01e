"""The publication plan in batch: ``python -m batch CONFIG.yaml --out DIR``.

A layer above :mod:`core` and beside :mod:`ui` (it never imports ``ui`` or Streamlit). It
reads a YAML config (:mod:`core.publication.config`), plans every cell × statistic with
:func:`core.publication.plan_table` on Dask distributed (:mod:`batch.run`; a local cluster
by default, an existing one with ``--scheduler``) and writes ``plan.csv``,
``summary.json``, ``registry.json`` and ``report.html`` (:mod:`batch.outputs`).
"""
