"""Compilation behaviour of the kernels and the numpy fallback (core.sensitivity.kernels)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from core import sensitivity as cs
from tests.conftest import skip_unless

ROOT = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------------------------------
# Compilation behaviour and the numpy fallback
# ---------------------------------------------------------------------------------------


def _run(code: str) -> str:
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_import_does_not_compile_and_warm_up_does():
    """Skipped without numba, except under CI, where a missing numba fails the test.

    Break it on purpose: run with ``CI=1`` and numba hidden (``sys.modules["numba"] = None``
    before ``core.sensitivity`` is imported): the test fails instead of skipping.
    """
    skip_unless(cs.HAVE_NUMBA, "numba is installed (the compiled smooth-sensitivity kernels)")
    out = _run(
        """
        import core.sensitivity as cs
        print(len(cs._smooth_core.signatures), len(cs._batch_core.signatures))
        cs.warm_up()
        print(len(cs._smooth_core.signatures), len(cs._batch_core.signatures))
        """
    )
    before, after = out.split("\n")[:2]
    assert before == "0 0"
    assert after == "1 1"


def test_works_without_numba():
    out = _run(
        """
        import sys
        sys.modules["numba"] = None  # makes `import numba` raise ImportError
        import numpy as np
        import core.sensitivity as cs
        from tests.core import reference_sensitivity as ref
        assert not cs.HAVE_NUMBA
        cs.warm_up()
        rng = np.random.default_rng(1)
        worst = 0.0
        for n in (1, 2, 7, 100, 501):
            for eps in (1e-6, 0.1, 2.0, 500.0):
                for y in (rng.uniform(0, 3, n), rng.integers(0, 4, n).astype(float)):
                    got = cs.smooth_sensitivity_median(y, eps, 1e-3, 0.0, 3.0)
                    want = ref.smooth_sensitivity_pairs(y, eps, 1e-3, 0.0, 3.0)
                    worst = max(worst, abs(got - want) / max(want, 1e-300))
        s = np.sort(rng.uniform(0, 3, (4, 11)), axis=1)
        b = cs.smooth_sensitivity_median_batch(s, [0.1, 1.0, 2.0, 3.0], 1e-3, 0.0, 3.0)
        for r in range(4):
            want = ref.smooth_sensitivity_pairs(s[r], [0.1, 1.0, 2.0, 3.0][r], 1e-3, 0.0, 3.0)
            worst = max(worst, abs(b[r] - want) / want)
        print(worst)
        """
    )
    assert float(out.strip()) <= 1e-12
