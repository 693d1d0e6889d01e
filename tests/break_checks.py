"""Break the code on purpose, in a copy, and show that the tests named for each bug catch it.

Not collected by pytest (the name does not start with ``test_``). Run from the project root::

    python tests/break_checks.py            # every break
    python tests/break_checks.py xsrf cache # only the breaks whose name contains a word
    python tests/break_checks.py --control  # also run each test on an unbroken copy

For each break the repository is copied to a temporary directory (without .venv, .git and
artifacts), one replacement is applied to one file of the copy, and the relevant tests are run
there with ``CI=1`` (the derandomised Hypothesis profile, no silent skips). A break is
"caught" when pytest reports failing tests (exit code 1), "missed" when they pass; any other
exit code (collection error, no tests selected) is reported as such. With ``--control`` the
same tests also run on an unbroken copy, which must pass.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "artifacts", ".hypothesis", ".pytest_cache", "__pycache__", ".ruff_cache"
)


@dataclasses.dataclass(frozen=True)
class Break:
    """One deliberate bug: replace ``old`` (exactly once) by ``new`` in ``path``."""

    name: str
    item: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()


BREAKS: tuple[Break, ...] = (
    Break(
        name="xsrf-off",
        item="1 XSRF",
        path=".streamlit/config.toml",
        old="[server]\n",
        new="[server]\nenableXsrfProtection = false\n",
        tests=(
            "tests/e2e/test_security.py::test_upload_endpoint_refuses_a_request_without_xsrf_token",
        ),
    ),
    Break(
        name="cache-key-population-page",
        item="2 cache isolation",
        path="app_pages/overview.py",
        old="histogram_data(pop.content_hash, pop, int(bins), bool(log_x))",
        new='histogram_data("constant", pop, int(bins), bool(log_x))',
        tests=(
            "tests/pages/test_cache_isolation.py::"
            "test_no_session_or_population_sees_another_ones_cached_numbers"
            "[app_pages/overview.py]",
        ),
    ),
    Break(
        name="cache-key-gains-experiment",
        item="2 cache isolation",
        path="ui/gains_cache.py",
        old="    key = (\n        pop.content_hash,\n",
        new='    key = (\n        "constant",\n',
        tests=(
            "tests/pages/test_cache_isolation.py::"
            "test_no_session_or_population_sees_another_ones_cached_numbers"
            "[app_pages/gains.py]",
        ),
    ),
    Break(
        name="memory-keeps-every-upload",
        item="3 bounds",
        path="ui/upload.py",
        old="    use_uploaded_population(pop)\n",
        new=(
            "    use_uploaded_population(pop)\n"
            '    globals().setdefault("_KEPT", []).append((bytes(data), pop))\n'
        ),
        tests=("tests/e2e/test_robustness.py::test_memory_stays_bounded_over_many_uploads",),
    ),
    Break(
        name="url-seed-not-reproduced",
        item="4 URL reproduction",
        path="ui/state.py",
        old='        key=SEED_KEY,\n        bind="query-params",\n',
        new="        key=SEED_KEY,\n",
        tests=("tests/e2e/test_robustness.py::test_copied_url_reproduces_inputs_and_chart_data",),
    ),
    Break(
        name="settle-returns-before-rerun",
        item="5 settle",
        path="tests/e2e/helpers.py",
        old="start_timeout: float = 5.0",
        new="start_timeout: float = 0.0",
        tests=("tests/e2e/test_robustness.py::test_settle_waits_for_a_rerun_that_starts_late",),
    ),
    Break(
        name="exp-overflow-threshold",
        item="5 hypothesis boundaries",
        path="core/amplification.py",
        old="_EXP_SAFE = 700.0",
        new="_EXP_SAFE = 710.0",
        tests=("tests/core/test_amplification.py",),
        env=(("HYPOTHESIS_PROFILE", "ci"),),
    ),
    Break(
        name="numba-missing-under-ci",
        item="5 no silent skips",
        path="core/sensitivity.py",
        old="    import numba as _numba\n",
        new="    raise ImportError('numba hidden on purpose')\n",
        tests=("tests/core/test_sensitivity.py::test_import_does_not_compile_and_warm_up_does",),
    ),
    Break(
        name="opendp-missing-under-ci",
        item="5 no silent skips",
        path="tests/core/test_amplification.py",
        old='require_module("opendp.prelude")',
        new='require_module("opendp_not_installed.prelude")',
        tests=("tests/core/test_amplification.py::test_opendp_population_amplification",),
    ),
    Break(
        name="drawn-noise-variance-10pct",
        item="6 Monte Carlo",
        path="core/gains.py",
        old="noise = d.z[j] * (2.0 * s / eps_s)",
        new="noise = d.z[j] * (2.0 * s / eps_s) * 1.1**0.5",
        tests=("tests/core/test_gains.py::test_estimators_agree_within_monte_carlo_error",),
    ),
    Break(
        name="extremes-statistical-broadcast",
        item="issue 11 extremes",
        path="ui/statistical_cache.py",
        old='"delta": np.maximum(plus, minus),',
        new='"delta": np.maximum(plus, minus[:-1]),',
        tests=(
            "tests/pages/test_extremes.py::"
            "test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message"
            "[statistical.py:page:lognormal]",
        ),
    ),
    Break(
        name="extremes-strata-toggle",
        item="issue 11 extremes",
        path="ui/strata_figures.py",
        old="customdata=np.column_stack([custom, m_i, rate])",
        new="customdata=np.column_stack([custom, m_i, rate[: len(rate) - show_rates]])",
        tests=(
            "tests/pages/test_extremes.py::"
            "test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message"
            "[strata.py:page:strata+clusters]",
        ),
    ),
    Break(
        name="extremes-strata-neighbour-message",
        item="issue 11 extremes",
        path="ui/strata_cache.py",
        old="new_value=new_value,",
        new="new_value=new_value + (np.ones(2) + np.ones(3)).sum(),",
        tests=(
            "tests/pages/test_extremes.py::"
            "test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message"
            "[strata.py:Privacy:strata+clusters]",
        ),
    ),
    Break(
        name="corpus-labels-not-sorted",
        item="issue 11 corpus",
        path="core/populations.py",
        old="cells = table.frame[column].to_numpy(dtype=object)[usable][order]",
        new="cells = table.frame[column].to_numpy(dtype=object)[usable]",
        tests=("tests/core/test_populations.py::test_corpus_case[thousands_separators]",),
    ),
    Break(
        name="corpus-error-without-reason",
        item="issue 11 corpus",
        path="core/populations.py",
        old='"This looks like a binary file (it contains NUL bytes), not a CSV text file."',
        new='"This file cannot be used."',
        tests=("tests/core/test_populations.py::test_corpus_case[nul_bytes]",),
    ),
    Break(
        name="examples-strata-exp-threshold",
        item="issue 11 @example boundaries",
        path="core/strata.py",
        old="_EXP_SAFE = 700.0",
        new="_EXP_SAFE = 710.0",
        tests=("tests/core/test_strata.py::test_proportional_bound_matches_60_digit_reference",),
        env=(("HYPOTHESIS_PROFILE", "ci"),),
    ),
)


def _copy_repo(dest: Path) -> Path:
    target = dest / "repo"
    shutil.copytree(ROOT, target, ignore=IGNORE, symlinks=True)
    return target


def _apply(repo: Path, brk: Break) -> None:
    path = repo / brk.path
    text = path.read_text()
    count = text.count(brk.old)
    if count != 1:
        raise SystemExit(f"{brk.name}: expected the text once in {brk.path}, found {count} times")
    path.write_text(text.replace(brk.old, brk.new))


def _pytest(repo: Path, brk: Break) -> tuple[int, float, str]:
    env = {**os.environ, "CI": "1", **dict(brk.env)}
    env.pop("PYTEST_ADDOPTS", None)
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *brk.tests, "-q", "-x", "-p", "no:cacheprovider"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    return run.returncode, time.perf_counter() - t0, lines[-1] if lines else run.stderr[-200:]


def _verdict(code: int) -> str:
    return {0: "MISSED", 1: "caught"}.get(code, f"error (pytest exit {code})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("words", nargs="*", help="run only breaks whose name contains a word")
    parser.add_argument("--control", action="store_true", help="also run on an unbroken copy")
    args = parser.parse_args()
    chosen = [b for b in BREAKS if not args.words or any(w in b.name for w in args.words)]
    results = []
    for brk in chosen:
        with tempfile.TemporaryDirectory(prefix="break-") as tmp:
            repo = _copy_repo(Path(tmp))
            if args.control:
                code, secs, last = _pytest(repo, brk)
                status = "passes" if code == 0 else f"FAILS (exit {code})"
                print(f"  control {brk.name}: unbroken copy {status} in {secs:.0f} s: {last}")
            _apply(repo, brk)
            code, secs, last = _pytest(repo, brk)
        verdict = _verdict(code)
        results.append(verdict == "caught")
        print(f"[{verdict:>6}] {brk.item:<24} {brk.name:<28} {secs:5.0f} s  {last}", flush=True)
    print(f"{sum(results)} of {len(results)} breaks caught")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
