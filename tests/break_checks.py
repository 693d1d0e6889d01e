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

A few entries are harmless changes the tests must *tolerate* (``tolerated=True``), such as
every chart number moved by one ulp, which another CPU's ``exp`` or ``log`` may do: such an
entry counts as caught when the tests still pass, and as a false alarm when they fail.
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
    #: A harmless change: the tests must keep passing (see the module docstring).
    tolerated: bool = False


BREAKS: tuple[Break, ...] = (
    Break(
        name="windowed-split-halves-swapped",
        item="15 windowed sampler",
        path="core/windowed/sampler.py",
        old="left = self._rng.hypergeometric(mid - b.start, b.stop - mid, b.count)",
        new="left = self._rng.hypergeometric(b.stop - mid, mid - b.start, b.count)",
        tests=("tests/core/windowed/test_sampler.py::test_subsets_are_uniform",),
    ),
    Break(
        name="windowed-certificate-halved",
        item="15 windowed sampler",
        path="core/sensitivity/kernels.py",
        old="ok[r] = s >= bound * (1.0 + 1e-12)",
        new="ok[r] = s >= bound * 0.5",
        tests=(
            "tests/core/windowed/test_sampler.py::"
            "test_unexpanded_blocks_certify_the_same_samples_sensitivity",
        ),
    ),
    Break(
        name="windowed-exponential-ignores-unknown-rest",
        item="15 windowed sampler",
        path="core/windowed/exponential.py",
        old="yes = u * (known_rest + iv.rest) < ring",
        new="yes = u * known_rest < ring",
        tests=(
            "tests/core/windowed/test_exponential.py::test_exponential_windows_have_the_exact_law",
            "tests/core/windowed/test_exponential.py::test_exponential_windows_match_whole_samples",
        ),
    ),
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
        path="ui/population/views.py",
        old="histogram_data(pop.content_hash, pop, int(bins), bool(log_x), bool(to_bounds))",
        new='histogram_data("constant", pop, int(bins), bool(log_x), bool(to_bounds))',
        tests=(
            "tests/pages/test_cache_isolation.py::"
            "test_no_session_or_population_sees_another_ones_cached_numbers"
            "[app_pages/overview.py]",
        ),
    ),
    Break(
        name="cache-key-gains-experiment",
        item="2 cache isolation",
        path="ui/gains/cache.py",
        old='    key = (\n        "experiment",\n        pop.content_hash,\n',
        new='    key = (\n        "experiment",\n        "constant",\n',
        tests=(
            "tests/pages/test_cache_isolation.py::"
            "test_no_session_or_population_sees_another_ones_cached_numbers"
            "[app_pages/gains.py]",
        ),
    ),
    Break(
        name="memory-keeps-every-upload",
        item="3 bounds",
        path="ui/population/upload.py",
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
        path="core/sensitivity/checks.py",
        old="    import numba as _numba\n",
        new="    raise ImportError('numba hidden on purpose')\n",
        tests=(
            "tests/core/sensitivity/test_kernels.py::test_import_does_not_compile_and_warm_up_does",
        ),
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
        path="core/gains/measures.py",
        old="noise = d.z[j] * mechanism.noise_scale(s, eps_s)",
        new="noise = d.z[j] * mechanism.noise_scale(s, eps_s) * 1.1**0.5",
        tests=(
            "tests/core/gains/test_measures.py::test_estimators_agree_within_monte_carlo_error",
        ),
    ),
    Break(
        name="population-median-off-by-one",
        item="3 UI numbers",
        path="ui/population/cache.py",
        old='fmt(v[mid], "value")',
        new='fmt(v[mid + 1], "value")',
        tests=(
            "tests/pages/test_overview_page.py::test_summary_numbers_of_a_builtin_with_odd_size_equal_numpys",
            "tests/pages/test_overview_page.py::test_summary_numbers_of_an_upload_with_even_size_equal_numpys",
            "tests/ui/population/test_population_figures.py::test_population_summary_numbers_equal_numpys",
        ),
    ),
    Break(
        name="population-mean-wrong",
        item="3 UI numbers",
        path="ui/population/cache.py",
        old='fmt(v.mean(), "value")',
        new='fmt(v[:-1].mean(), "value")',
        tests=(
            "tests/pages/test_overview_page.py::test_summary_numbers_of_an_upload_with_even_size_equal_numpys",
        ),
    ),
    Break(
        name="population-log-histogram-crash",
        item="3 UI numbers",
        path="ui/population/cache.py",
        old="edges = np.geomspace(lo, hi, bins + 1)",
        new="edges = np.geomspace(lo, hi, bins + 1)[::-1]",
        tests=(
            "tests/pages/test_overview_page.py::test_log_x_toggle_draws_log_spaced_bins_with_numpys_counts",
        ),
    ),
    Break(
        name="population-log-histogram-linear-bins",
        item="3 UI numbers",
        path="ui/population/cache.py",
        old="edges = np.geomspace(lo, hi, bins + 1)",
        new="edges = np.linspace(lo, hi, bins + 1)",
        tests=(
            "tests/pages/test_overview_page.py::test_log_x_toggle_draws_log_spaced_bins_with_numpys_counts",
        ),
    ),
    Break(
        name="statistical-cache-wrong-worst-case",
        item="3 UI numbers",
        path="ui/statistical/cache.py",
        old='"Gaussian noise": sp.delta_dp_gaussian(eps, nu),',
        new='"Gaussian noise": sp.delta_dp_laplace(eps, nu),',
        tests=(
            "tests/ui/statistical/test_statistical_cache.py::test_privacy_curves_equal_core_for_every_mechanism_and_worst_case",
        ),
    ),
    Break(
        name="statistical-figure-plots-half-delta",
        item="3 UI numbers",
        path="ui/statistical/figures.py",
        old='_for_log(part["delta"], log_y)',
        new='_for_log(part["delta"] / 2, log_y)',
        tests=(
            "tests/ui/statistical/test_statistical_figures.py::test_privacy_curve_figure_plots_cores_delta_of_every_mechanism",
        ),
    ),
    Break(
        name="statistical-snippet-wrong-pi",
        item="3 UI numbers",
        path="ui/statistical/text.py",
        old="sp.{func}(N, 0.5, eps, nu)",
        new="sp.{func}(N, 0.25, eps, nu)",
        tests=(
            "tests/ui/statistical/test_statistical_text.py::test_pi_snippet_prints_delta_at_pi_half_and_the_worst_case",
        ),
    ),
    Break(
        name="gains-q-curve-rate-doubled",
        item="3 UI numbers",
        path="ui/gains/figures.py",
        old='traces.append(line_trace(rates, q, f"ε_target = {e:g}", i, hover))',
        new='traces.append(line_trace(rates * 2, q, f"ε_target = {e:g}", i, hover))',
        tests=("tests/ui/gains/test_gains_figures.py::test_q_curves_and_marks_equal_core",),
    ),
    Break(
        name="gains-cache-simulation-wrong-n",
        item="3 UI numbers",
        path="ui/gains/cache.py",
        old="values, _pop.lower, _pop.upper, eps_target, n, reps, seed",
        new="values, _pop.lower, _pop.upper, eps_target, n - 1, reps, seed",
        tests=(
            "tests/ui/gains/test_gains_cache.py::test_mean_simulation_check_compares_eq_7_with_cores_simulation",
        ),
    ),
    Break(
        name="gains-vacuous-delta-off-by-rate",
        item="3 UI numbers",
        path="ui/gains/text.py",
        old="if not (delta_target / r < 1.0)",
        new="if not (delta_target * r < 1.0)",
        tests=(
            "tests/ui/gains/test_gains_text.py::test_vacuous_delta_warning_lists_exactly_the_rates_where_delta_sample_reaches_one",
        ),
    ),
    Break(
        name="steinke-vs-p-ratio-squared",
        item="3 UI numbers",
        path="ui/amplification/figures.py",
        old="y = amp.steinke_ratio(e, rates)",
        new="y = amp.steinke_ratio(e, rates) ** 2",
        tests=(
            "tests/ui/amplification/test_amplification_figures.py::test_steinke_vs_p_figure_plots_p_times_eps_p_over_eps",
        ),
    ),
    Break(
        name="amp-default-n-rounds-down",
        item="3 UI numbers",
        path="ui/amplification/text.py",
        old="math.ceil(population_size / 100)",
        new="math.floor(population_size / 100)",
        tests=(
            "tests/ui/amplification/test_amplification_text.py::test_default_sample_size_is_one_percent_rounded_up",
        ),
    ),
    Break(
        name="delta-default-one-over-n",
        item="3 UI numbers",
        path="ui/page_defaults.py",
        old="1.0 / (2.0 * int(population_size))",
        new="1.0 / (1.0 * int(population_size))",
        tests=("tests/ui/test_page_defaults.py::test_delta_target_default_is_one_over_two_n",),
    ),
    Break(
        name="overview-snippet-median-upper",
        item="3 UI numbers",
        path="ui/snippets.py",
        old="pop.values[(pop.size - 1) // 2]",
        new="pop.values[pop.size // 2]",
        tests=(
            "tests/ui/test_snippets.py::test_overview_snippet_prints_n_mean_lower_median_and_bounds",
        ),
    ),
    Break(
        name="theme-log-x-ignored",
        item="3 UI numbers",
        path="ui/theme.py",
        old='"xaxis": _axis(wrap_title(x_title, AXIS_LINE_CHARS), log_x),',
        new='"xaxis": _axis(wrap_title(x_title, AXIS_LINE_CHARS), False),',
        tests=(
            "tests/ui/test_theme.py::test_chart_layout_carries_titles_axis_types_and_grows_with_the_title",
        ),
    ),
    Break(
        name="state-builtin-ignores-seed",
        item="3 UI numbers",
        path="ui/state.py",
        old="return make_builtin(key, seed=seed)",
        new="return make_builtin(key, seed=0)",
        tests=(
            "tests/ui/test_state.py::test_builtin_population_is_cores_draw_for_the_key_and_seed",
        ),
    ),
    Break(
        name="cluster-figure-upper-is-lower",
        item="3 UI numbers",
        path="ui/clusters/figures.py",
        old="line_trace(sizes, upper, UPPER, 1, hover)",
        new="line_trace(sizes, lower, UPPER, 1, hover)",
        tests=(
            "tests/ui/clusters/test_cluster_figures.py::test_eps_vs_size_figure_plots_theorems_5_1_and_5_2",
        ),
    ),
    Break(
        name="cluster-metric-vacuous-inverted",
        item="3 UI numbers",
        path="ui/clusters/text.py",
        old='return "no amplification" if vacuous(bound, eps_sample) else fmt(',
        new='return "no amplification" if not vacuous(bound, eps_sample) else fmt(',
        tests=(
            "tests/ui/clusters/test_cluster_text.py::test_metric_value_shows_the_bound_or_no_amplification",
        ),
    ),
    Break(
        name="cluster-cache-bounds-smallest-first",
        item="3 UI numbers",
        path="ui/clusters/cache.py",
        old="ascending=[False, True]",
        new="ascending=[True, True]",
        tests=(
            "tests/ui/clusters/test_cluster_cache.py::test_population_cluster_sizes_and_bounds_equal_core",
        ),
    ),
    Break(
        name="strata-bound-help-drops-number",
        item="3 UI numbers",
        path="ui/strata/text.py",
        old='    text = fmt(bound, "guarantee", 6)',
        new='    text = ""',
        tests=("tests/ui/strata/test_strata_text.py::test_bound_value_and_help",),
    ),
    Break(
        name="extremes-statistical-broadcast",
        item="issue 11 extremes",
        path="ui/statistical/cache.py",
        old='"delta": np.maximum(plus, minus),',
        new='"delta": np.maximum(plus, minus[:-1]),',
        tests=(
            "tests/pages/test_extremes.py::"
            "test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message"
            "[statistical.py:lognormal]",
        ),
    ),
    Break(
        name="extremes-strata-toggle",
        item="issue 11 extremes",
        path="ui/strata/figures.py",
        old="customdata=np.column_stack([custom, n_i, rate])",
        new="customdata=np.column_stack([custom, n_i, rate[: len(rate) - show_rates]])",
        tests=(
            "tests/pages/test_extremes.py::"
            "test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message"
            "[strata.py:strata+clusters]",
        ),
    ),
    Break(
        name="extremes-strata-neighbour-message",
        item="issue 11 extremes",
        path="ui/strata/cache.py",
        old="new_value=new_value,",
        new="new_value=new_value + (np.ones(2) + np.ones(3)).sum(),",
        tests=(
            "tests/pages/test_extremes.py::"
            "test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message"
            "[strata.py:strata+clusters]",
        ),
    ),
    Break(
        name="corpus-labels-not-sorted",
        item="issue 11 corpus",
        path="core/csv_io/loading.py",
        old="codes = codes[order] if usable.all() else codes[usable][order]",
        new="codes = codes[: order.size] if usable.all() else codes[usable]",
        tests=("tests/core/csv_io/test_table.py::test_corpus_case[thousands_separators]",),
    ),
    Break(
        name="corpus-error-without-reason",
        item="issue 11 corpus",
        path="core/csv_io/source.py",
        old='"This looks like a binary file (it contains NUL bytes), not a CSV text file."',
        new='"This file cannot be used."',
        tests=("tests/core/csv_io/test_table.py::test_corpus_case[nul_bytes]",),
    ),
    Break(
        name="examples-strata-exp-threshold",
        item="issue 11 @example boundaries",
        path="core/strata/privacy.py",
        old="_EXP_SAFE = 700.0",
        new="_EXP_SAFE = 710.0",
        tests=(
            "tests/core/strata/test_privacy.py::test_proportional_bound_matches_60_digit_reference",
        ),
        env=(("HYPOTHESIS_PROFILE", "ci"),),
    ),
    Break(
        name="games-in-world-drawn-from-N-records",
        item="issue 16 membership game",
        path="core/games.py",
        old="log_in = _hypergeom_log_pmf(support, big_n + 1, held + 1, n)",
        new="log_in = _hypergeom_log_pmf(support, big_n, held + 1, n)",
        tests=(
            "tests/core/test_games.py::test_simple_random_worst_case_loss_is_the_closed_form",
            "tests/core/test_games.py::test_likelihood_ratio_matches_enumerating_every_sample",
        ),
    ),
    Break(
        name="games-cluster-mixture-without-1-minus-r",
        item="issue 16 membership game",
        path="core/games.py",
        old="p_in[: len(full)] += (1.0 - r) * full",
        new="p_in[: len(full)] += full",
        tests=(
            "tests/core/test_games.py::test_cluster_worst_case_loss_is_the_theorem_5_3_bound",
            "tests/core/test_games.py::test_densities_integrate_to_one",
        ),
    ),
    Break(
        name="risk-odds-times-e-eps-minus-1",
        item="issue 16 ε as odds",
        path="core/risk.py",
        old="return finish(p / (p + (1.0 - p) * np.exp(-e)), scalar)",
        new="return finish(p / (p + (1.0 - p) * np.exp(-e) * 1.01), scalar)",
        tests=("tests/core/test_risk.py",),
    ),
    Break(
        name="risk-tail-without-the-t",
        item="issue 16 ε as odds",
        path="core/risk.py",
        old="np.minimum(1.0, d / -np.expm1(-t))",
        new="np.minimum(1.0, d)",
        tests=("tests/core/test_risk.py",),
    ),
    Break(
        name="lesson-link-opens-another-state",
        item="issue 16 lessons",
        path="ui/lessons/content.py",
        old='query={"amp_view": FORWARD_TAB, "amp_eps_targets": "1"}',
        new='query={"amp_view": FORWARD_TAB, "amp_eps_targets": "2"}',
        tests=("tests/ui/lessons/test_lessons_content.py",),
    ),
    Break(
        name="upload-form-value-column-last",
        item="issue 21 upload corpus",
        path="ui/population/upload.py",
        old="index=columns.index(choice.column),",
        new="index=len(columns) - 1,",
        tests=("tests/pages/test_upload_corpus.py",),
    ),
    Break(
        name="upload-form-notes-hidden",
        item="issue 21 upload corpus",
        path="ui/population/upload.py",
        old="    for note in table.notes:\n        st.info(note",
        new="    for note in table.notes[:0]:\n        st.info(note",
        tests=("tests/pages/test_upload_corpus.py::test_corpus_file_through_the_upload_form",),
    ),
    Break(
        name="snapshot-every-chart-number-one-ulp-up",
        item="issue 21 portable snapshots",
        path="ui/charts.py",
        old='    left, right = st.columns([3, 2], gap="medium")\n',
        new=(
            "    import numpy as _np\n"
            "    for _trace in fig.data:\n"
            '        for _attr in ("x", "y", "z", "customdata"):\n'
            "            _v = getattr(_trace, _attr, None)\n"
            '            if _v is not None and _np.asarray(_v).dtype.kind == "f":\n'
            "                _trace[_attr] = _np.nextafter(_np.asarray(_v), _np.inf)\n"
            '    left, right = st.columns([3, 2], gap="medium")\n'
        ),
        tests=("tests/pages/test_restructure_snapshots.py",),
        tolerated=True,
    ),
    Break(
        name="snapshot-one-chart-value-a-millionth-off",
        item="issue 21 portable snapshots",
        path="ui/amplification/figures.py",
        old="        y = amp.eps_sample(e, rates)\n",
        new="        y = amp.eps_sample(e, rates)\n        y[len(y) // 2] *= 1 + 1e-6\n",
        tests=(
            "tests/pages/test_restructure_snapshots.py::"
            "test_charts_match_the_snapshot_recorded_before_the_restructuring[amp-forward]",
        ),
    ),
    Break(
        name="change-one-exponent-sign-flipped",
        item="issue 22 change-one accounting",
        path="core/accounting/change_one.py",
        old="b = am - sm  # in [-a, a)",
        new="b = am + sm  # in [-a, a)",
        tests=("tests/core/accounting/test_change_one.py",),
    ),
    Break(
        name="change-one-ht-mean-change-factor-1",
        item="issue 22 change-one accounting",
        path="core/mechanisms/means.py",
        old="    change_factor = 2.0\n",
        new="    change_factor = 1.0\n",
        tests=("tests/core/accounting/test_change_one.py",),
    ),
    Break(
        name="change-one-group-clamp-dropped",
        item="issue 22 change-one accounting",
        path="core/accounting/change_one.py",
        old="    s_eff = np.minimum(s, 2.0 * a)\n",
        new="    s_eff = np.array(s)\n",
        tests=(
            "tests/core/accounting/test_change_one.py::test_worst_case_mechanism_reaches_the_bound",
        ),
    ),
    Break(
        name="mean-error-cluster-fpc-dropped",
        item="issue 22 mean error",
        path="core/designs/mean_error.py",
        old="var = float(k) * k * (1.0 - ell / k) * s2t / (ell * float(N) * N)",
        new="var = float(k) * k * s2t / (ell * float(N) * N)",
        tests=("tests/core/test_mean_error.py::test_cluster_matches_enumeration",),
    ),
    Break(
        name="mean-error-rounding-variance-dropped",
        item="issue 22 mean error",
        path="core/designs/mean_error.py",
        old="between = means * means * p * (1.0 - p)",
        new="between = 0.0 * means",
        tests=(
            "tests/core/test_mean_error.py::"
            "test_stratified_randomised_rounding_matches_enumeration",
        ),
    ),
    Break(
        name="mean-error-srs-fpc-dropped",
        item="issue 22 mean error",
        path="core/designs/mean_error.py",
        old="var = (1.0 - n / N) * population.variance / n",
        new="var = population.variance / n",
        tests=("tests/core/test_mean_error.py::test_srs_matches_enumeration_and_hu_et_al_eq7",),
    ),
    Break(
        name="mean-error-poisson-about-the-mean",
        item="issue 22 mean error",
        path="core/designs/mean_error.py",
        old="squares = population.sum_squares + N * offset * offset",
        new="squares = population.sum_squares",
        tests=("tests/core/test_mean_error.py::test_poisson_matches_enumeration",),
    ),
    Break(
        name="mean-error-normal-laplace-term-sign",
        item="issue 22 mean error",
        path="core/designs/normal_laplace.py",
        old="out = out - 0.25 * special.erfcx((u + rho) / _SQRT2) * gauss",
        new="out = out + 0.25 * special.erfcx((u + rho) / _SQRT2) * gauss",
        tests=("tests/core/test_mean_error.py::test_normal_laplace_quantile_against_quadrature",),
    ),
    Break(
        name="cluster-windows-selection-rank-off-by-one",
        item="issue 22 cluster windows",
        # the bisection shared by the plain and the grid selection (cluster_grid._narrow)
        path="core/designs/cluster_grid.py",
        old="if counted >= j:",
        new="if counted >= j + 1:",
        tests=(
            "tests/core/test_cluster_windows.py::test_every_method_matches_the_whole_sample",
            "tests/core/designs/test_cluster_grid.py::"
            "test_grid_scan_and_select_equal_the_plain_kernels",
        ),
    ),
    Break(
        name="cluster-windows-block-value-range-too-narrow",
        item="issue 22 cluster windows",
        path="core/designs/cluster_windows.py",
        old="values[low_pos[br, bl]],",
        new="values[high_pos[br, bl]],",
        tests=(
            "tests/core/test_cluster_windows.py::test_blocks_certify_the_whole_samples_sensitivity",
        ),
    ),
    Break(
        name="cluster-windows-draw-favours-low-ids",
        item="issue 22 cluster windows",
        path="core/designs/cluster_windows.py",
        old="perm = rng.permuted(np.tile(np.arange(kk, dtype=np.int64), (r, 1)), axis=1)",
        # Distinct clusters still, but the low ids come first more often.
        new="perm = np.argsort(rng.random((r, kk)) * np.arange(1.0, kk + 1.0), axis=1)",
        tests=(
            "tests/core/test_cluster_windows.py::"
            "test_drawn_cluster_sets_and_medians_have_their_exact_law",
        ),
    ),
    Break(
        name="poisson-cluster-record-not-counted",
        item="issue 22 Poisson cluster design",
        path="core/designs/poisson_cluster.py",
        old="    return _log_mix(r, (m + 1) * e) - _log_mix(r, m * e)",
        new="    return _log_mix(r, (m + 0.5) * e) - _log_mix(r, m * e)",
        tests=(
            "tests/core/test_poisson_cluster.py::test_bound_holds_and_is_attained_by_a_noisy_count",
        ),
    ),
    Break(
        name="poisson-cluster-second-largest-cluster",
        item="issue 22 Poisson cluster design",
        path="core/designs/poisson_cluster.py",
        old="largest = int(frame.cluster_sizes.max())\n        k =",
        new="largest = int(np.sort(frame.cluster_sizes)[-2])\n        k =",
        tests=(
            "tests/core/test_poisson_cluster.py::test_the_worst_record_is_in_the_largest_cluster",
        ),
    ),
    Break(
        name="planner-chart-default-every-mechanism",
        item="issue 22 planner chart",
        path="ui/planner/figures.py",
        old="    if lines != ALL_LINES:\n",
        new="    if lines not in (ALL_LINES, BEST_LINES):\n",
        tests=(
            "tests/ui/planner/test_figures.py::"
            "test_default_chart_draws_one_line_per_design_with_its_best_mechanism",
        ),
    ),
    Break(
        name="planner-verdict-resolution-dropped",
        item="issue 22 planner verdict",
        path="ui/planner/compare_text.py",
        old="    exact = exact_words(result, value, resolution)\n",
        new="    exact = exact_words(result, value, None)\n",
        tests=(
            "tests/ui/planner/test_text.py::"
            "test_census_exact_to_the_resolution_is_said_so_without_ratios",
        ),
    ),
    Break(
        name="planner-verdict-ratio-to-exact-census",
        item="issue 22 planner verdict",
        path="ui/planner/compare_text.py",
        old="    census_exact = is_exact(float(result.census[key]), resolution)\n",
        new="    census_exact = False\n",
        tests=(
            "tests/ui/planner/test_text.py::test_no_e_plus_ratio_in_the_verdict_or_the_ranked_list",
        ),
    ),
    Break(
        name="planner-chart-no-floor",
        item="issue 22 planner chart",
        path="ui/planner/figures.py",
        old="        return np.maximum(np.asarray(values, dtype=float), self.floor)\n",
        new="        return np.asarray(values, dtype=float)\n",
        tests=(
            "tests/ui/planner/test_figures.py::"
            "test_bands_clip_to_the_floor_and_the_range_follows_the_errors_that_matter",
        ),
    ),
    Break(
        name="stratwin-hypergeometric-halves-swapped",
        item="issue 22 stratified windows",
        path="core/designs/stratified_windows.py",
        old="left = self._rng.hypergeometric(good, bad, b.counts)",
        new="left = self._rng.hypergeometric(bad, good, b.counts)",
        tests=(
            "tests/core/test_stratified_windows.py::test_revealed_samples_have_the_designs_exact_law",
        ),
    ),
    Break(
        name="stratwin-rounding-compared-the-wrong-way",
        item="issue 22 stratified windows",
        path="core/designs/stratified_windows.py",
        old="(np.asarray(uniforms, dtype=np.float64) < exact - base)",
        new="(np.asarray(uniforms, dtype=np.float64) > exact - base)",
        tests=(
            "tests/core/test_stratified_windows.py::test_revealed_samples_have_the_designs_exact_law",
        ),
    ),
    Break(
        name="stratwin-leaf-ranked-by-stratum",
        item="issue 22 stratified windows",
        path="core/designs/stratified_windows.py",
        old="order = np.lexsort((pos, owner))",
        new='order = np.argsort(owner, kind="stable")',
        tests=(
            "tests/core/test_stratified_windows.py::"
            "test_median_and_sensitivity_match_whole_samples_at_a_million_records",
        ),
    ),
    Break(
        name="stratwin-source-ignored",
        item="issue 22 stratified windows",
        path="core/windowed/sampler.py",
        old="    if source is None:\n        return SampleWindows(rng, N, sizes)",
        new="    if True:\n        return SampleWindows(rng, N, sizes)",
        tests=(
            "tests/core/test_stratified_windows.py::"
            "test_median_and_sensitivity_match_whole_samples_at_a_million_records",
        ),
    ),
    Break(
        name="polyplace-mode-dilation-forgotten",
        item="issue 23 quantile mechanisms",
        path="core/mechanisms/polyplace.py",
        old="return np.asarray(np.maximum(spread, mode), dtype=np.float64)",
        new="return np.asarray(spread, dtype=np.float64)",
        tests=(
            "tests/core/mechanisms/test_polyplace.py::"
            "test_density_ratio_of_changed_records_is_at_most_e_to_eps",
        ),
    ),
    Break(
        name="piecewise-laplace-rank-off-by-half",
        item="issue 23 quantile mechanisms",
        path="core/mechanisms/piecewise_laplace.py",
        old="return (sens.quantile_rank(n, quantile) - 0.5) / n",
        new="return sens.quantile_rank(n, quantile) / n",
        tests=(
            "tests/core/mechanisms/test_piecewise_laplace.py::"
            "test_law_equals_the_first_principles_reference",
        ),
    ),
    Break(
        name="unbounded-noise-scale-halved",
        item="issue 23 quantile mechanisms",
        path="core/mechanisms/unbounded.py",
        old="scale = 2.0 / float(value)",
        new="scale = 1.0 / float(value)",
        tests=(
            "tests/core/mechanisms/test_unbounded.py::"
            "test_sampler_follows_the_exact_law_and_the_literal_loop",
        ),
    ),
    Break(
        name="gains-worked-examples-unsorted",
        item="issue 27 teaching screens",
        path="ui/gains/text.py",
        old="eps = sorted({*WORKED_EPS, *(float(e) for e in eps_values)})",
        new="eps = list(dict.fromkeys([*WORKED_EPS[::-1], *(float(e) for e in eps_values)]))",
        tests=(
            "tests/pages/test_gains_page.py::"
            "test_gains_worked_examples_are_sorted_by_eps_with_one_format_per_column",
        ),
    ),
    Break(
        name="population-histogram-always-to-the-bounds",
        item="issue 27 teaching screens",
        path="ui/population/views.py",
        old="histogram_data(pop.content_hash, pop, int(bins), bool(log_x), bool(to_bounds))",
        new="histogram_data(pop.content_hash, pop, int(bins), bool(log_x), True)",
        tests=(
            "tests/pages/test_overview_page.py::"
            "test_histogram_spans_the_data_by_default_and_the_bounds_on_request",
        ),
    ),
    Break(
        name="clusters-exact-boxes-always-shown",
        item="issue 27 teaching screens",
        path="ui/widgets.py",
        old="    if exact:\n        left, right = st.columns",
        new="    if True:\n        left, right = st.columns",
        tests=(
            "tests/pages/test_clusters_page.py::"
            "test_exact_boxes_are_hidden_by_default_and_the_url_still_sets_them",
        ),
    ),
    Break(
        name="jointexp-sensitivity-halved",
        item="issue 23 several quantiles",
        path="core/mechanisms/joint_exp.py",
        old="UTILITY_SENSITIVITY = 2.0",
        new="UTILITY_SENSITIVITY = 1.0",
        tests=(
            "tests/core/mechanisms/test_joint_exp.py::"
            "test_density_ratio_of_neighbours_is_at_most_e_to_eps",
        ),
    ),
    Break(
        name="jointexp-shared-cell-volume-without-factorial",
        item="issue 23 several quantiles",
        path="core/mechanisms/joint_exp.py",
        old="stay[j, : j + 1] = -c * shared - special.gammaln(k + 1.0)",
        new="stay[j, : j + 1] = -c * shared",
        tests=(
            "tests/core/mechanisms/test_joint_exp.py::test_sampler_follows_the_brute_force_law",
        ),
    ),
    Break(
        name="runs-lower-run-paired-at-its-first-rank",
        item="issue 22 tie-compressed windows",
        path="core/sensitivity/run_kernels.py",
        old="lp[p + 1] = min(last[p], kk)",
        new="lp[p + 1] = min(first[p], kk)",
        tests=(
            "tests/core/sensitivity/test_run_kernels.py",
            "tests/core/windowed/test_run_sensitivity.py::"
            "test_runs_give_the_definition_on_every_window",
            "tests/core/windowed/test_runs.py::"
            "test_a_certified_run_window_gives_the_same_samples_sensitivity",
        ),
    ),
    Break(
        name="runs-resolved-run-one-rank-short",
        item="issue 22 tie-compressed windows",
        path="core/windowed/runs.py",
        old="self._last.append(below + count)",
        new="self._last.append(below + count - 1)",
        tests=(
            "tests/core/windowed/test_runs.py::"
            "test_revealed_samples_have_the_multivariate_hypergeometric_law",
        ),
    ),
    Break(
        name="unbounded-quantile-gets-an-mse",
        item="issue 23 quantile mechanisms on the Gains page",
        path="core/gains/median.py",
        old="    if mech.name in NO_FINITE_MEAN:\n",
        new="    if mech.name in ():\n",
        tests=(
            "tests/core/gains/test_comparison.py::test_unbounded_has_no_mean_error_only_its_quantile",
        ),
    ),
    Break(
        name="ties-note-counts-the-wrong-side",
        item="issue 23 ties first-class",
        path="ui/gains/text.py",
        old="    if share < TIE_SHARE or",
        new="    if share > TIE_SHARE or",
        tests=(
            "tests/ui/gains/test_gains_comparison.py::"
            "test_ties_note_only_when_ties_are_many_and_the_factor_is_large",
            "tests/pages/test_gains_page.py::test_ties_note_says_when_ties_decide_the_winner",
        ),
    ),
    Break(
        name="accuracy-first-drops-the-winners",
        item="issue 22 planner engine",
        path="core/planner/accuracy_first.py",
        old='if ties.reaches(r["error_95"], self.target)',
        new='if not ties.reaches(r["error_95"], self.target)',
        tests=(
            "tests/core/planner/test_accuracy_first.py::"
            "test_search_finds_the_references_eps_and_returns_the_plain_plan_there",
        ),
    ),
    Break(
        name="several-statistics-refine-every-statistic",
        item="issue 22 planner engine",
        path="core/planner/engine.py",
        old="tuple(i for i, w in enumerate(wanted) if rate in w)",
        new="tuple(range(len(wanted)))",
        tests=(
            "tests/core/planner/test_composition.py::"
            "test_each_statistics_plan_is_the_plain_plan_with_its_share",
        ),
    ),
    Break(
        name="no-upper-page-guard",
        item="issue 23 no upper bound",
        path="ui/router.py",
        old="    if spec is not None and spec.needs_upper and not active_has_upper_bound():",
        new="    if spec is not None and spec.needs_upper and active_has_upper_bound() is None:",
        tests=(
            "tests/pages/test_no_upper_bound.py::test_every_page_opens_on_a_population_without_u",
        ),
    ),
    Break(
        name="report-link-only-the-address-bar",
        item="issue 27 exports",
        path="ui/widgets.py",
        old="    query.update(sorted(bound.items()))\n",
        new="    query.update({})\n",
        tests=(
            "tests/pages/test_planner_page.py::"
            "test_the_reports_link_reproduces_the_plan_with_every_control",
        ),
    ),
    Break(
        name="report-chart-keeps-the-page-margins",
        item="issue 27 exports",
        path="ui/planner/exports/report.py",
        old="    chart = exported_figure(figure).to_html(full_html=False, include_plotlyjs=True)",
        new="    chart = figure.to_html(full_html=False, include_plotlyjs=True)",
        tests=("tests/e2e/test_browser_report.py::test_report_charts_fit_at_laptop_size",),
    ),
    Break(
        name="plan-csv-recommends-every-best-rate",
        item="issue 27 exports",
        path="ui/planner/figures.py",
        old='    table["recommended"] = recommended_rows(result)',
        new='    table["recommended"] = table["best_rate_of_design_mechanism"]',
        tests=(
            "tests/ui/planner/test_plan_table.py::"
            "test_exactly_one_row_is_recommended_and_it_is_the_pages_verdict",
        ),
    ),
    Break(
        name="publication-move-costs-one-cell",
        item="issue 24 publication table",
        path="core/publication/composition.py",
        old="        t / 2.0,",
        new="        t,",
        tests=(
            "tests/core/publication/test_composition.py::"
            "test_change_with_movable_labels_costs_two_cells",
            "tests/core/publication/test_table.py::test_each_row_is_one_plan_of_its_cell",
        ),
    ),
    Break(
        name="planner-joint-exp-group-privacy",
        item="issue 23 planner mechanisms",
        path="core/planner/joint.py",
        old="acc = d.accounting(t, relation, mech.budget_factors(), point, shared=w < 1.0)",
        new="acc = d.accounting(t, relation, None, point, shared=w < 1.0)",
        tests=(
            "tests/core/planner/test_joint.py::"
            "test_joint_exp_spends_the_exponential_mechanisms_budget",
        ),
    ),
    Break(
        name="planner-piecewise-window-leans-wrong-way",
        item="issue 23 planner mechanisms",
        path="core/windowed/exponential.py",
        old="toward_left = iv.index[y, pick] >= st.rank[todo[y]]",
        new="toward_left = iv.index[y, pick] > st.rank[todo[y]]",
        tests=(
            "tests/core/windowed/test_exponential.py::"
            "test_piecewise_laplace_windows_have_the_exact_law",
        ),
    ),
    Break(
        name="value-column-id-inverted",
        item="issue 27 inputs: default value column",
        path="core/value_column.py",
        old="and span == x.size - 1:",
        new="and span != x.size - 1:",
        tests=(
            "tests/core/test_value_column.py::test_any_order_of_one_to_n_is_an_identifier",
            "tests/core/test_value_column.py::test_measurements_are_not_flagged",
        ),
    ),
    Break(
        name="strata-results-not-fading",
        item="issue 27 inputs: stale results",
        path="app_pages/strata.py",
        old='with result_container("strat_view"):',
        new="with st.container():",
        tests=(
            "tests/ui/test_stale_results.py::"
            "test_every_chart_and_metric_is_inside_a_result_container",
        ),
    ),
    Break(
        name="usable-share-ignored",
        item="issue 27 numbers: useless release",
        path="core/planner/usability.py",
        old="return bool(rel <= s)  # NaN compares False",
        new="return bool(rel <= 100 * s)  # NaN compares False",
        tests=(
            "tests/core/planner/test_usability.py::test_the_share_is_inclusive_and_moves_the_verdict",
            "tests/pages/test_planner_page.py::"
            "test_a_tiny_eps_target_gives_a_too_noisy_warning_not_a_success_box",
        ),
    ),
    Break(
        name="readable-falls-back-to-scientific",
        item="issue 27 numbers for people",
        path="ui/format.py",
        old='        return f"{rounded:,.0f}"',
        new='        return f"{rounded:.{digits}g}"',
        tests=(
            "tests/ui/test_format.py::test_readable_writes_numbers_out_without_scientific_notation",
            "tests/ui/planner/test_text.py::"
            "test_the_report_and_the_page_say_the_same_about_the_census",
        ),
    ),
    Break(
        name="publication-config-seed-shifted",
        item="issue 24 §1: the planner's publication table as a batch config",
        path="ui/planner/publication_text.py",
        old='seed=int(settings["seed"]),',
        new='seed=int(settings["seed"]) + 1,',
        tests=(
            "tests/pages/test_planner_publication.py::"
            "test_downloaded_config_reproduces_the_table_in_batch",
            "tests/ui/planner/test_publication.py::"
            "test_config_loads_in_batch_and_asks_for_the_same_plan",
        ),
    ),
    Break(
        name="slider-snaps-off-the-box-value",
        item="issue 27 §2: a log slider and its exact box show the same number",
        path="ui/widgets.py",
        old="    if value in grid or not grid[0] <= value <= grid[-1]:",
        new="    if True:",
        tests=(
            "tests/pages/test_amplification_page.py::"
            "test_amplification_log_slider_and_exact_box_stay_in_sync",
            "tests/ui/test_widgets.py::"
            "test_a_value_between_marks_becomes_a_mark_shown_as_the_box_shows_it",
        ),
    ),
    Break(
        name="percent-in-scientific-notation",
        item="issue 27 §2: shares written out, never as 1.8e+02 %",
        path="ui/format.py",
        old='    return fmt(fraction, "share", digits)',
        new='    return f"{100 * float(fraction):.{digits}g} %"',
        tests=("tests/ui/test_format.py::test_significant_and_percent",),
    ),
    Break(
        name="long-labels-cut-short",
        item="issue 27 §1: nothing cut short (long preset and metric labels wrap)",
        path="ui/theme.py",
        old="    + WRAP_CSS\n",
        new="",
        tests=(
            "tests/e2e/test_layout.py::test_nothing_overflows[clusters-laptop]",
            "tests/e2e/test_layout.py::test_nothing_overflows[strata-laptop]",
        ),
    ),
    Break(
        name="accuracy-first-always-green",
        item="issue 27 §2: a useless plan is a warning on the accuracy-first tab too",
        path="ui/planner/accuracy.py",
        old="        if too_noisy is None:\n",
        new="        if True:\n",
        tests=(
            "tests/pages/test_planner_page.py::"
            "test_accuracy_first_warns_when_the_bound_asked_for_is_useless",
        ),
    ),
    Break(
        name="usable-column-reads-the-rmse",
        item="issue 27 §4: release_plan.csv says which plans are usable, by the page's rule",
        path="ui/planner/figures.py",
        old='for b in table["error_95"]',
        new='for b in table["rmse"]',
        tests=(
            "tests/ui/planner/test_plan_table.py::test_usable_follows_the_pages_rule_row_by_row",
        ),
    ),
    Break(
        name="error-weights-ignored",
        item="issue 24 §1: the optimised split minimises the largest weighted error",
        path="core/publication/table.py",
        old="shares = optimal_shares(pairs, budget.eps_target, weights_t)",
        new="shares = optimal_shares(pairs, budget.eps_target)",
        tests=("tests/core/publication/test_table.py::test_optimal_split_returns_shares",),
    ),
    Break(
        name="records-json-keeps-infinity",
        item="issue 24 §2: summary and registry entry are strict JSON (a cell not planned: null)",
        path="core/publication/records.py",
        old="        if isinstance(x, float) and not math.isfinite(x):",
        new="        if isinstance(x, float) and math.isnan(x):",
        tests=(
            "tests/core/publication/test_records.py::"
            "test_strict_json_writes_null_for_what_was_not_planned",
        ),
    ),
    Break(
        name="publication-script-seed-shifted",
        item="issue 24 §2: the publication table's script and zip package",
        path="ui/planner/exports/publication_package.py",
        old="table_plan = plan_table(population, **config.plan_kwargs())",
        new='table_plan = plan_table(population, **{**config.plan_kwargs(), "seed": 1})',
        tests=(
            "tests/ui/planner/test_publication_package.py::"
            "test_the_script_reproduces_plan_table_in_a_process_of_its_own",
        ),
    ),
    Break(
        name="cluster-run-table-one-run-early",
        item="issue 22 §1: cluster run windows read boundaries from a table",
        path="core/designs/cluster_windows.py",
        old="count = table[rows[owner], run_a[owner] + 1 + j]",
        new="count = table[rows[owner], run_a[owner] + j]",
        tests=(
            "tests/core/test_cluster_windows.py::test_run_windows_read_the_same_samples_as_runs",
        ),
    ),
    Break(
        name="strata-run-table-one-run-late",
        item="issue 22 §1: stratified run windows split with a table",
        path="core/designs/stratified_windows.py",
        old="return self._table[:, self._segments.run_of(at)].T",
        new=(
            "return self._table[:, np.minimum(self._segments.run_of(at) + 1, "
            "len(self._table[0]) - 1)].T"
        ),
        tests=(
            "tests/core/test_stratified_windows.py::"
            "test_run_table_gives_the_same_splits_as_searching_the_index",
        ),
    ),
    Break(
        name="census-window-certified-too-early",
        item="issue 22: the census's exponential law on a certified window of intervals",
        path="core/mechanisms/exponential.py",
        old="if log_range - 0.5 * eps * reach < top + _LOG_NEGLIGIBLE - math.log(n + 1.0):",
        new="if log_range - 0.5 * eps * reach < top + 60:",
        tests=(
            "tests/core/mechanisms/test_exponential.py::"
            "test_errors_from_the_window_of_intervals_equal_the_whole_laws",
        ),
    ),
    Break(
        name="run-view-of-distinct-cells-one-rank-long",
        item="issue 22: windows of untied samples read as runs without sorting",
        path="core/windowed/runs.py",
        old="return cls(value, ranks, ranks.copy(), valid.sum(axis=1).astype(np.int64))",
        new="return cls(value, ranks, ranks + 1, valid.sum(axis=1).astype(np.int64))",
        tests=(
            "tests/core/windowed/test_runs.py::test_run_view_of_cells_lists_each_rows_runs_in_order",
        ),
    ),
    Break(
        name="run-counts-last-cluster-dropped",
        item="issue 22: cluster samples of a tied population as counts per run",
        path="core/windowed/run_counts.py",
        old="for j in range(drawn.shape[1]):\n            c = drawn[r, j]",
        new="for j in range(drawn.shape[1] - 1):\n            c = drawn[r, j]",
        tests=(
            "tests/core/windowed/test_run_counts.py::"
            "test_cluster_counts_are_the_drawn_clusters_records",
            "tests/core/windowed/test_run_counts_paths.py::"
            "test_counts_of_drawn_are_the_drawn_clusters_records",
        ),
    ),
    Break(
        name="run-counts-block-range-one-run",
        item="issue 22: cluster samples of a tied population as counts per run",
        path="core/windowed/run_counts.py",
        old="high = run_values[t[keep] - 1]",
        new="high = run_values[s[keep]]",
        tests=(
            "tests/core/windowed/test_run_counts.py::test_every_window_reads_the_explicit_sample",
        ),
    ),
    Break(
        name="tab-bar-scrolls-sideways",
        item="issue 27 §1: every tab in sight on a phone (the tab bar wraps)",
        path="ui/theme.py",
        old='[role="tablist"] { flex-wrap: wrap;',
        new='[role="tablist"] { flex-wrap: nowrap;',
        tests=("tests/e2e/test_layout.py::test_nothing_overflows[gains-phone]",),
    ),
    Break(
        name="bound-label-on-the-census-label",
        item="issue 27 §1: no chart text on another (the two line labels at opposite ends)",
        path="ui/planner/figures.py",
        old="        at_start = True if census is None else star_right",
        new="        at_start = False",
        tests=(
            "tests/ui/planner/test_figures.py::"
            "test_your_bound_and_census_labels_never_sit_on_the_other_line",
        ),
    ),
    Break(
        name="multiselect-chips-scroll-sideways",
        item="issue 27 §1: every chip of a multiselect in sight (chips wrap)",
        path="ui/theme.py",
        old="flex-wrap: wrap !important; overflow: visible !important; height: auto !important;",
        new="flex-wrap: nowrap !important;",
        tests=("tests/e2e/test_layout.py::test_nothing_overflows[planner-phone]",),
    ),
    Break(
        name="unbounded-thresholds-corrected-nowhere",
        item="issue 23: unbounded quantile's threshold indices, corrected where rounding errs",
        path="core/mechanisms/unbounded.py",
        old="if abs(f - math.floor(f + 0.5)) <= 1e-9 * max(1.0, abs(f)):",
        new="if abs(f - math.floor(f + 0.5)) < 0.0:",
        tests=(
            "tests/core/mechanisms/test_unbounded.py::"
            "test_threshold_indices_equal_the_corrected_formula_everywhere",
        ),
    ),
    Break(
        name="distribution-misses-a-package",
        item="issue 27 §4: core installs as dp_sampling, every package of it",
        path="pyproject.toml",
        old='    "dp_sampling.windowed",\n',
        new="",
        tests=("tests/test_packaging.py::test_every_package_under_core_is_in_the_distribution",),
    ),
    Break(
        name="notebook-imports-the-clone",
        item="issue 27 §4: the exported notebook runs outside the repository",
        path="ui/planner/exports/notebook.py",
        old='    "from dp_sampling.planner import plan",\n',
        new='    "from core.planner import plan",\n',
        tests=(
            "tests/test_packaging.py::"
            "test_exported_notebook_and_script_run_in_a_fresh_environment_outside_the_repository",
        ),
    ),
    Break(
        name="subsets-complement-not-taken",
        item="22 planner engine",
        path="core/windowed/sampler.py",
        old="draws = c if taken else top - c",
        new="draws = c if taken else c",
        tests=("tests/core/windowed/test_sampler.py::test_subsets_are_uniform",),
    ),
    Break(
        name="subsets-long-sparse-repeats",
        item="22 planner engine",
        path="core/windowed/sampler.py",
        old="""                if out[o + i] == pick:
                    pick = j
                    break""",
        new="""                if out[o + i] == pick:
                    break""",
        tests=(
            "tests/core/windowed/test_sampler.py::"
            "test_long_sparse_blocks_draw_distinct_uniform_records",
        ),
    ),
    Break(
        name="exponential-block-bound-drops-an-interval",
        item="22 planner engine",
        path="core/windowed/exponential.py",
        old="used = np.concatenate((np.ones(row.size, dtype=bool), last_below, last_above))",
        new="used = np.concatenate((np.ones(row.size, dtype=bool), 0 * last_below, last_above))",
        tests=(
            "tests/core/windowed/test_exponential.py::"
            "test_block_bound_covers_the_unknown_intervals_weight",
        ),
    ),
    Break(
        name="exponential-block-bound-own-low",
        item="22 planner engine",
        path="core/windowed/exponential.py",
        old="prev_low[1:] = b_low[:-1]",
        new="prev_low[1:] = b_low[1:]",
        tests=(
            "tests/core/windowed/test_exponential.py::"
            "test_block_bound_covers_the_unknown_intervals_weight",
        ),
    ),
    Break(
        name="refine-loses-small-blocks",
        item="22 planner engine",
        path="core/windowed/sampler.py",
        old="kept.append(blocks.take(~split))",
        new="kept.append(blocks.take(~split & (blocks.count > 1)))",
        tests=(
            "tests/core/windowed/test_sampler.py::"
            "test_unexpanded_blocks_certify_the_same_samples_sensitivity",
            "tests/core/windowed/test_sampler.py::test_subsets_are_uniform",
        ),
    ),
    Break(
        name="format-ratio-scientific",
        item="issue 27 §2: one formatter, ratios written out",
        path="ui/planner/compare_text.py",
        old="    return f\"{fmt(1.0 - gain, 'ratio')} times the error of\"",
        new='    return f"{1.0 - gain:.3g} times the error of"',
        tests=(
            "tests/ui/test_format.py::test_the_page_and_the_report_print_a_ratio_the_same_way",
            "tests/ui/test_format.py::test_screens_write_numbers_through_fmt_not_ad_hoc_specs",
            "tests/ui/planner/test_text.py::"
            "test_the_report_and_the_page_say_the_same_about_the_census",
        ),
    ),
    Break(
        name="threads-drop-the-last-range",
        item="22 planner engine",
        path="core/threads.py",
        old="for a, b in pairwise(bounds)]",
        new="for a, b in pairwise(bounds[:-1])]",
        tests=("tests/core/test_threads.py",),
    ),
    Break(
        name="unbounded-skip-past-real-hazard",
        item="issue 23: unbounded quantile on the Figure 8 grid",
        path="core/mechanisms/unbounded.py",
        old="skip = math.floor(rho[r] + target - 746.0 * scale)",
        new="skip = math.floor(rho[r] + target - 2.0 * scale)",
        tests=(
            "tests/core/mechanisms/test_unbounded.py::"
            "test_the_crossing_skips_only_counts_that_add_no_hazard",
        ),
    ),
    Break(
        name="publication-script-needs-the-repository",
        item="issue 27 §4: the exported publication script runs outside the repository",
        path="ui/planner/exports/publication_package.py",
        old='"from dp_sampling.publication.config import ConfigError, build_population,',
        new='"from core.publication.config import ConfigError, build_population,',
        tests=(
            "tests/test_packaging.py::"
            "test_exported_notebook_and_script_run_in_a_fresh_environment_outside_the_repository",
        ),
    ),
    Break(
        name="window-tasks-share-the-point-stream",
        item="22 planner engine",
        path="core/planner/simulate.py",
        old="            np.random.default_rng([*self.seed, 37, self.tag, start]),\n",
        new="            self.rng,\n",
        tests=(
            "tests/core/planner/test_simulate.py::"
            "test_window_tasks_on_two_threads_draw_exactly_what_one_thread_draws",
        ),
    ),
    Break(
        name="each-ignores-the-cost-order",
        item="22 planner engine",
        path="core/threads.py",
        old="        order.sort(key=lambda i: -float(cost[i]))",
        new="        pass",
        tests=(
            "tests/core/test_threads.py::test_each_runs_two_tasks_at_once_and_the_costliest_first",
        ),
    ),
    Break(
        name="each-nested-makes-more-threads",
        item="22 planner engine",
        path="core/threads.py",
        old='    if threads < 2 or getattr(_in_task, "active", False):',
        new="    if threads < 2:",
        tests=("tests/core/test_threads.py::test_each_inside_a_task_runs_on_that_task_s_thread",),
    ),
    Break(
        name="ring-chunks-forget-tie-blocks",
        item="22 planner engine",
        path="core/planner/simulate.py",
        old="            width += 2 * math.ceil(self.p.rate * self.frame.value_runs().longest)",
        new="            width += 0",
        tests=(
            "tests/core/planner/test_simulate.py::"
            "test_ring_drawn_chunks_hold_a_bounded_number_of_order_statistics",
        ),
    ),
    Break(
        name="rows-split-again-inside-tasks",
        item="22 planner engine",
        path="core/threads.py",
        old='    if parts < 2 or work < MIN_WORK or getattr(_in_task, "active", False):',
        new="    if parts < 2 or work < MIN_WORK:",
        tests=(
            "tests/core/test_threads.py::test_rows_split_inside_a_task_stay_on_the_task_s_thread",
        ),
    ),
    Break(
        name="upload-offers-every-label-column",
        item="35 upload",
        path="ui/population/upload.py",
        old='        "Stratum column(s) (optional)",\n        list(groups.offered),',
        new='        "Stratum column(s) (optional)",\n'
        "        [c for c in table.label_columns if c != value_column],",
        tests=(
            "tests/pages/test_upload_survey.py::"
            "test_upload_preselects_the_design_and_offers_only_label_columns",
        ),
    ),
    Break(
        name="upload-preselects-nothing",
        item="35 upload",
        path="ui/population/upload.py",
        old="        default=list(groups.stratum),",
        new="        default=[],",
        tests=(
            "tests/pages/test_upload_survey.py::"
            "test_upload_preselects_the_design_and_offers_only_label_columns",
        ),
    ),
    Break(
        name="upload-offers-select-all",
        item="35 upload",
        path="ui/population/upload.py",
        old='        key=f"up_cluster_{tag}",\n        select_all=False,',
        new='        key=f"up_cluster_{tag}",\n        select_all=True,',
        tests=(
            "tests/pages/test_upload_survey.py::"
            "test_upload_preselects_the_design_and_offers_only_label_columns",
        ),
    ),
    Break(
        name="group-columns-offer-weights",
        item="35 upload",
        path="core/value_column.py",
        old='        return False, "a sampling weight (by its name)"',
        new='        return True, "a sampling weight (by its name)"',
        tests=("tests/core/test_value_column.py::test_group_columns_are_label_like",),
    ),
    Break(
        name="group-columns-offer-measurements",
        item="35 upload",
        path="core/value_column.py",
        old="    if codes <= MAX_CODE_VALUES:",
        new="    if True:",
        tests=(
            "tests/core/test_value_column.py::test_group_columns_are_label_like",
            "tests/core/test_value_column.py::"
            "test_the_health_survey_offers_its_labels_and_preselects_its_design",
        ),
    ),
    Break(
        name="group-columns-psu-alone-as-cluster",
        item="35 upload",
        path="core/value_column.py",
        old="    cluster = tuple(dict.fromkeys(stratum + psu)) if psu else ()",
        new="    cluster = psu",
        tests=(
            "tests/core/test_value_column.py::"
            "test_the_health_survey_offers_its_labels_and_preselects_its_design",
        ),
    ),
    Break(
        name="accuracy-unreachable-says-no-best-bound",
        item="35 upload",
        path="ui/planner/accuracy_text.py",
        old='        if best is None or not math.isfinite(float(best["error_95"])):',
        new="        if True:",
        tests=(
            "tests/ui/planner/test_text.py::test_accuracy_answer_and_composition_verdict",
            "tests/pages/test_upload_survey.py::"
            "test_an_unreachable_bound_names_the_best_bound_and_its_eps_target",
        ),
    ),
    Break(
        name="accuracy-unreachable-plans-the-bottom",
        item="35 upload",
        path="core/planner/accuracy_first.py",
        old="return AccuracyFirst(x, math.nan, False, finish(hi), search.evaluations + 1, hi)",
        new="return AccuracyFirst(x, math.nan, False, finish(lo), search.evaluations + 1, hi)",
        tests=(
            "tests/core/planner/test_accuracy_first.py::"
            "test_an_unreachable_bound_reports_the_best_bound_at_the_top_of_the_range",
        ),
    ),
    Break(
        name="accuracy-unreachable-wrong-eps-limit",
        item="35 upload",
        path="core/planner/accuracy_first.py",
        old="return AccuracyFirst(x, math.nan, False, finish(hi), search.evaluations + 1, hi)",
        new="return AccuracyFirst(x, math.nan, False, finish(hi), search.evaluations + 1, lo)",
        tests=(
            "tests/core/planner/test_accuracy_first.py::"
            "test_an_unreachable_bound_reports_the_best_bound_at_the_top_of_the_range",
            "tests/pages/test_upload_survey.py::"
            "test_an_unreachable_bound_names_the_best_bound_and_its_eps_target",
        ),
    ),
    Break(
        name="default-target-finer-than-the-step",
        item="35 upload",
        path="ui/planner/accuracy.py",
        old="    target = shown_bound(heuristic, step)",
        new="    target = shown_bound(heuristic, None)",
        tests=(
            "tests/ui/planner/test_views.py::test_default_target_is_a_bound_the_data_can_show",
            "tests/pages/test_upload_survey.py::"
            "test_accuracy_first_defaults_to_a_bound_the_data_can_show",
        ),
    ),
    Break(
        name="shown-bound-ignores-the-step",
        item="35 upload",
        path="core/resolution.py",
        old="        unit = max(unit, float(step))",
        new="        unit = unit",
        tests=(
            "tests/core/test_resolution.py::test_shown_bound_is_short_and_no_finer_than_the_step",
            "tests/core/test_resolution.py::test_shown_bound_on_whole_and_decimal_populations",
        ),
    ),
    Break(
        name="exports-notebook-imports-the-csv-loader",
        item="35 exports",
        path="ui/planner/exports/notebook.py",
        old='f"from dp_sampling.populations import {loader}",',
        new='"from dp_sampling.populations import load_population_csv, make_builtin",',
        tests=(
            "tests/ui/planner/test_exports.py::test_notebook_imports_the_loader_its_recipe_calls",
        ),
    ),
    Break(
        name="exports-config-label-list-unhashable",
        item="35 exports",
        path="core/publication/config.py",
        old='chosen = {key: label_columns(f"population.{key}", pop.get(key))',
        new="chosen = {key: (pop[key],) if pop.get(key) is not None else ()",
        tests=(
            "tests/core/publication/test_config.py::test_every_label_field_takes_a_list_of_columns",
            "tests/batch/test_cli.py::test_a_list_of_label_columns_runs_and_clipping_is_reported",
        ),
    ),
    Break(
        name="exports-config-label-type-unchecked",
        item="35 exports",
        path="core/publication/config.py",
        old=(
            "    if not isinstance(value, list) or not value:\n"
            '        raise ConfigError(field, f"{what}'
        ),
        new='    if False:\n        raise ConfigError(field, f"{what}',
        tests=(
            "tests/core/publication/test_config.py::test_a_bad_config_names_its_field",
            "tests/batch/test_cli.py::test_a_bad_label_field_is_a_config_error",
        ),
    ),
    Break(
        name="exports-config-upload-placeholder",
        item="35 exports",
        path="ui/planner/publication_text.py",
        old="    read = pop.file_settings\n",
        new=(
            '    return {"file": "register.csv", "value_column": "value", "lower": 0, "upper": 1}\n'
        ),
        tests=(
            "tests/ui/planner/test_publication.py::"
            "test_an_uploaded_files_config_says_what_the_page_used",
        ),
    ),
    Break(
        name="exports-config-no-reading-comments",
        item="35 exports",
        path="ui/planner/exports/publication_package.py",
        old='    if "file" not in config["population"]:\n        return head + body',
        new="    if True:\n        return head + body",
        tests=(
            "tests/ui/planner/test_publication.py::"
            "test_an_uploaded_files_config_says_what_the_page_used",
        ),
    ),
    Break(
        name="exports-clipping-never-warned",
        item="35 exports",
        path="core/publication/records.py",
        old="settings.clipped_share <= CLIPPED_SHARE_WARNING",
        new="settings.clipped_share <= 1.0",
        tests=(
            "tests/core/publication/test_config.py::test_bounds_that_clip_many_values_are_reported",
            "tests/batch/test_cli.py::test_a_list_of_label_columns_runs_and_clipping_is_reported",
        ),
    ),
    Break(
        name="exports-report-without-data",
        item="35 exports",
        path="ui/planner/exports/report.py",
        old="        *data,\n",
        new="",
        tests=(
            "tests/ui/planner/test_exports.py::"
            "test_report_states_the_data_a_review_board_checks_first",
        ),
    ),
    Break(
        name="exports-report-upload-link-unexplained",
        item="35 exports",
        path="ui/planner/exports/report.py",
        old="    if uploaded:\n        upload_file =",
        new="    if False:\n        upload_file =",
        tests=(
            "tests/ui/planner/test_exports.py::"
            "test_report_states_the_data_a_review_board_checks_first",
        ),
    ),
    Break(
        name="exports-upload-config-names-a-placeholder-file",
        item="35 exports",
        path="ui/planner/publication_text.py",
        old='        "file": file,\n',
        new='        "file": "register.csv",\n',
        tests=(
            "tests/test_packaging.py::"
            "test_every_export_of_an_uploaded_stata_file_runs_outside_the_repository",
        ),
    ),
    Break(
        name="exports-file-settings-forget-dropped-rows",
        item="35 exports",
        path="core/csv_io/loading.py",
        old="            rows_dropped=int(dropped),",
        new="            rows_dropped=0,",
        tests=(
            "tests/core/csv_io/test_loading.py::test_file_settings_record_how_the_file_was_read",
            "tests/ui/planner/test_exports.py::"
            "test_report_states_the_data_a_review_board_checks_first",
        ),
    ),
    Break(
        name="exports-table-report-without-reading",
        item="35 exports",
        path="core/publication/records.py",
        old='{esc(", ".join(tp.statistics))}.</p>\n{reading}\n',
        new='{esc(", ".join(tp.statistics))}.</p>\n',
        tests=(
            "tests/core/publication/test_config.py::test_bounds_that_clip_many_values_are_reported",
        ),
    ),
    Break(
        name="exports-script-traceback-on-missing-file",
        item="35 exports",
        path="ui/planner/exports/publication_package.py",
        old="except ConfigError as error:  # a missing file",
        new="except ZeroDivisionError as error:  # a missing file",
        tests=(
            "tests/ui/planner/test_publication_package.py::"
            "test_the_script_of_a_file_population_says_when_the_file_is_missing",
        ),
    ),
    Break(
        name="enum-srs-poisson-amplification-loosened",
        item="35 enumeration",
        path="core/designs/individual.py",
        old="        return float(amp.eps_sample(eps_target, point.rate))",
        new="        return float(amp.eps_sample(eps_target, point.rate**2))",
        tests=(
            "tests/core/planner/test_exact_privacy.py::test_release_keeps_the_stated_eps_target",
        ),
    ),
    Break(
        name="enum-poisson-change-bound-loosened",
        item="35 enumeration",
        path="core/designs/individual.py",
        old="poisson_eps_sample(eps_target, point.rate, factors.add_remove, change)",
        new="poisson_eps_sample(2 * eps_target, point.rate, factors.add_remove, change)",
        tests=(
            "tests/core/planner/test_exact_privacy.py::test_release_keeps_the_stated_eps_target",
        ),
    ),
    Break(
        name="enum-poisson-cluster-ignores-cluster-size",
        item="35 enumeration",
        path="core/designs/poisson_cluster.py",
        old="    return _log_mix(r, (m + 1) * e) - _log_mix(r, m * e)",
        new="    return _log_mix(r, e)",
        tests=(
            "tests/core/planner/test_exact_privacy.py::test_release_keeps_the_stated_eps_target",
        ),
    ),
    Break(
        name="enum-cluster-forgets-second-largest-cluster",
        item="35 enumeration",
        path="core/designs/__init__.py",
        old="        self.combined_size = int(self.sizes[-1] + self.sizes[-2])",
        new="        self.combined_size = int(self.sizes[-1])",
        tests=(
            "tests/core/planner/test_exact_privacy.py::"
            "test_ht_mean_under_deletion_holds_when_N_is_public",
        ),
    ),
    Break(
        name="enum-stratified-budget-quadrupled",
        item="35 enumeration",
        path="core/strata/privacy.py",
        old="        small = 0.5 * np.log1p(x)",
        new="        small = 2.0 * np.log1p(x)",
        tests=(
            "tests/core/planner/test_exact_privacy.py::"
            "test_ht_mean_under_deletion_holds_when_N_is_public",
        ),
    ),
    Break(
        name="enum-piecewise-add-remove-factor-lowered",
        item="35 enumeration",
        path="core/mechanisms/piecewise_laplace.py",
        old="    pure = True\n    add_remove_factor = 1.0\n    change_factor = 1.0\n"
        "    windowed = True",
        new="    pure = True\n    add_remove_factor = 0.5\n    change_factor = 1.0\n"
        "    windowed = True",
        tests=(
            "tests/core/planner/test_exact_privacy.py::test_release_keeps_the_stated_eps_target",
        ),
    ),
    Break(
        name="enum-laplace-mean-change-factor-lowered",
        item="35 enumeration",
        path="core/mechanisms/means.py",
        old='    label = "mean, Laplace noise scaled to the global sensitivity"\n    pure = True\n'
        "    add_remove_factor = None\n    change_factor = 1.0",
        new='    label = "mean, Laplace noise scaled to the global sensitivity"\n    pure = True\n'
        "    add_remove_factor = None\n    change_factor = 0.5",
        tests=(
            "tests/core/planner/test_exact_privacy.py::test_release_keeps_the_stated_eps_target",
        ),
    ),
    Break(
        name="enum-ht-mean-sensitivity-halved",
        item="35 enumeration",
        path="core/mechanisms/means.py",
        old="(self.upper - self.lower) / 2.0 / self.expected_size",
        new="(self.upper - self.lower) / 4.0 / self.expected_size",
        tests=(
            "tests/core/planner/test_exact_privacy.py::test_release_keeps_the_stated_eps_target",
        ),
    ),
    Break(
        name="enum-table-cells-keep-the-whole-budget",
        item="35 enumeration",
        path="core/publication/composition.py",
        old="        t / 2.0,\n        d / (1.0 + math.exp(t / 2.0)),",
        new="        t,\n        d / (1.0 + math.exp(t / 2.0)),",
        tests=(
            "tests/core/planner/test_exact_privacy.py::"
            "test_publication_table_of_census_medians_is_tight",
        ),
    ),
    Break(
        name="band-fills-across-a-gap",
        item="35 charts",
        path="ui/theme.py",
        old="    known = np.isfinite(xs) & np.isfinite(lo) & np.isfinite(hi)",
        new="    known = np.isfinite(xs)",
        tests=(
            "tests/ui/test_theme.py::"
            "test_band_follows_its_line_in_x_order_split_at_gaps_and_raised_to_the_floor",
            "tests/ui/planner/test_figures.py::"
            "test_band_follows_its_line_in_rate_order_clipped_at_the_floor_and_split_at_gaps",
        ),
    ),
    Break(
        name="band-edges-out-of-order",
        item="35 charts",
        path="ui/theme.py",
        old='    order = np.argsort(xs, kind="stable")',
        new="    order = np.arange(xs.size)",
        tests=(
            "tests/ui/test_theme.py::"
            "test_band_follows_its_line_in_x_order_split_at_gaps_and_raised_to_the_floor",
        ),
    ),
    Break(
        name="band-lower-edge-below-floor",
        item="35 charts",
        path="ui/theme.py",
        old="        lo, hi = np.maximum(lo, floor), np.maximum(hi, floor)",
        new="        hi = np.maximum(hi, floor)",
        tests=(
            "tests/ui/test_theme.py::"
            "test_band_follows_its_line_in_x_order_split_at_gaps_and_raised_to_the_floor",
            "tests/ui/planner/test_figures.py::"
            "test_band_follows_its_line_in_rate_order_clipped_at_the_floor_and_split_at_gaps",
        ),
    ),
    Break(
        name="publication-cells-sort-as-text",
        item="35 charts",
        path="core/publication/table.py",
        old="    table = in_reading_order(table, names, [s[2] for s in stats])\n",
        new="",
        tests=(
            "tests/ui/planner/test_publication.py::"
            "test_table_and_csv_rows_sort_cells_as_numbers_not_as_text",
        ),
    ),
    Break(
        name="publication-colour-scale-from-zero",
        item="35 charts",
        path="ui/planner/publication_text.py",
        old="    low = min(float(v.min()), threshold) if v.size else threshold",
        new="    low = 0.0",
        tests=(
            "tests/ui/planner/test_publication.py::"
            "test_heat_map_colour_scale_is_centred_on_the_threshold_and_spans_the_data",
        ),
    ),
    Break(
        name="publication-colour-scale-off-the-threshold",
        item="35 charts",
        path="ui/planner/publication_text.py",
        old="    at = (threshold - low) / (high - low)",
        new="    at = 0.5",
        tests=(
            "tests/ui/planner/test_publication.py::"
            "test_heat_map_colour_scale_is_centred_on_the_threshold_and_spans_the_data",
        ),
    ),
    Break(
        name="your-bound-label-on-the-census-line",
        item="35 charts",
        path="ui/planner/figures.py",
        old="            target_below = float(target) < drawn",
        new="            target_below = False",
        tests=(
            "tests/ui/planner/test_figures.py::"
            "test_your_bound_and_census_labels_never_sit_on_the_other_line",
        ),
    ),
    Break(
        name="your-bound-label-beside-the-star",
        item="35 charts",
        path="ui/planner/figures.py",
        old="        at_start = True if census is None else star_right",
        new="        at_start = True if census is None else not star_right",
        tests=(
            "tests/ui/planner/test_figures.py::"
            "test_your_bound_and_census_labels_never_sit_on_the_other_line",
        ),
    ),
    Break(
        name="band-symmetric-about-the-95-bound",
        item="35 charts",
        path="ui/planner/figures.py",
        old="    if ends is not None and all(c in rows.columns for c in ends):",
        new="    if False:",
        tests=(
            "tests/ui/planner/test_figures.py::"
            "test_band_follows_its_line_in_rate_order_clipped_at_the_floor_and_split_at_gaps",
        ),
    ),
    Break(
        name="quantile-interval-made-symmetric",
        item="35 charts",
        path="core/planner/errors.py",
        old="    return q, (hi - lo) / 4.0, min(lo, q), max(hi, q)",
        new="    return q, (hi - lo) / 4.0, q - (hi - lo) / 2.0, q + (hi - lo) / 2.0",
        tests=(
            "tests/core/planner/test_errors.py::"
            "test_quantile_interval_of_two_modes_is_the_order_statistics_not_a_symmetric_band",
        ),
    ),
    Break(
        name="sizes-private-n-divides-the-mean",
        item="35 sizes",
        path="core/planner/budgets.py",
        old="    if not cls.needs_public_size or not sizes_change(relation, sizes_public):",
        new="    if True:",
        tests=(
            "tests/core/planner/test_budgets.py::"
            "test_a_mean_that_divides_by_n_needs_n_public_under_added_or_removed_records",
            "tests/core/test_planner.py::test_deletion_relation_uses_add_remove_mechanisms",
        ),
    ),
    Break(
        name="sizes-ht-mean-reads-no-size",
        item="35 sizes",
        path="core/mechanisms/means.py",
        old="    needs_public_size = True\n",
        new="    needs_public_size = False\n",
        tests=(
            "tests/core/mechanisms/test_sum_count.py::test_by_name_and_attributes",
            "tests/core/test_planner.py::test_deletion_relation_uses_add_remove_mechanisms",
        ),
    ),
    Break(
        name="sizes-count-noise-spends-the-whole-budget",
        item="35 sizes",
        path="core/mechanisms/sum_count.py",
        old="        return self.half_range / (shares * eps), 1.0 / ((1.0 - shares) * eps)",
        new="        return self.half_range / (shares * eps), 1.0 / eps",
        tests=(
            "tests/core/mechanisms/test_sum_count.py::test_added_or_removed_records_cost_at_most_eps",
        ),
    ),
    Break(
        name="sizes-law-drops-the-count-atom",
        item="35 sizes",
        path="core/mechanisms/sum_count.py",
        old="    atom = laplace_cdf((1.0 - m) / b2)[:, None]",
        new="    atom = 0.0 * laplace_cdf((1.0 - m) / b2)[:, None]",
        tests=(
            "tests/core/mechanisms/test_sum_count.py::test_the_law_integrates_the_count_noise_exactly",
            "tests/core/mechanisms/test_sum_count.py::test_the_denominator_nodes_carry_the_whole_law",
        ),
    ),
    Break(
        name="sizes-release-not-clipped",
        item="35 sizes",
        path="core/mechanisms/sum_count.py",
        old="            np.clip(self.centre + noisy_sum / noisy_count, self.lower, self.upper),",
        new="            self.centre + noisy_sum / noisy_count,",
        tests=("tests/core/mechanisms/test_sum_count.py::test_releases_follow_the_law",),
    ),
    Break(
        name="sizes-planner-draws-the-noise",
        item="35 sizes",
        path="core/planner/errors.py",
        old="    law = draws.law()\n",
        new="    law = None\n",
        tests=(
            "tests/core/planner/test_errors.py::"
            "test_a_release_law_integrates_the_noise_out_of_the_errors",
        ),
    ),
    Break(
        name="sizes-table-forgets-public-sizes",
        item="35 sizes",
        path="core/publication/table.py",
        old="                sizes_public=sizes_public,\n            )",
        new="            )",
        tests=(
            "tests/core/publication/test_table.py::"
            "test_a_cell_mean_is_not_divided_by_a_private_cell_size",
        ),
    ),
    Break(
        name="sizes-config-ignores-sizes-public",
        item="35 sizes",
        path="core/publication/config.py",
        old='            "sizes_public": self.sizes_public,',
        new='            "sizes_public": False,',
        tests=("tests/core/publication/test_config.py::test_a_good_config_builds_the_population",),
    ),
    Break(
        name="sizes-page-toggle-not-passed",
        item="35 sizes",
        path="ui/planner/inputs.py",
        old=(
            '            "mechanisms": self.mechanisms,\n'
            '            "sizes_public": self.sizes_public,\n'
        ),
        new='            "mechanisms": self.mechanisms,\n',
        tests=(
            "tests/pages/test_planner_page.py::"
            "test_sizes_public_toggle_decides_whether_a_mean_may_divide_by_n",
        ),
    ),
    Break(
        name="cluster-frame-assumption-unstated",
        item="35 enumeration",
        path="core/designs/cluster.py",
        old='return " ".join(part for part in (super().caveat(relation), CLUSTER_FRAME) if part)',
        new="return super().caveat(relation)",
        tests=(
            "tests/core/planner/test_budgets.py::"
            "test_a_cluster_sample_states_that_its_list_of_clusters_is_public",
        ),
    ),
    Break(
        name="several-row-at-best-rate",
        item="35 claims",
        path="core/planner/composition.py",
        old="nearest = realised[int(np.argmin(np.abs(np.log(realised / r))))]",
        new='nearest = mine.loc[mine[goal].idxmin(), "rate"]',
        tests=(
            "tests/core/planner/test_composition.py::"
            "test_each_row_at_the_chosen_rate_has_the_numbers_of_the_rate_it_names",
        ),
    ),
    Break(
        name="claim-ignores-monte-carlo-error",
        item="35 claims",
        path="core/planner/claims.py",
        old="    return v + noise < ref and not ties.same(v + noise, ref)",
        new="    return v < ref and not ties.same(v, ref)",
        tests=(
            "tests/ui/planner/test_text.py::"
            "test_a_gain_within_the_monte_carlo_error_recommends_the_census",
        ),
    ),
    Break(
        name="report-green-box-for-a-noisy-plan",
        item="35 claims",
        path="ui/planner/exports/report.py",
        old="    if too_noisy is None:\n        return [",
        new="    if True:\n        return [",
        tests=(
            "tests/ui/planner/test_exports.py::"
            "test_a_plan_too_noisy_to_use_gets_a_warning_not_the_green_box",
        ),
    ),
    Break(
        name="report-census-unnamed",
        item="35 claims",
        path="ui/planner/exports/report.py",
        old='named = reference_plan(str(reference["mechanism_label"]))',
        new='named = "the census"',
        tests=(
            "tests/ui/planner/test_exports.py::"
            "test_report_holds_parameters_ranked_rows_and_recommendation",
        ),
    ),
    Break(
        name="report-ratio-below-resolution",
        item="35 claims",
        path="ui/planner/exports/report.py",
        old="    if census_exact:\n        return _text(",
        new="    if False:\n        return _text(",
        tests=(
            "tests/ui/planner/test_exports.py::"
            "test_report_compares_in_the_datas_units_below_its_resolution",
        ),
    ),
    Break(
        name="notebook-never-too-noisy",
        item="35 claims",
        path="ui/planner/exports/notebook.py",
        old="if usable:\n",
        new="if True:\n",
        tests=(
            "tests/ui/planner/test_exports.py::test_notebook_executes_and_prints_the_plans_numbers",
        ),
    ),
    Break(
        name="release-not-clamped",
        item="35 claims",
        path="core/mechanisms/base.py",
        old="released = np.clip(statistic + draws * scale, lower, upper)",
        new="released = statistic + draws * scale",
        tests=(
            "tests/core/mechanisms/test_base.py::"
            "test_release_is_statistic_plus_scaled_standard_noise",
            "tests/core/mechanisms/test_quantiles.py::"
            "test_additive_mse_matches_a_slow_monte_carlo_reference",
        ),
    ),
    Break(
        name="clamped-error-ignores-its-bias",
        item="35 claims",
        path="core/planner/errors.py",
        old="sq = samp_sq + 2.0 * (stat - theta) * m1 + m2",
        new="sq = samp_sq + m2",
        tests=(
            "tests/core/planner/test_errors.py::"
            "test_summary_of_exact_noise_variances_splits_the_mse",
            "tests/core/planner/test_exact.py::test_a_clamped_release_has_the_errors_of_its_draws",
        ),
    ),
    Break(
        name="census-error-unclamped",
        item="35 claims",
        path="core/mechanisms/base.py",
        old="        second = np.where(b > 0, b * b * square, fixed * fixed)",
        new="        second = np.where(b > 0, b * b * self.unit_noise_variance, fixed * fixed)",
        tests=(
            "tests/core/planner/test_exact.py::test_a_clamped_release_has_the_errors_of_its_draws",
            "tests/core/mechanisms/test_clamping.py::"
            "test_clamped_moments_of_other_noises_match_clipped_draws",
        ),
    ),
    Break(
        name="sum-count-coverage-unsplit",
        item="35 sizes",
        path="core/mechanisms/sum_count.py",
        old="u0 = np.where(np.isfinite(u0), np.maximum(u0, 1.0), 1.0)",
        new="u0 = np.ones_like(u0)",
        tests=(
            "tests/core/mechanisms/test_sum_count.py::"
            "test_the_law_is_the_adaptive_integral_of_its_definition",
            "tests/core/mechanisms/test_sum_count_kernels.py::test_compiled_coverage_equals_numpy",
        ),
    ),
    Break(
        name="sum-count-mse-unsplit",
        item="35 sizes",
        path="core/mechanisms/sum_count.py",
        old="reach = np.abs(self.total[rows])[:, None] / half",
        new="reach = np.ones_like(self.total[rows])[:, None]",
        tests=(
            "tests/core/mechanisms/test_sum_count.py::"
            "test_the_law_is_the_adaptive_integral_of_its_definition",
        ),
    ),
    Break(
        name="strata-profile-rays-dropped",
        item="36 strata profile",
        path="core/accounting/stratified_profile.py",
        old="    rays.setflags(write=False)\n",
        new="    rays = rays[::2]\n    rays.setflags(write=False)\n",
        tests=("tests/core/accounting/test_stratified_profile.py",),
    ),
    Break(
        name="strata-profile-size-off-by-one",
        item="36 strata profile",
        path="core/accounting/stratified_profile.py",
        old="u1, phi1 = _allocation(m + 1.0, rate)",
        new="u1, phi1 = _allocation(m, rate)",
        tests=("tests/core/accounting/test_stratified_profile.py",),
    ),
    Break(
        name="strata-profile-move-orders-mixed",
        item="36 strata profile",
        path="core/accounting/stratified_profile.py",
        old="_best_pair(leave_up, join_down), _best_pair(leave_down, join_up)",
        new="_best_pair(leave_up, join_up), _best_pair(leave_down, join_down)",
        tests=("tests/core/accounting/test_stratified_profile.py",),
    ),
    Break(
        name="cluster-coupling-add-remove-only",
        item="36 cluster coupling",
        path="core/designs/coupling.py",
        old="    return max(alpha, gamma_eff)",
        new="    return alpha",
        tests=("tests/core/designs/test_coupling.py", "tests/core/designs/test_protocol.py"),
    ),
    Break(
        name="gaussian-profile-remove-unscaled",
        item="36 exact profiles",
        path="core/accounting/gaussian_profile.py",
        old="return np.asarray(r * gaussian_delta(_base_eps(e, r), sigma), dtype=np.float64)",
        new="return np.asarray(gaussian_delta(_base_eps(e, r), sigma), dtype=np.float64)",
        tests=(
            "tests/core/accounting/test_gaussian_profile.py::test_directions_match_dp_accounting",
            "tests/core/accounting/test_gaussian_profile.py::"
            "test_srs_profile_is_attained_and_never_exceeded",
        ),
    ),
    Break(
        name="gaussian-profile-add-unshifted",
        item="36 exact profiles",
        path="core/accounting/gaussian_profile.py",
        old="shifted = e[live] + math.log(r) - np.log(c[live])",
        new="shifted = e[live] - np.log(c[live])",
        tests=(
            "tests/core/accounting/test_gaussian_profile.py::test_directions_match_dp_accounting",
        ),
    ),
    Break(
        name="gaussian-profile-balle-wang-sign",
        item="36 exact profiles",
        path="core/accounting/gaussian_profile.py",
        old="b = -0.5 / s - e * s",
        new="b = -0.5 / s + e * s",
        tests=(
            "tests/core/accounting/test_gaussian_profile.py::test_gaussian_delta_is_balle_wang",
        ),
    ),
    Break(
        name="gaussian-budget-uncapped-delta",
        item="36 exact profiles",
        path="core/accounting/gaussian_profile.py",
        old="            return float(gaussian_delta(e, sigma)) - ds",
        new="            return float(gaussian_delta(e, sigma)) - d / r",
        tests=(
            "tests/core/accounting/test_gaussian_profile.py::"
            "test_exact_profile_gains_only_where_delta_sample_is_capped",
            "tests/core/planner/test_profiles.py::"
            "test_refined_release_keeps_and_attains_delta_target_exactly",
        ),
    ),
    Break(
        name="gaussian-refine-ignores-share",
        item="36 exact profiles",
        path="core/planner/profiles.py",
        old="        or share != 1.0\n",
        new="\n",
        tests=(
            "tests/core/planner/test_profiles.py::test_a_budget_share_keeps_the_generic_theorem",
        ),
    ),
    Break(
        name="zcdp-bun-steinke-not-sharp",
        item="zCDP promise",
        path="core/accounting/zcdp.py",
        old="    return e * math.tanh(0.5 * e)",
        new="    return 0.5 * e * e",
        tests=("tests/core/accounting/test_zcdp.py",),
    ),
    Break(
        name="zcdp-converted-the-wrong-way",
        item="zCDP promise",
        path="core/accounting/zcdp.py",
        old="else eps_target_for_rho(self.value)",
        new="else rho_for_eps(self.value)",
        tests=("tests/core/accounting/test_zcdp.py", "tests/core/planner/test_promise.py"),
    ),
    Break(
        name="zcdp-delta-mechanisms-planned",
        item="zCDP promise",
        path="core/planner/setting.py",
        old="return tuple(m for m in fit if m in asked and not promise_refusal(m, kind))",
        new="return tuple(m for m in fit if m in asked)",
        tests=("tests/core/planner/test_promise.py",),
    ),
    Break(
        name="zcdp-table-delta-mechanisms",
        item="zCDP promise",
        path="core/publication/table.py",
        old='pure_only=promise.kind == "zcdp",',
        new="pure_only=False,",
        tests=("tests/core/publication/test_promise.py",),
    ),
    Break(
        name="zcdp-page-drops-rho",
        item="zCDP promise",
        path="app_pages/planner.py",
        old="        rho_target=rho_target,",
        new="        rho_target=None,",
        tests=("tests/pages/test_planner_promise.py",),
    ),
    Break(
        name="exponential-add-remove-factor-back-to-one",
        item="exponential add/remove budget",
        path="core/mechanisms/exponential.py",
        old="return BudgetFactors(cls.name, max(q, 1.0 - q), cls.change_factor)",
        new="return BudgetFactors(cls.name, 1.0, cls.change_factor)",
        tests=(
            "tests/core/mechanisms/test_exponential.py::"
            "test_add_remove_loss_is_max_q_one_minus_q_and_attained",
        ),
    ),
    Break(
        name="exponential-add-remove-factor-min-q",
        item="exponential add/remove budget",
        path="core/mechanisms/exponential.py",
        old="return BudgetFactors(cls.name, max(q, 1.0 - q), cls.change_factor)",
        new="return BudgetFactors(cls.name, min(q, 1.0 - q), cls.change_factor)",
        tests=(
            "tests/core/mechanisms/test_exponential.py::"
            "test_add_remove_loss_is_max_q_one_minus_q_and_attained",
            "tests/core/planner/test_exact_privacy.py::test_release_keeps_the_stated_eps_target"
            "[six-deletion-quantile-census-exponential-1]",
        ),
    ),
    Break(
        name="planner-accounts-every-level-as-the-median",
        item="exponential add/remove budget",
        path="core/planner/setting.py",
        old="factors = mech.MECHANISMS[m].budget_factors(setting.quantile)",
        new="factors = mech.MECHANISMS[m].budget_factors(0.5)",
        tests=(
            "tests/core/planner/test_budgets.py::"
            "test_plan_under_deletion_gives_the_exponential_quantile_its_levels_budget",
        ),
    ),
    Break(
        name="joint-exp-add-remove-largest-gap",
        item="exponential add/remove budget",
        path="core/mechanisms/joint_exp.py",
        old="return BudgetFactors(self.name, float(1.0 - gaps.min()), self.change_factor)",
        new="return BudgetFactors(self.name, float(1.0 - gaps.max()), self.change_factor)",
        tests=(
            "tests/core/mechanisms/test_joint_exp.py::"
            "test_density_ratio_of_neighbours_is_at_most_e_to_eps",
        ),
    ),
    Break(
        name="poisson-shared-sample-keeps-two-budgets",
        item="exponential add/remove budget",
        path="core/designs/individual.py",
        old="change = 2.0 * factors.add_remove if shared else factors.change\n        eps = float(",
        new="change = factors.change\n        eps = float(",
        tests=(
            "tests/core/designs/test_individual.py::"
            "test_shared_sample_shares_compose_within_eps_target",
            "tests/core/planner/test_composition.py::"
            "test_shares_of_any_mechanisms_compose_within_eps_target_on_poisson_samples",
        ),
    ),
    Break(
        name="shared-sample-reads-the-change-budget",
        item="36 strata profile",
        path="core/designs/protocol.py",
        old=(
            'return float(alpha), 2.0 * float(alpha) if shared else _factor(factors, "replacement")'
        ),
        new='return float(alpha), _factor(factors, "replacement")',
        tests=(
            "tests/core/accounting/test_stratified_profile.py::"
            "test_releases_that_share_a_stratified_sample_compose_within_eps_target",
            "tests/core/designs/test_coupling.py::test_the_factor_is_the_larger_budget",
        ),
    ),
    Break(
        name="rows-exponential-wrong-row-length",
        item="37 planner at page defaults",
        path="core/mechanisms/exponential.py",
        old="        c = quantile * n\n",
        new="        c = quantile * (n + 1)\n",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="rows-exponential-window-too-narrow",
        item="37 planner at page defaults",
        path="core/mechanisms/exponential.py",
        old="_UNDERFLOW = 800.0",
        new="_UNDERFLOW = 8.0",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_many_rows_of_near_sizes_agree_with_one_release_each",
        ),
    ),
    Break(
        name="rows-exponential-draws-dealt-out-of-order",
        item="37 planner at page defaults",
        path="core/mechanisms/exponential.py",
        old="uniforms[0::2], uniforms[1::2])",
        new="uniforms[: len(rows)], uniforms[len(rows) :])",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
            "tests/core/mechanisms/test_rows.py::"
            "test_many_rows_of_near_sizes_agree_with_one_release_each",
        ),
    ),
    Break(
        name="rows-statistic-at-the-wrong-rank",
        item="37 planner at page defaults",
        path="core/mechanisms/quantiles.py",
        old="rows.values[rows.starts + ranks - 1]",
        new="rows.values[rows.starts + ranks // 2]",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="rows-gather-padding-leaks-into-the-samples",
        item="37 planner at page defaults",
        path="core/mechanisms/rows.py",
        old="            out = out[:total]\n",
        new="            out = out[: total + 1]\n",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_rows_from_a_mask_are_the_masked_values_row_by_row",
        ),
    ),
    Break(
        name="rows-a-sample-boundary-read-as-unsorted",
        item="37 planner at page defaults",
        path="core/mechanisms/rows.py",
        old="drops[first - 1] = False",
        new="drops[first - 1] = drops[first - 1]",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_sorted_rows_check_each_sample_but_not_across_samples",
        ),
    ),
    Break(
        name="rows-any-noise-drawn-as-one-batch",
        item="37 planner at page defaults",
        path="core/mechanisms/rows.py",
        old="if type(mechanism).standard_noise is Mechanism.standard_noise:",
        new="if True:",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="rows-empty-samples-released-first",
        item="37 planner at page defaults",
        path="core/mechanisms/rows.py",
        old="            pieces.append(empty_release(mechanism, eps, lo, hi, rng, known))",
        new="            pieces.insert(0, empty_release(mechanism, eps, lo, hi, rng, known))",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="keys-kept-for-another-population",
        item="37 planner at page defaults",
        path="core/planner/simulate.py",
        old="kept[0]() is frame and ",
        new="",
        tests=(
            "tests/core/planner/test_simulate.py::test_keys_kept_for_the_same_design_population_and_seed_only",
        ),
    ),
    Break(
        name="coverage-prepared-once-forgets-noiseless-rows",
        item="37 planner at page defaults",
        path="core/mechanisms/clamping.py",
        old="            if not every:\n",
        new="            if False:\n",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_coverage_prepared_once_equals_the_coverage_at_each_point",
        ),
    ),
    Break(
        name="batch-check-lets-infinity-through",
        item="37 planner at page defaults",
        path="core/mechanisms/base.py",
        old="        and np.isfinite(arr[:, -1]).all()",
        new="        and True",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_a_batch_check_rejects_what_the_numpy_checks_reject",
        ),
    ),
    Break(
        name="warm-up-plans-nothing",
        item="37 planner at page defaults",
        path="core/planner/warm.py",
        old="    for pop in (small, tied):\n",
        new="    for pop in ():\n",
        tests=("tests/core/planner/test_warm.py::test_warm_up_loads_what_the_default_plan_uses",),
    ),
    Break(
        name="frame-cache-keyed-by-values-only",
        item="37 planner at scale",
        path="core/designs/frame_cache.py",
        old='key = str(getattr(population, "content_hash", "") or "")',
        new="key = str(hash(population.values.tobytes()))",
        tests=(
            "tests/core/planner/test_preparation.py::test_frames_are_kept_by_everything_they_read",
        ),
    ),
    Break(
        name="checked-values-ignore-bounds",
        item="37 planner at scale",
        path="core/_checked.py",
        old="return rec is not None and lower <= rec.low and rec.high <= upper",
        new="return rec is not None",
        tests=(
            "tests/core/planner/test_preparation.py::test_only_a_read_only_array_inside_the_bounds_counts_as_checked",
            "tests/core/planner/test_preparation.py::test_a_census_on_checked_values_still_refuses_values_outside_the_bounds",
        ),
    ),
    Break(
        name="checked-values-trust-writeable",
        item="37 planner at scale",
        path="core/_checked.py",
        old="        or arr.flags.writeable\n",
        new="",
        tests=(
            "tests/core/planner/test_preparation.py::test_only_a_read_only_array_inside_the_bounds_counts_as_checked",
        ),
    ),
    Break(
        name="frame-codes-first-appearance",
        item="37 planner at scale",
        path="core/designs/frame.py",
        old='order = np.argsort(np.asarray(uniques), kind="stable")',
        new="order = np.arange(len(uniques))",
        tests=(
            "tests/core/planner/test_preparation.py::test_frame_codes_number_the_labels_in_sorted_order",
        ),
    ),
    Break(
        name="frame-mean-kept-under-a-shared-key",
        item="37 planner at scale",
        path="core/designs/frame.py",
        old='return self.prepared("mean", lambda f: float(f.values.mean()))',
        new='return self.prepared("value_runs", lambda f: float(f.values.mean()))',
        tests=(
            "tests/core/planner/test_preparation.py::test_a_prepared_frame_gives_the_same_plan_as_a_new_one",
        ),
    ),
    Break(
        name="run-counts-last-cluster-only",
        item="37 planner at scale",
        path="core/windowed/run_counts.py",
        old="out[r, col] += per_run[c, col]",
        new="out[r, col] = per_run[c, col]",
        tests=(
            "tests/core/windowed/test_run_counts_paths.py::"
            "test_counts_of_drawn_are_the_drawn_clusters_records",
        ),
    ),
    Break(
        name="census-start-ignores-exact-zero",
        item="37 accuracy first",
        path="core/planner/accuracy_first.py",
        old="step = math.log(e) - math.log(target) if e > 0 else ua - u",
        new="step = math.log(e) - math.log(target) if e > 0 else 0.0",
        tests=(
            "tests/core/planner/test_accuracy_first_start.py::test_the_census_start_meets_the_census_bound",
        ),
    ),
    Break(
        name="publication-rows-not-streamed",
        item="37 publication",
        path="core/publication/table.py",
        old="            on_row(row)",
        new="            pass",
        tests=(
            "tests/core/publication/test_table_rows.py::"
            "test_rows_arrive_one_by_one_and_make_the_table",
        ),
    ),
    Break(
        name="draw-cost-tick-labels-measured",
        item="37 page drawing cost",
        path="ui/theme.py",
        old='        "ticklabeloverflow": "allow",\n',
        new="",
        tests=("tests/pages/test_draw_cost.py",),
    ),
    Break(
        name="draw-cost-snippet-sent-closed",
        item="37 page drawing cost",
        path="ui/charts.py",
        old='    drawn_when_opened("Reproduce in Python", key, show, icon=CODE_ICON)',
        new="    show()",
        tests=("tests/pages/test_draw_cost.py",),
    ),
    Break(
        name="population-copied-per-call",
        item="37 page first load",
        path="ui/state.py",
        old='@st.cache_resource(max_entries=24, show_spinner="Drawing the population…")',
        new='@st.cache_data(max_entries=24, show_spinner="Drawing the population…")',
        tests=("tests/ui/test_state.py",),
    ),
    Break(
        name="router-no-module-warm-up",
        item="37 page first load",
        path="ui/router.py",
        old="    warm_page_modules()  # once per server",
        new="    pass  # once per server",
        tests=("tests/ui/test_router.py",),
    ),
    Break(
        name="router-imports-after-the-read",
        item="37 register first page",
        path="ui/router.py",
        old="    if spec is None or not reading(argv):",
        new="    if True:",
        tests=("tests/ui/test_router.py",),
    ),
    Break(
        name="command-line-reading-never",
        item="37 register first page",
        path="ui/command_line.py",
        old="    return started is not None and not started.done()",
        new="    return False",
        tests=("tests/ui/test_command_line.py",),
    ),
    Break(
        name="server-start-starts-nothing",
        item="37 register first page",
        path="ui/server.py",
        old="    read = start_preparation(argv)\n    imports = warm_page_modules()\n",
        new="    read = imports = None\n",
        tests=("tests/ui/test_server.py",),
    ),
    Break(
        name="serve-without-lifespan",
        item="37 register first page",
        path="serve.py",
        old='app = st.App("app.py", lifespan=lifespan)',
        new='app = st.App("app.py")',
        tests=("tests/ui/test_server.py",),
    ),
    Break(
        name="strata-keys-wrap",
        item="37 preparation memory",
        path="core/designs/stratified_windows.py",
        old="    return np.uint32 if strata * N < 2**32 else np.int64",
        new="    return np.uint32 if strata * N < 2**33 else np.int64",
        tests=("tests/core/designs/test_frame_compact.py",),
    ),
    Break(
        name="strata-keys-wide",
        item="37 preparation memory",
        path="core/designs/stratified_windows.py",
        old="    return np.uint32 if strata * N < 2**32 else np.int64",
        new="    return np.int64",
        tests=("tests/core/designs/test_frame_compact.py",),
    ),
    Break(
        name="mean-deviations-stored",
        item="37 preparation memory",
        path="core/designs/mean_error.py",
        old="    total, squares = _centred_sums(x, first)\n",
        new="    _d = x - first\n    total, squares = float(np.sum(_d)), float(np.dot(_d, _d))\n",
        tests=("tests/core/designs/test_group_sums.py",),
    ),
    Break(
        name="mean-sums-skip-a-slice",
        item="37 preparation memory",
        path="core/designs/mean_error.py",
        old="    for start in range(0, x.size, _CHUNK):",
        new="    for start in range(0, x.size - _CHUNK + 1, _CHUNK):",
        tests=("tests/core/designs/test_group_sums.py",),
    ),
    Break(
        name="grouped-by-argsort",
        item="37 preparation memory",
        path="core/designs/grouped.py",
        old="    if _numba is None:  # pragma: no cover - exercised only where numba is missing\n",
        new="    if True:\n",
        tests=("tests/core/designs/test_grouped.py",),
    ),
    Break(
        name="grouped-fill-reversed",
        item="37 preparation memory",
        path="core/designs/grouped.py",
        old="    for i in range(codes.shape[0]):\n        c = codes[i]\n",
        new="    for i in range(codes.shape[0] - 1, -1, -1):\n        c = codes[i]\n",
        tests=("tests/core/designs/test_grouped.py",),
    ),
    Break(
        name="frame-codes-skip-last-slice",
        item="37 preparation memory",
        path="core/designs/frame.py",
        old="    for start in range(0, codes.size, _GATHER_SLICE):",
        new="    for start in range(0, codes.size - _GATHER_SLICE, _GATHER_SLICE):",
        tests=("tests/core/designs/test_frame_compact.py",),
    ),
    Break(
        name="runs-order-unchecked",
        item="37 preparation memory",
        path="core/windowed/runs.py",
        old="        if not y.size or np.any(y[1:] < y[:-1]):",
        new="        if not y.size:",
        tests=("tests/core/designs/test_frame_compact.py",),
    ),
    Break(
        name="warm-up-full-priority",
        item="37 page first load",
        path="ui/router.py",
        old="def _import_all(modules: Sequence[str]) -> None:\n    _lower_priority()\n",
        new="def _import_all(modules: Sequence[str]) -> None:\n",
        tests=("tests/ui/test_router.py",),
    ),
    Break(
        name="gains-heat-double-precision",
        item="37 page first load",
        path="ui/gains/figures.py",
        old="HEAT_DTYPE = np.float32",
        new="HEAT_DTYPE = np.float64",
        tests=("tests/pages/test_draw_cost.py",),
    ),
    Break(
        name="gains-heat-finer-grid",
        item="37 page first load",
        path="ui/gains/views.py",
        old="HEAT_CELLS = 80",
        new="HEAT_CELLS = 120",
        tests=("tests/pages/test_draw_cost.py",),
    ),
    Break(
        name="router-planner-not-warmed",
        item="37 page first load",
        path="ui/router.py",
        old="    from core.planner.warm import warm_up\n\n    warm_up()\n",
        new="    pass\n",
        tests=("tests/ui/test_router.py::test_the_router_starts_the_warm_up_after_a_page",),
    ),
    Break(
        name="rows-empty-parts-kept-across-calls",
        item="37 planner at page defaults",
        path="core/mechanisms/rows.py",
        old="    known: dict[tuple[float, float], EmptyParts] = {}\n",
        new="    known = empty_release.__dict__.setdefault('known', {})\n",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="planner-tab-not-a-fragment",
        item="37 planner fragments",
        path="ui/planner/tabs.py",
        old="    st.fragment(view) for view in (compare_view, accuracy_view, several_view, "
        "publication_view)",
        new="    view for view in (compare_view, accuracy_view, several_view, publication_view)",
        tests=(
            "tests/pages/test_planner_fragments.py::test_every_tab_runs_in_a_fragment_of_its_own",
            "tests/pages/test_planner_fragments.py::test_a_control_inside_a_tab_reruns_that_tab_only",
        ),
    ),
    Break(
        name="planner-link-forgets-page-controls",
        item="37 planner fragments",
        path="ui/planner/downloads.py",
        old="        query.setdefault(key, list(values))",
        new="        pass",
        tests=(
            "tests/pages/test_planner_fragments.py::"
            "test_the_link_after_a_rerun_of_the_tab_keeps_the_pages_controls",
        ),
    ),
    Break(
        name="planner-live-key-misses-an-input",
        item="37 planner cache keys",
        path="ui/planner/inputs.py",
        old="        ctx.sizes_public,\n        ctx.rho_target,\n",
        new="        ctx.rho_target,\n",
        tests=(
            "tests/ui/planner/test_cache.py::"
            "test_the_comparisons_key_follows_every_input_that_enters_the_plan",
        ),
    ),
    Break(
        name="planner-plan-not-cached",
        item="37 planner cache keys",
        path="ui/planner/cache.py",
        old="@st.cache_data(max_entries=24, show_spinner=False)\ndef plan(",
        new="def plan(",
        tests=(
            "tests/pages/test_planner_first_rows.py::"
            "test_the_page_reports_the_census_then_each_design_and_a_rerun_reuses_the_plan",
            "tests/pages/test_planner_fragments.py::"
            "test_controls_that_do_not_enter_the_plan_do_not_recompute_it",
        ),
    ),
    Break(
        name="planner-live-rows-not-drawn",
        item="37 planner first rows",
        path="ui/planner/compare.py",
        old="        self.outside.run(self._draw, progress)",
        new="        pass",
        tests=(
            "tests/pages/test_planner_first_rows.py::"
            "test_the_census_row_shows_first_then_the_simple_random_sample",
        ),
    ),
    Break(
        name="planner-publication-button-reruns-only-its-tab",
        item="37 planner fragments",
        path="ui/planner/publication.py",
        old="        st.rerun()",
        new="        pass",
        tests=(
            "tests/pages/test_planner_fragments.py::"
            "test_the_publication_tabs_way_out_of_a_population_without_labels_reruns_the_page",
        ),
    ),
    Break(
        name="planner-snippet-sent-closed",
        item="37 page first load",
        path="ui/planner/compare.py",
        old='compare_text.python_snippet(pop, **ctx.plan_arguments()), key="planner")',
        new="compare_text.python_snippet(pop, **ctx.plan_arguments()))",
        tests=("tests/pages/test_planner_promise.py::test_a_bad_rho_in_a_link_is_explained",),
    ),
    Break(
        name="gains-worked-examples-data-grid",
        item="37 page first load",
        path="ui/gains/views.py",
        old="    st.table(\n        text.worked_examples(eps_values, 0.6)",
        new="    st.dataframe(\n        text.worked_examples(eps_values, 0.6)",
        tests=(
            "tests/pages/test_gains_page.py::"
            "test_gains_worked_examples_are_sorted_by_eps_with_one_format_per_column",
        ),
    ),
    Break(
        name="planner-link-sent-closed",
        item="37 page first load",
        path="ui/planner/downloads.py",
        old='        drawn_when_opened(\n            "Link to this plan",',
        new='        (lambda *_, **__: link_block(link))(\n            "Link to this plan",',
        tests=(
            "tests/pages/test_planner_page.py::"
            "test_the_reports_link_reproduces_the_plan_with_every_control",
        ),
    ),
    Break(
        name="gains-q-heatmap-drawn-closed",
        item="37 page first load",
        path="ui/charts.py",
        old="        if box.open:\n            draw()",
        new="        if True:\n            draw()",
        tests=("tests/pages/test_draw_cost.py::test_gains_draws_its_q_heat_map_only_when_opened",),
    ),
    Break(
        name="37 load ties left unstable",
        item="37 large register",
        path="core/csv_io/loading.py",
        old="    if first.size:\n        n = order.size",
        new="    if False:\n        n = order.size",
        tests=(
            "tests/core/test_population_fast_paths.py::test_the_loaders_sort_is_numpys_stable_sort",
        ),
    ),
    Break(
        name="37 load categorical order kept",
        item="37 large register",
        path="core/population.py",
        old="    codes, first = pd.factorize(raw, sort=False)",
        new="    codes, first = raw.astype(np.intp), np.arange(len(categories))",
        tests=(
            "tests/core/test_population_fast_paths.py::"
            "test_a_text_categorical_gives_the_population_of_its_object_array",
        ),
    ),
    Break(
        name="37 load blank labels uncounted",
        item="37 large register",
        path="core/csv_io/loading.py",
        old="codes, blank_text = pairs, blank_text[left] | blank[right]",
        new="codes, blank_text = pairs, blank[right]",
        tests=(
            "tests/core/test_population_fast_paths.py::"
            "test_loaded_labels_equal_the_cells_joined_in_value_order",
        ),
    ),
    Break(
        name="37 frame codes int64 again",
        item="37 large register",
        path="core/designs/frame.py",
        old="    rank = np.empty(order.size, dtype=_narrowest(order.size))",
        new="    rank = np.empty(order.size, dtype=np.int64)",
        tests=(
            "tests/core/designs/test_frame_compact.py::"
            "test_frame_codes_are_narrow_and_number_the_sorted_labels",
        ),
    ),
    Break(
        name="publication-tab-rows-not-handed",
        item="37 publication live rows",
        path="ui/planner/publication.py",
        old="        on_row=_on_row,\n",
        new="",
        tests=("tests/ui/planner/test_publication.py::test_table_plan_hands_each_row_to_the_page",),
    ),
    Break(
        name="publication-live-rows-dropped",
        item="37 publication live rows",
        path="ui/planner/publication.py",
        old="        self.rows.append(row)\n",
        new="",
        tests=(
            "tests/ui/planner/test_publication.py::"
            "test_live_rows_show_each_planned_row_as_the_finished_table_does",
        ),
    ),
    Break(
        name="sum-count-compiled-mse-sign",
        item="37 publication sum-count kernels",
        path="core/mechanisms/sum_count_kernels.py",
        old="(d0 * d0 + 2.0 * b * d0 + 2.0 * b * b)",
        new="(d0 * d0 - 2.0 * b * d0 + 2.0 * b * b)",
        tests=("tests/core/mechanisms/test_sum_count_kernels.py",),
    ),
    Break(
        name="sum-count-compiled-coverage-piece",
        item="37 publication sum-count kernels",
        path="core/mechanisms/sum_count_kernels.py",
        old="        expo = _piece(e_start, slope, end - start) / (4.0 * b2)\n",
        new="        expo = _piece(e_start, slope, end - start) / (2.0 * b2)\n",
        tests=("tests/core/mechanisms/test_sum_count_kernels.py",),
    ),
    Break(
        name="planner-empty-samples-parts-recomputed",
        item="37 planner plan cost",
        path="core/planner/simulate.py",
        old="out, empty_release(mechanism, eps_sample, frame.lower, frame.upper, rng, known))",
        new="out, empty_release(mechanism, eps_sample, frame.lower, frame.upper, rng))",
        tests=(
            "tests/core/planner/test_simulate.py::"
            "test_empty_samples_sharing_their_parts_release_what_each_alone_releases",
        ),
    ),
    Break(
        name="cluster-grid-cell-upper-end",
        item="37 planner plan cost",
        path="core/designs/cluster_grid.py",
        old="g1 = min(g + 1, last)",
        new="g1 = g",
        tests=(
            "tests/core/designs/test_cluster_grid.py::"
            "test_grid_scan_and_select_equal_the_plain_kernels",
        ),
    ),
    Break(
        name="cluster-grid-select-cell-start",
        item="37 planner plan cost",
        path="core/designs/cluster_grid.py",
        old="lo = (g_lo - 1) * step",
        new="lo = g_lo * step",
        tests=(
            "tests/core/designs/test_cluster_grid.py::"
            "test_grid_scan_and_select_equal_the_plain_kernels",
        ),
    ),
    Break(
        name="bound-search-jump-returns-its-start",
        item="37 publication bound search",
        path="core/planner/errors.py",
        old="            return j\n        hi = below",
        new="            return lo\n        hi = below",
        tests=(
            "tests/core/planner/test_errors.py::"
            "test_the_bound_search_bracketed_at_jumps_finds_the_smallest_covering_error",
        ),
    ),
    Break(
        name="bound-search-between-jumps-offset-lost",
        item="37 publication bound search",
        path="core/planner/errors.py",
        old="    return lo + _root(lambda v: coverage(lo + v) - level, hi - lo)",
        new="    return _root(lambda v: coverage(lo + v) - level, hi - lo)",
        tests=(
            "tests/core/planner/test_errors.py::"
            "test_the_bound_search_bracketed_at_jumps_finds_the_smallest_covering_error",
        ),
    ),
    Break(
        name="group-sums-square-dropped",
        item="37 preparation memory",
        path="core/designs/group_sums.py",
        old="t2[c] += e * e",
        new="t2[c] += e",
        tests=(
            "tests/core/designs/test_group_sums.py::test_two_pass_sums_agree_with_bincount_for_every_code_type",
        ),
    ),
    Break(
        name="group-sums-shift-sign",
        item="37 preparation memory",
        path="core/designs/group_sums.py",
        old="out[codes[i]] += values[i] - shift",
        new="out[codes[i]] += values[i] + shift",
        tests=(
            "tests/core/designs/test_group_sums.py::test_shifted_sums_equal_bincount_of_shifted_values",
        ),
    ),
    Break(
        name="group-sums-empty-groups-kept",
        item="37 preparation memory",
        path="core/designs/mean_error.py",
        old="""        keep = counts > 0
        sizes = counts[keep]""",
        new="""        keep = counts >= 0
        sizes = counts[keep]""",
        tests=(
            "tests/core/designs/test_group_sums.py::test_mean_population_from_frame_codes_equals_the_coded_labels_one",
        ),
    ),
    Break(
        name="group-sums-sparse-codes-counted",
        item="37 preparation memory",
        path="core/designs/mean_error.py",
        old="int(arr.min()) >= 0 and int(arr.max()) < 2 * N + 1024:",
        new="int(arr.min()) >= 0:",
        tests=(
            "tests/core/designs/test_group_sums.py::test_sparse_integer_labels_are_coded_not_counted",
        ),
    ),
    Break(
        name="command-line-read-twice",
        item="37 register preparation",
        path="ui/command_line.py",
        old="    if started is not None:\n        return started.result()\n    return _load(argv)",
        new="    return _load(argv)",
        tests=(
            "tests/ui/test_command_line.py::"
            "test_the_background_read_is_the_one_the_run_takes_and_a_large_file_is_prepared",
        ),
    ),
    Break(
        name="command-line-not-prepared",
        item="37 register preparation",
        path="ui/command_line.py",
        old="    planned = time.perf_counter()\n    prepare_population(pop)\n",
        new="    planned = time.perf_counter()\n",
        tests=(
            "tests/ui/test_command_line.py::"
            "test_the_background_read_is_the_one_the_run_takes_and_a_large_file_is_prepared",
        ),
    ),
    Break(
        name="first-plan-other-inputs",
        item="37 register preparation",
        path="ui/planner/first_plan.py",
        old="        designs=tuple(d for d in text.PICKABLE_DESIGNS if d in available),",
        new="        designs=tuple(d for d in sorted(text.PICKABLE_DESIGNS) if d in available),",
        tests=(
            "tests/pages/test_command_line_population.py::"
            "test_the_plan_computed_ahead_is_the_one_the_planner_page_shows_first",
        ),
    ),
    Break(
        name="planner-ties-refined-by-last-digits",
        item="37 planner ties",
        path="core/planner/engine.py",
        old="    i = ties.first_least(objective_values)",
        new="    i = int(np.nanargmin(np.asarray(objective_values, dtype=np.float64)))",
        tests=(
            "tests/core/planner/test_ties.py::"
            "test_the_refinement_picks_the_same_rates_whichever_search_found_the_tied_bounds",
        ),
    ),
    Break(
        name="planner-ties-best-row-by-last-digits",
        item="37 planner ties",
        path="core/planner/engine.py",
        old="best_idx = [a + ties.first_least(values[a:z]) for a, z in bounds]",
        new="best_idx = [a + int(np.nanargmin(values[a:z])) for a, z in bounds]",
        tests=(
            "tests/core/planner/test_ties.py::"
            "test_the_refinement_picks_the_same_rates_whichever_search_found_the_tied_bounds",
            "tests/core/planner/test_ties.py::"
            "test_the_ranked_table_is_in_display_order_with_first_least_picks_whatever_the_rows_order",
        ),
    ),
    Break(
        name="planner-bound-search-not-bracketed",
        item="37 planner ties",
        path="core/planner/errors.py",
        old="    x = _bracketed_root(coverage, level, top, (above, -below))",
        new="    x = _root(lambda v: coverage(v) - level, top)",
        tests=(
            "tests/core/planner/test_ties.py::"
            "test_a_bound_at_a_clip_jump_is_the_jump_and_the_old_search_finds_it_to_its_tolerance",
        ),
    ),
    Break(
        name="planner-ties-census-gain-by-last-digits",
        item="37 planner ties",
        path="core/planner/claims.py",
        old=" and not ties.same(v + noise, ref)",
        new="",
        tests=(
            "tests/core/planner/test_ties.py::"
            "test_a_bound_the_same_as_the_census_s_is_no_gain_over_it",
        ),
    ),
    Break(
        name="cluster-windows-plain-select-cluster-start",
        item="37 cluster selection shared",
        path="core/designs/cluster_windows.py",
        old="            lo_i[t] = off[c]\n",
        new="            lo_i[t] = off[c] + 1\n",
        tests=(
            "tests/core/designs/test_cluster_grid.py::"
            "test_grid_scan_and_select_equal_the_plain_kernels",
        ),
    ),
    Break(
        name="planner-empty-samples-batch-drops-some",
        item="37 planner plan cost",
        path="core/planner/simulate.py",
        old="known) for _ in range(count)]",
        new="known) for _ in range(min(count, 1))]",
        tests=(
            "tests/core/planner/test_simulate.py::"
            "test_empty_samples_released_as_one_batch_equal_each_released_alone",
        ),
    ),
    Break(
        name="statistical-link-closes-distributions",
        item="37 page first load",
        path="ui/statistical/views.py",
        old="        expanded=DISTRIBUTIONS_KEY in st.query_params,",
        new="        expanded=False,",
        tests=(
            "tests/pages/test_draw_cost.py::"
            "test_statistical_draws_the_answer_distributions_when_opened_or_linked",
        ),
    ),
    Break(
        name="pub-empty-laplace-draws-out-of-order",
        item="37 publication releases",
        path="core/mechanisms/rows.py",
        old="eps, delta, lower, upper, draws[~empty])",
        new="eps, delta, lower, upper, draws[: int((~empty).sum())])",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="pub-empty-exponential-one-draw-too-many",
        item="37 publication releases",
        path="core/mechanisms/exponential.py",
        old="used = np.where(empty, 1, 2)",
        new="used = np.where(empty, 2, 2)",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="pub-empty-statistic-at-the-lower-bound",
        item="37 publication releases",
        path="core/mechanisms/rows.py",
        old="put(filled.statistic, c),",
        new="put(filled.statistic, lower),",
        tests=(
            "tests/core/mechanisms/test_rows.py::test_release_rows_equals_one_release_per_sample",
        ),
    ),
    Break(
        name="pub-ragged-sums-not-centred",
        item="37 publication releases",
        path="core/mechanisms/sum_count.py",
        old="np.add.reduceat(samples.values - self.centre,",
        new="np.add.reduceat(samples.values,",
        tests=(
            "tests/core/mechanisms/test_sum_count.py::"
            "test_sorted_rows_are_released_as_the_list_of_their_samples",
        ),
    ),
    Break(
        name="pub-share-coarse-grid-only",
        item="37 publication sum-count kernels",
        path="core/mechanisms/sum_count.py",
        old="near = np.arange(max(coarse - _COARSE + 1, 0), min(coarse + _COARSE, last + 1))",
        new="near = np.array([coarse])",
        tests=(
            "tests/core/mechanisms/test_sum_count.py::test_the_share_is_the_least_of_the_whole_grid",
        ),
    ),
    Break(
        name="pub-law-mses-swapped",
        item="37 publication sum-count kernels",
        path="core/planner/errors.py",
        old="about_theta, about_stat = both([theta, stat])",
        new="about_stat, about_theta = both([theta, stat])",
        tests=(
            "tests/core/planner/test_coverage_kernels.py::"
            "test_a_law_s_two_mses_are_about_theta_then_each_statistic",
        ),
    ),
    Break(
        name="pub-mse-inside-upper-atom-lost",
        item="37 publication sum-count kernels",
        path="core/mechanisms/sum_count_kernels.py",
        old="p_high = 1.0 - (1.0 - e_high)",
        new="p_high = 1.0 - e_high",
        tests=("tests/core/mechanisms/test_sum_count_kernels.py",),
    ),
    Break(
        name="pub-nodes-empty-pieces-first",
        item="37 publication sum-count kernels",
        path="core/mechanisms/sum_count_kernels.py",
        old="if (right > left) != (kept == 0):",
        new="if (right > left) == (kept == 0):",
        tests=("tests/core/mechanisms/test_sum_count_kernels.py::test_compiled_nodes_equal_numpy",),
    ),
    Break(
        name="pub-laplace-coverage-noiseless-below",
        item="37 publication bound search",
        path="core/planner/coverage_kernels.py",
        old="lo = 0.0 if bottom or not fixed[i] < -x else 1.0",
        new="lo = 0.0 if bottom or fixed[i] < -x else 1.0",
        tests=("tests/core/planner/test_coverage_kernels.py::test_compiled_coverage_equals_numpy",),
    ),
    Break(
        name="pub-size-free-mean-not-warmed",
        item="37 publication sum-count kernels",
        path="core/planner/warm.py",
        old='seed=0, relation="deletion")\n',
        new='seed=0, relation="replacement")\n',
        tests=("tests/core/planner/test_warm.py::test_warm_up_loads_what_the_default_plan_uses",),
    ),
    Break(
        name="pub-law-mean-coverage-off-by-a-row",
        item="37 publication bound search",
        path="core/mechanisms/sum_count_kernels.py",
        old="    return total / repeat.size",
        new="    return total / (repeat.size + 1)",
        tests=(
            "tests/core/planner/test_coverage_kernels.py::"
            "test_a_size_free_mean_s_coverage_averaged_in_one_pass",
        ),
    ),
    Break(
        name="pub-laplace-mean-coverage-off-by-a-row",
        item="37 publication bound search",
        path="core/planner/coverage_kernels.py",
        old="    return total / out.size",
        new="    return total / (out.size + 1)",
        tests=(
            "tests/core/planner/test_coverage_kernels.py::"
            "test_the_mean_coverage_is_the_mean_of_the_rows",
        ),
    ),
    Break(
        name="stale-rules-not-sent",
        item="issue 37 new tab: stale-result rules",
        path="ui/widgets.py",
        old='st.html(f"<style>{stale_css(name)}</style>")',
        new="pass",
        tests=(
            "tests/ui/test_stale_results.py::"
            "test_every_chart_and_metric_is_inside_a_result_container",
            "tests/ui/test_stale_results.py::"
            "test_planner_accuracy_answer_has_its_own_result_container",
        ),
    ),
    Break(
        name="stale-rules-nested-twice",
        item="issue 37 new tab: stale-result rules",
        path="ui/widgets.py",
        old="if name not in NESTED_RESULTS:",
        new="if True:",
        tests=(
            "tests/ui/test_stale_results.py::"
            "test_planner_accuracy_answer_has_its_own_result_container",
        ),
    ),
    Break(
        name="stale-rules-every-element",
        item="issue 37 new tab: stale-result rules",
        path="ui/theme.py",
        old='faded = [f"{rule} > {child}" for rule in stale for child in BLOCK_CHILDREN]',
        new='faded = [f"{rule} > *" for rule in stale]',
        tests=("tests/ui/test_stale_results.py::test_rules_never_test_every_element",),
    ),
    Break(
        name="plan-ranked-rate-before-mechanism",
        item="37 planner plan cost",
        path="core/planner/engine.py",
        old="order = np.lexsort((rate, mech_code, design_code)) if n else np.arange(0)",
        new="order = np.lexsort((mech_code, rate, design_code)) if n else np.arange(0)",
        tests=(
            "tests/core/planner/test_ties.py::"
            "test_the_ranked_table_is_in_display_order_with_first_least_picks_whatever_the_rows_order",
        ),
    ),
    Break(
        name="plan-all-valid-scan-skips-the-order",
        item="37 planner plan cost",
        path="core/sensitivity/checks.py",
        old="                bad |= a[r, k] < a[r, k - 1]",
        new="                bad |= a[r, k] < a[r, 0]",
        tests=(
            "tests/core/sensitivity/test_checks.py::"
            "test_the_compiled_all_valid_scan_agrees_with_numpy_on_planted_faults",
        ),
    ),
    Break(
        name="resolution-grain-from-sample",
        item="37 register preparation",
        path="core/resolution.py",
        old="        if _multiples(sample, grain) and _multiples(arr, grain):",
        new="        if _multiples(sample, grain):",
        tests=(
            "tests/core/test_resolution.py::"
            "test_a_grain_holds_for_every_value_not_only_for_the_ones_tried_first",
        ),
    ),
    Break(
        name="load-ties-keep-unstable-zero-signs",
        item="37 register preparation",
        path="core/csv_io/loading.py",
        old="        ordered[where] = values[order[where]]",
        new="        pass",
        tests=(
            "tests/core/test_population_fast_paths.py::test_the_loaders_sort_is_numpys_stable_sort",
        ),
    ),
    Break(
        name="command-line-prepared-before-the-plan",
        item="37 register preparation",
        path="ui/command_line.py",
        old="    first_plan.plan_page_defaults(pop)\n    planned = time.perf_counter()\n"
        "    prepare_population(pop)\n",
        new="    prepare_population(pop)\n    planned = time.perf_counter()\n"
        "    first_plan.plan_page_defaults(pop)\n",
        tests=(
            "tests/ui/test_command_line.py::"
            "test_the_background_read_is_the_one_the_run_takes_and_a_large_file_is_prepared",
        ),
    ),
    Break(
        name="pub-law-distinct-repeat-unordered",
        item="37 publication sum-count kernels",
        path="core/mechanisms/sum_count_kernels.py",
        old="    repeat[order] = np.cumsum(new) - 1",
        new="    repeat = np.cumsum(new) - 1",
        tests=(
            "tests/core/mechanisms/test_sum_count_kernels.py::"
            "test_repeated_rows_give_the_numbers_of_each_row_alone",
        ),
    ),
    Break(
        name="pub-law-distinct-fields-dropped",
        item="37 publication sum-count kernels",
        path="core/mechanisms/sum_count_kernels.py",
        old="np.any(ordered[:, 1:] != ordered[:, :-1], axis=0, out=new[1:])",
        new="np.any(ordered[:3, 1:] != ordered[:3, :-1], axis=0, out=new[1:])",
        tests=(
            "tests/core/mechanisms/test_sum_count_kernels.py::"
            "test_repeated_rows_give_the_numbers_of_each_row_alone",
        ),
    ),
    Break(
        name="pub-quantile-fast-path-closed",
        item="37 publication releases",
        path="core/sensitivity/local.py",
        old="if type(quantile) is float and 0.0 < quantile < 1.0:",
        new="if type(quantile) is float and 0.0 <= quantile <= 1.0:",
        tests=("tests/core/test_sensitivity_quantile.py::test_quantile_rank_rejects",),
    ),
    Break(
        name="pub-laplace-moments-square-unscaled",
        item="37 publication releases",
        path="core/mechanisms/clamping.py",
        old="        second[i] = bi * bi * square",
        new="        second[i] = bi * square",
        tests=(
            "tests/core/mechanisms/test_clamping.py::"
            "test_compiled_laplace_moments_equal_the_numpy_closed_form",
        ),
    ),
    Break(
        name="pub-laplace-moments-unbounded-side",
        item="37 publication releases",
        path="core/mechanisms/clamping.py",
        old="            m1c, m2c = 0.0, (2.0 if c > 0.0 else 0.0)",
        new="            m1c, m2c = 0.0, 0.0",
        tests=(
            "tests/core/mechanisms/test_clamping.py::"
            "test_compiled_laplace_moments_equal_the_numpy_closed_form",
        ),
    ),
    Break(
        name="suite-extremes-population-reads-uncounted",
        item="37 suite time",
        path="tests/pages/test_extremes.py",
        old="        reads.count += 1\n",
        new="        pass\n",
        tests=(
            "tests/pages/test_extremes.py::"
            "test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message"
            "[amplification.py:strata+clusters]",
        ),
    ),
    Break(
        name="categories-not-hashed",
        item="38 categories",
        path="core/population.py",
        old='            _hash_labels(h, self.categories, self.label_codes("categories"))',
        new="            pass",
        tests=("tests/core/test_categories.py::test_categories_enter_the_hash",),
    ),
    Break(
        name="categories-hashed-when-absent",
        item="38 categories",
        path="core/population.py",
        old=(
            "        if self.categories is not None:  "
            "# absent: the hash of the populations before them"
        ),
        new="        if True:",
        tests=("tests/core/test_categories.py::test_hashes_without_categories_are_unchanged",),
    ),
    Break(
        name="categories-limit-off-by-one",
        item="38 categories",
        path="core/categories.py",
        old="    if n_categories > MAX_CATEGORIES:",
        new="    if n_categories > MAX_CATEGORIES + 1:",
        tests=(
            "tests/core/test_file_io_categories.py::test_too_many_categories",
            "tests/core/test_categories.py::test_the_constructor_refuses_too_many_categories",
        ),
    ),
    Break(
        name="categories-unused-blank-counted",
        item="38 categories",
        path="core/csv_io/loading.py",
        old="        check_category_count(int(np.count_nonzero(used)), category_label)",
        new="        check_category_count(len(categories.categories), category_label)",
        tests=("tests/core/test_file_io_categories.py::test_too_many_categories",),
    ),
    Break(
        name="categories-blank-is-a-category",
        item="38 categories",
        path="core/csv_io/loading.py",
        old='    present &= text != ""\n',
        new="",
        tests=("tests/core/test_file_io_categories.py::test_a_category_column_blank_everywhere",),
    ),
    Break(
        name="categories-value-column-allowed",
        item="38 categories",
        path="core/csv_io/loading.py",
        old="    if value_column in category_columns:",
        new="    if False:",
        tests=(
            "tests/core/test_file_io_categories.py::"
            "test_the_value_column_cannot_be_the_category_column",
        ),
    ),
    Break(
        name="categories-not-sorted-with-values",
        item="38 categories",
        path="core/csv_io/loading.py",
        old="    if stratum_columns or cluster_columns or category_columns:",
        new="    if stratum_columns or cluster_columns:",
        tests=(
            "tests/core/test_file_io_categories.py::test_value_labels_are_the_category_text",
            "tests/core/test_file_io_categories.py::test_parquet_text_and_categorical_columns",
        ),
    ),
    Break(
        name="categories-counts-order",
        item="38 categories",
        path="core/categories.py",
        old="ascending=[False, True]",
        new="ascending=[True, True]",
        tests=("tests/core/test_categories.py::test_category_counts_match_a_plain_count",),
    ),
    Break(
        name="categories-upload-not-passed",
        item="38 categories",
        path="ui/population/upload.py",
        old="            category_column=list(categories) or None,",
        new="            category_column=None,",
        tests=(
            "tests/pages/test_upload_categories.py::"
            "test_a_labelled_category_column_is_counted_on_the_page",
        ),
    ),
    Break(
        name="categories-config-not-read",
        item="38 categories",
        path="core/publication/config.py",
        old='                category_column=list(chosen["category_column"]) or None,',
        new="                category_column=None,",
        tests=("tests/ui/test_category_exports.py::test_the_config_reads_a_category_column",),
    ),
    Break(
        name="categories-command-line-dropped",
        item="38 categories",
        path="ui/command_line.py",
        old="            category_column=_column_argument(settings.category_columns),",
        new="            category_column=None,",
        tests=("tests/ui/test_category_exports.py::test_the_command_line_takes_a_category_column",),
    ),
    Break(
        name="noise-dg-delta-threshold",
        item="38 linear noise",
        path="core/linear/discrete_gaussian.py",
        old="    a = e * s * s / d - d / 2.0\n",
        new="    a = e * s * s / d + d / 2.0\n",
        tests=(
            "tests/core/linear/test_discrete_gaussian.py::test_delta_equals_the_hockey_stick_summed_at_50_digits",
        ),
    ),
    Break(
        name="noise-dg-variance-dual",
        item="38 linear noise",
        path="core/linear/discrete_gaussian.py",
        old="(1.0 - 4.0 * math.pi**2 * s * s * k2)",
        new="(1.0 + 4.0 * math.pi**2 * s * s * k2)",
        tests=(
            "tests/core/linear/test_discrete_gaussian.py::test_variance_equals_the_direct_sum_and_is_below_sigma_squared",
        ),
    ),
    Break(
        name="noise-dg-euler-maclaurin",
        item="38 linear noise",
        path="core/linear/discrete_gaussian.py",
        old="_EM_COEFFS = (1.0 / 12.0,",
        new="_EM_COEFFS = (1.0 / 6.0,",
        tests=(
            "tests/core/linear/test_discrete_gaussian.py::test_euler_maclaurin_branch_equals_the_direct_sum",
        ),
    ),
    Break(
        name="noise-dg-sampler-acceptance",
        item="38 linear noise",
        path="core/linear/discrete_gaussian.py",
        old="np.exp(-((np.abs(y) - s * s / t) ** 2) / (2.0 * s * s))",
        new="np.exp(-((np.abs(y) - s / t) ** 2) / (2.0 * s * s))",
        tests=("tests/core/linear/test_discrete_gaussian.py::test_sampler_follows_the_pmf",),
    ),
    Break(
        name="noise-dg-sigma-bracket",
        item="38 linear noise",
        path="core/linear/discrete_gaussian.py",
        old="            lo = mid\n    return hi\n",
        new="            lo = mid\n    return lo\n",
        tests=(
            "tests/core/linear/test_discrete_gaussian.py::test_sigma_for_eps_delta_is_the_smallest_of_its_bracket",
        ),
    ),
    Break(
        name="noise-round-laplace-lower",
        item="38 linear noise",
        path="core/linear/postprocess.py",
        old=" - 2.0 * s * qn / one_minus_q)",
        new=")",
        tests=(
            "tests/core/linear/test_postprocess.py::test_laplace_rounding_moments_equal_the_sum_over_outcomes",
        ),
    ),
    Break(
        name="noise-round-discrete-tail",
        item="38 linear noise",
        path="core/linear/postprocess.py",
        old="tail_u = cp * t0 + t1",
        new="tail_u = cp * t0 - t1",
        tests=(
            "tests/core/linear/test_postprocess.py::test_discrete_rounding_moments_equal_the_sum_over_the_support",
        ),
    ),
    Break(
        name="noise-projection-variance",
        item="38 linear noise",
        path="core/linear/postprocess.py",
        old="v - 2.0 * w * v + w * w",
        new="v - w * v + w * w",
        tests=(
            "tests/core/linear/test_postprocess.py::test_projection_adds_up_and_its_variance_is_exact",
        ),
    ),
    Break(
        name="noise-enum-individual-amplification",
        item="38 linear noise",
        path="core/designs/individual.py",
        old="return float(amp.eps_sample(eps_target, point.rate))",
        new="return float(amp.eps_sample(eps_target, 0.8 * point.rate))",
        tests=(
            "tests/core/linear/test_privacy_enumeration.py::test_release_keeps_the_promised_guarantee",
        ),
    ),
    Break(
        name="noise-dg-lattice-kinks-skipped",
        item="38 linear noise",
        path="core/linear/discrete_gaussian.py",
        old="    return _smallest_on_the_lattice(e, dl, d, hi)\n",
        new="    return hi\n",
        tests=(
            "tests/core/linear/test_discrete_gaussian.py::"
            "test_sigma_for_eps_delta_is_the_smallest_on_a_fine_grid",
        ),
    ),
    Break(
        name="freq-move-costs-one-cell",
        item="38 frequency tables",
        path="core/publication/composition.py",
        old='            2.0,\n            "A changed record may move',
        new='            1.0,\n            "A changed record may move',
        tests=(
            "tests/core/publication/test_frequency.py::test_a_count_table_on_a_poisson_sample_keeps_its_promise_for_both_relations",
        ),
    ),
    Break(
        name="freq-noise-not-weighted",
        item="38 frequency tables",
        path="core/publication/frequency.py",
        old="dtype=np.float64) + w * w * noise",
        new="dtype=np.float64) + noise",
        tests=(
            "tests/core/publication/test_frequency.py::test_each_cell_error_is_the_design_variance_plus_the_weighted_noise",
        ),
    ),
    Break(
        name="freq-threshold-ignored",
        item="38 frequency tables",
        path="core/publication/frequency.py",
        old="    publishable = (value != 0) & (bound <= limit * np.abs(value))",
        new="    publishable = (value != 0) & (bound <= np.abs(value))",
        tests=(
            "tests/core/publication/test_frequency.py::test_empty_cells_and_small_cells_are_flagged",
        ),
    ),
    Break(
        name="freq-integer-tail-one-sided",
        item="38 frequency tables",
        path="core/linear/errors.py",
        old="        return 2.0 * half(x) - 1.0 - level",
        new="        return half(x) - level",
        tests=(
            "tests/core/publication/test_frequency.py::test_the_bound_covers_its_level_by_simulation",
        ),
    ),
    Break(
        name="freq-envelope-unscaled",
        item="38 frequency tables",
        path="core/publication/cell_errors.py",
        old="curve(np.log(s)) * np.hypot(z * s, q0)",
        new="curve(np.log(s)) * np.hypot(s, q0)",
        tests=(
            "tests/core/publication/test_frequency.py::test_the_interpolated_bound_matches_the_direct_one",
        ),
    ),
    Break(
        name="freq-cell-codes-overlap",
        item="38 frequency tables",
        path="core/publication/cells.py",
        old="    codes = row_code * len(col_labels)",
        new="    codes = row_code",
        tests=(
            "tests/core/publication/test_frequency.py::test_cells_cross_rows_and_columns_in_reading_order",
        ),
    ),
    Break(
        name="freq-batch-keeps-one-chunk",
        item="38 frequency tables",
        path="batch/frequency.py",
        old="                total = total + g",
        new="                total = total + 0 * g",
        tests=(
            "tests/batch/test_frequency_dask.py::"
            "test_a_frequency_table_on_two_workers_equals_the_plain_plan",
        ),
    ),
    Break(
        name="freq-rounding-error-ignored",
        item="38 frequency tables",
        path="core/publication/cell_errors.py",
        old="        out[exact] = np.sqrt(mse)",
        new="        out[exact] = np.sqrt(noise)",
        tests=(
            "tests/core/publication/test_frequency.py::"
            "test_rounded_census_cells_have_their_simulated_error",
        ),
    ),
    Break(
        name="plannerui-absent-category-silent",
        item="38 planner counts",
        path="ui/planner/linear_controls.py",
        old="        if linked is not None and linked not in texts:\n",
        new="        if False:\n",
        tests=(
            "tests/pages/test_planner_linear.py::"
            "test_a_category_absent_from_the_data_is_named_and_the_most_common_planned",
        ),
    ),
    Break(
        name="plannerui-linear-median-tabs",
        item="38 planner counts",
        path="app_pages/planner.py",
        old="        views = LINEAR_TAB_VIEWS if linear else TAB_VIEWS\n",
        new="        views = TAB_VIEWS\n",
        tests=(
            "tests/pages/test_planner_linear.py::"
            "test_each_linear_statistic_plans_every_design_exactly",
        ),
    ),
    Break(
        name="plannerui-category-not-in-link",
        item="38 planner counts",
        path="ui/planner/linear_controls.py",
        old='            key="plan_cat",\n            bind="query-params",\n',
        new='            key="plan_cat",\n',
        tests=("tests/pages/test_planner_linear.py::test_the_link_reproduces_a_linear_plan",),
    ),
    Break(
        name="plannerui-notebook-drops-category",
        item="38 planner counts",
        path="ui/planner/linear_text.py",
        old='        parts.append(f"category={category!r}")\n',
        new="        pass\n",
        tests=(
            "tests/ui/planner/test_linear_text.py",
            "tests/pages/test_planner_linear.py::test_snippet_and_notebook_name_plan_linear",
        ),
    ),
    Break(
        name="plannerui-lesson-count-answer",
        item="38 planner counts",
        path="ui/lessons/content.py",
        old="            correct=1,\n            page=PLANNER,\n",
        new="            correct=0,\n            page=PLANNER,\n",
        tests=("tests/ui/lessons/test_lessons_content.py::test_count_lesson_facts",),
    ),
    Break(
        name="plannerui-reason-worst-mechanism",
        item="38 planner counts",
        path="ui/planner/linear_text.py",
        old="if d.design not in best or d.error_ratio < best[d.design].error_ratio:",
        new="if d.design not in best or d.error_ratio > best[d.design].error_ratio:",
        tests=(
            "tests/ui/planner/test_linear_text.py::"
            "test_each_sample_design_gets_its_reason_from_the_verdict",
        ),
    ),
    Break(
        name="plannerui-closeness-farthest-sample",
        item="38 planner counts",
        path="ui/planner/linear_text.py",
        old="    d = min(ratios, key=lambda v: v.small_eps_ratio)",
        new="    d = max(ratios, key=lambda v: v.small_eps_ratio)",
        tests=(
            "tests/ui/planner/test_linear_text.py::"
            "test_at_a_small_eps_the_closest_sample_is_named_with_its_excess",
        ),
    ),
    Break(
        name="linear-poisson-variance",
        item="38 linear statistics",
        path="core/linear/moments.py",
        old="(1.0 - rate) / rate * sums.square",
        new="(1.0 - rate) * sums.square",
        tests=(
            "tests/core/linear/test_moments.py::test_estimator_is_unbiased_with_the_stated_variance",
        ),
    ),
    Break(
        name="linear-rounding-term",
        item="38 linear statistics",
        path="core/linear/moments.py",
        old="mean * mean * p * (1.0 - p)",
        new="0.0 * p",
        tests=(
            "tests/core/linear/test_moments.py::test_estimator_is_unbiased_with_the_stated_variance",
        ),
    ),
    Break(
        name="linear-cluster-correction",
        item="38 linear statistics",
        path="core/linear/moments.py",
        old="k * k * (1.0 - ell / k) * s2 / ell",
        new="k * k * s2 / ell",
        tests=(
            "tests/core/linear/test_moments.py::test_estimator_is_unbiased_with_the_stated_variance",
        ),
    ),
    Break(
        name="linear-geometric-variance",
        item="38 linear statistics",
        path="core/linear/mechanisms.py",
        old="return 2.0 * math.exp(-1.0 / parameter) / (u * u)",
        new="return 2.0 * math.exp(-1.0 / parameter) / u",
        tests=(
            "tests/core/linear/test_mechanisms.py::test_geometric_law_against_direct_sums",
            "tests/core/linear/test_verdict.py::test_lemma_2_geometric_noise_of_a_sample_is_larger",
        ),
    ),
    Break(
        name="linear-noise-weight",
        item="38 linear statistics",
        path="core/linear/plan.py",
        old="noise = w * w * m.variance(param)",
        new="noise = w * m.variance(param)",
        tests=(
            "tests/core/linear/test_plan.py::"
            "test_rmse_splits_into_design_variance_and_scaled_noise",
        ),
    ),
    Break(
        name="linear-lattice-symmetry",
        item="38 linear statistics",
        path="core/linear/errors.py",
        old="return 2.0 * half(x) - 1.0 - level",
        new="return half(x) - level",
        tests=("tests/core/linear/test_errors.py::test_lattice_sum_equals_the_direct_sum",),
    ),
    Break(
        name="linear-verdict-weight",
        item="38 linear statistics",
        path="core/linear/verdict.py",
        old='eff = grp["eps_sample"] / grp["weight"] / float(c["eps_sample"])',
        new='eff = grp["eps_sample"] / float(c["eps_sample"])',
        tests=(
            "tests/core/linear/test_verdict.py::"
            "test_the_verdict_finds_the_census_best_and_close_at_small_eps",
        ),
    ),
    Break(
        name="linear-proportion-needs-n",
        item="38 linear statistics",
        path="core/linear/plan.py",
        old='if stat.kind == "proportion" and relation == "deletion" and not sizes_public:',
        new="if False:",
        tests=(
            "tests/core/linear/test_plan.py::"
            "test_proportion_divides_by_n_and_needs_a_public_n_under_deletion",
        ),
    ),
    Break(
        name="fzcdp-move-priced-as-one-cell",
        item="38 frequency tables",
        path="core/publication/composition.py",
        old="return max(math.sqrt(2.0) * b.sensitivity, inside)",
        new="return max(b.sensitivity, inside)",
        tests=(
            "tests/core/publication/test_frequency_zcdp.py::"
            "test_the_planned_table_keeps_rho_and_no_more_noise_than_needed",
        ),
    ),
    Break(
        name="fzcdp-change-inside-a-cell",
        item="38 frequency tables",
        path="core/publication/composition.py",
        old='inside = 0.0 if kind == "count" else hi - lo',
        new="inside = 0.0",
        tests=(
            "tests/core/publication/test_frequency_zcdp.py::"
            "test_the_planned_table_keeps_rho_and_no_more_noise_than_needed",
        ),
    ),
    Break(
        name="fzcdp-fixed-labels-add-remove",
        item="38 frequency tables",
        path="core/publication/composition.py",
        old="    if labels_fixed:\n        return hi - lo\n",
        new="    if labels_fixed:\n        return b.sensitivity\n",
        tests=(
            "tests/core/publication/test_frequency_zcdp.py::"
            "test_the_planned_table_keeps_rho_and_no_more_noise_than_needed",
        ),
    ),
    Break(
        name="fzcdp-rho-to-sigma",
        item="38 frequency tables",
        path="core/publication/frequency.py",
        old="mechanism.parameter_for_rho(rho / (l2 * l2), 1.0)",
        new="mechanism.parameter_for_rho(rho / l2, 1.0)",
        tests=(
            "tests/core/publication/test_frequency_zcdp.py::"
            "test_the_planned_table_keeps_rho_and_no_more_noise_than_needed",
        ),
    ),
    Break(
        name="fzcdp-rho-with-laplace",
        item="38 frequency tables",
        path="core/publication/frequency.py",
        old="    if mechanism != ZCDP_MECHANISM:\n",
        new="    if False:\n",
        tests=(
            "tests/core/publication/test_frequency_config.py::"
            "test_a_bad_rho_promise_names_its_field_in_words",
        ),
    ),
    Break(
        name="fzcdp-config-both-promises",
        item="38 frequency tables",
        path="core/publication/frequency_config.py",
        old='stated = [key for key in ("eps_target", "rho_target") if raw.get(key) is not None]',
        new='stated = [k for k in ("rho_target", "eps_target") if raw.get(k) is not None][:1]',
        tests=(
            "tests/core/publication/test_frequency_config.py::"
            "test_a_bad_rho_promise_names_its_field_in_words",
        ),
    ),
    Break(
        name="fzcdp-page-plans-converted-eps",
        item="38 frequency tables",
        path="ui/planner/frequency.py",
        old="settings.update(eps_target=None, delta_target=None, rho_target=ctx.rho_target)",
        new="settings.update()",
        tests=(
            "tests/pages/test_planner_frequency.py::"
            "test_a_rho_promise_in_the_url_plans_the_census_with_the_discrete_gaussian",
        ),
    ),
    Break(
        name="lead-linear-missing-design-silent",
        item="38 planner counts",
        path="ui/planner/linear.py",
        old="    missing_notes(ctx, result)\n",
        new="",
        tests=(
            "tests/pages/test_planner_linear.py::"
            "test_a_design_without_rows_is_named_with_its_reason",
        ),
    ),
    Break(
        name="lead-linear-zcdp-note-wrong",
        item="38 planner counts",
        path="ui/planner/linear_text.py",
        old="    if only_zcdp:\n",
        new="    if not only_zcdp:\n",
        tests=(
            "tests/pages/test_planner_linear.py::"
            "test_under_a_rho_promise_the_samples_left_out_are_named",
            "tests/pages/test_planner_linear.py::"
            "test_a_design_without_rows_is_named_with_its_reason",
        ),
    ),
    Break(
        name="lead-kept-sums-ignore-category",
        item="38 planner counts",
        path="core/linear/plan.py",
        old="        selection = (stat.column, stat.category, stat.value_range)\n",
        new="        selection = (stat.column, stat.value_range)\n",
        tests=(
            "tests/core/linear/test_plan.py::test_plans_on_one_frame_read_each_selections_own_sums",
        ),
    ),
    Break(
        name="lead-kept-sums-ignore-values",
        item="38 planner counts",
        path="core/linear/sums.py",
        old="        (key, bool(values)),\n",
        new="        (key, False),\n",
        tests=(
            "tests/core/linear/test_sums.py::"
            "test_kept_selection_sums_are_computed_once_per_selection_and_value",
            "tests/core/linear/test_plan.py::test_plans_on_one_frame_read_each_selections_own_sums",
        ),
    ),
    Break(
        name="postproc-sample-bound-without-half",
        item="38 post-processing",
        path="core/linear/post_errors.py",
        old="    return rmse + 0.5, float(bound), POST_BOUND",
        new="    return rmse, float(bound), POST_BOUND",
        tests=(
            "tests/core/linear/test_post_errors.py::test_plan_census_row_after_rounding_is_exact_and_sample_rows_are_bounded",
        ),
    ),
    Break(
        name="postproc-census-noise-only",
        item="38 post-processing",
        path="core/linear/post_errors.py",
        old="        return math.sqrt(float(mse)), bound, POST_EXACT",
        new="        return weight * math.sqrt(mechanism.variance(parameter)), bound, POST_EXACT",
        tests=(
            "tests/core/linear/test_post_errors.py::test_census_after_rounding_is_the_enumerated_law",
        ),
    ),
    Break(
        name="postproc-exact-bound-one-short",
        item="38 post-processing",
        path="core/linear/post_errors.py",
        old="    return float(candidates[hi])",
        new="    return float(candidates[lo])",
        tests=(
            "tests/core/linear/test_post_errors.py::test_census_after_rounding_is_the_enumerated_law",
        ),
    ),
    Break(
        name="postproc-negative-total-rounded",
        item="38 post-processing",
        path="core/linear/post_errors.py",
        old='if post == "round" and kind == "total" and float(lower) < 0.0:',
        new='if post == "round" and kind == "total" and float(lower) < -1e300:',
        tests=(
            "tests/core/linear/test_post_errors.py::test_rounding_a_total_that_may_be_negative_is_refused_in_words",
        ),
    ),
    Break(
        name="postproc-proportion-not-divided",
        item="38 post-processing",
        path="core/linear/plan.py",
        old="rmse_post=scale * r_post",
        new="rmse_post=r_post",
        tests=(
            "tests/core/linear/test_post_errors.py::test_proportion_after_rounding_is_the_count_divided_by_n",
        ),
    ),
    Break(
        name="postproc-control-ignored",
        item="38 post-processing",
        path="ui/planner/linear_controls.py",
        old='    return "round" if on else "none"',
        new='    return "none"',
        tests=(
            "tests/pages/test_planner_linear_post.py::test_the_rounding_control_adds_the_errors_after_rounding",
        ),
    ),
    Break(
        name="postproc-control-not-in-url",
        item="38 post-processing",
        path="ui/planner/linear_controls.py",
        old=(
            "    on = bound_toggle(\n        linear_text.POST_LABEL, "
            '"plan_post", default=False, help=linear_text.POST_HELP\n    )\n'
        ),
        new=(
            "    on = st.toggle(linear_text.POST_LABEL, "
            'key="plan_post", help=linear_text.POST_HELP)\n'
        ),
        tests=(
            "tests/pages/test_planner_linear_post.py::test_the_link_reproduces_the_rounded_release",
        ),
    ),
    Break(
        name="postproc-notebook-drops-rounding",
        item="38 post-processing",
        path="ui/planner/exports/linear_notebook.py",
        old='        call.append(f"post={post!r}")',
        new="        pass",
        tests=(
            "tests/ui/planner/test_linear_text.py::test_the_exports_reproduce_the_rounded_release",
        ),
    ),
    Break(
        name="postproc-dg-normal-unweighted",
        item="38 post-processing",
        path="core/linear/discrete_gaussian.py",
        old="scale = math.hypot(sigma, weight * parameter)",
        new="scale = math.hypot(sigma, parameter)",
        tests=(
            "tests/core/linear/test_discrete_gaussian_fast.py::test_the_normal_bound_at_large_sigma_has_the_lattices_coverage",
        ),
    ),
    Break(
        name="postproc-dg-normal-small-ratio",
        item="38 post-processing",
        path="core/linear/discrete_gaussian.py",
        old="if parameter >= SIGMA_DIRECT and sigma >= NORMAL_RATIO * weight:",
        new="if parameter >= SIGMA_DIRECT:",
        tests=(
            "tests/core/linear/test_discrete_gaussian_fast.py::test_below_the_thresholds_the_lattice_sum_is_kept",
        ),
    ),
    Break(
        name="postproc-dg-fast-sigma-short",
        item="38 post-processing",
        path="core/linear/discrete_gaussian.py",
        old="    return min(sigma, hi)  # δ(hi) ≤ dl",
        new="    return math.exp(root) * (1.0 - 1e-9)",
        tests=(
            "tests/core/linear/test_discrete_gaussian_fast.py::test_the_fast_sigma_is_the_bisections_and_keeps_the_exact_delta",
        ),
    ),
    Break(
        name="postproc-cells-variance-as-sd",
        item="38 post-processing",
        path="core/publication/cell_errors.py",
        old="    bound, _ = release_error(mechanism, parameter, weight, sigma * sigma, level)",
        new="    bound, _ = release_error(mechanism, parameter, weight, sigma, level)",
        tests=(
            "tests/core/publication/test_frequency.py::test_the_bound_covers_its_level_by_simulation",
        ),
    ),
    Break(
        name="margins-budget-split-whole",
        item="38 frequency margins",
        path="core/publication/margins.py",
        old="eps_c, eps_m = (1.0 - share) * eps_sample, share * eps_sample",
        new="eps_c, eps_m = (1.0 - share) * eps_sample, eps_sample",
        tests=(
            "tests/core/publication/test_margins_privacy.py::"
            "test_a_changed_record_costs_at_most_eps_target",
        ),
    ),
    Break(
        name="margins-projection-weights",
        item="38 frequency margins",
        path="core/publication/margins.py",
        old="got = projected_variance(v, float(margin_noise_variance), weights=v)",
        new="got = projected_variance(v, float(margin_noise_variance), weights=v.cumsum())",
        tests=(
            "tests/core/publication/test_margins.py::"
            "test_the_mse_after_projection_by_enumeration_of_every_sample",
        ),
    ),
    Break(
        name="margins-variance-weight",
        item="38 frequency margins",
        path="core/publication/margins.py",
        old="cell_variance=np.maximum(v_cells, 0.0) + w * w * noise,",
        new="cell_variance=np.maximum(v_cells, 0.0) + w * noise,",
        tests=(
            "tests/core/publication/test_margins.py::test_the_mse_after_projection_by_simulation",
        ),
    ),
    Break(
        name="margins-row-sums-mean",
        item="38 frequency margins",
        path="core/publication/margins.py",
        old="return arr.reshape(arr.shape[0] // k, k, *arr.shape[1:]).sum(axis=1)",
        new="return arr.reshape(arr.shape[0] // k, k, *arr.shape[1:]).mean(axis=1)",
        tests=("tests/core/publication/test_margins.py::test_row_sums_are_the_sums_of_the_rows",),
    ),
    Break(
        name="margins-config-share-closed",
        item="38 frequency margins",
        path="core/publication/frequency_config.py",
        old="if not (math.isfinite(float(share)) and 0.0 < float(share) < 1.0):",
        new="if not (math.isfinite(float(share)) and 0.0 <= float(share) <= 1.0):",
        tests=(
            "tests/core/publication/test_frequency_config.py::"
            "test_a_bad_frequency_config_names_its_field",
        ),
    ),
    Break(
        name="margins-config-rounding-allowed",
        item="38 frequency margins",
        path="core/publication/frequency_config.py",
        old='    if margins == "rows" and round_release:\n        raise _error(',
        new="    if False:\n        raise _error(",
        tests=(
            "tests/core/publication/test_frequency_config.py::"
            "test_a_bad_frequency_config_names_its_field",
        ),
    ),
    Break(
        name="margins-page-share-unbound",
        item="38 frequency margins",
        path="ui/planner/frequency.py",
        old='        key="plan_pub_freq_margin_share",\n        bind="query-params",\n',
        new='        key="plan_pub_freq_margin_share",\n',
        tests=(
            "tests/pages/test_planner_frequency.py::"
            "test_row_margins_change_the_errors_and_a_link_reproduces_them",
        ),
    ),
    Break(
        name="margins-page-toggle-ignored",
        item="38 frequency margins",
        path="ui/planner/frequency.py",
        old='"margins": "rows" if margins_on else "none",',
        new='"margins": "none",',
        tests=(
            "tests/pages/test_planner_frequency.py::"
            "test_row_margins_change_the_errors_and_a_link_reproduces_them",
        ),
    ),
    Break(
        name="margins-union-one-sided",
        item="38 frequency margins",
        path="core/publication/margins.py",
        old="x1 = sd * float(special.ndtri(1.0 - 0.5 * (1.0 - tail) * (1.0 - level)))",
        new="x1 = sd * float(special.ndtri(1.0 - (1.0 - tail) * (1.0 - level)))",
        tests=(
            "tests/core/publication/test_margins.py::"
            "test_the_bound_after_projection_covers_its_level",
        ),
    ),
    Break(
        name="lead-rounding-wide-noise-summed",
        item="38 post-processing",
        path="core/linear/postprocess.py",
        old="    return math.isfinite(radius) and 2.0 * radius + 1.0 <= MAX_ROUNDING_SUPPORT\n",
        new="    return math.isfinite(radius)\n",
        tests=(
            "tests/core/linear/test_post_errors.py::test_noise_too_wide_to_sum_is_bounded_at_once",
            "tests/core/linear/test_post_errors.py::"
            "test_the_widest_noise_summed_exactly_agrees_with_the_bound",
        ),
    ),
    Break(
        name="lead-rounding-cells-ignore-width",
        item="38 post-processing",
        path="core/publication/cell_errors.py",
        old="    exact = (v == 0.0) & exact_rounding_feasible(mechanism, float(parameter))\n",
        new="    exact = v == 0.0\n",
        tests=(
            "tests/core/linear/test_post_errors.py::test_noise_too_wide_to_sum_is_bounded_at_once",
        ),
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


def _verdict(code: int, *, tolerated: bool = False) -> str:
    if tolerated:
        return {0: "caught", 1: "FALSE ALARM"}.get(code, f"error (pytest exit {code})")
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
        verdict = _verdict(code, tolerated=brk.tolerated)
        results.append(verdict == "caught")
        print(f"[{verdict:>6}] {brk.item:<24} {brk.name:<28} {secs:5.0f} s  {last}", flush=True)
    print(f"{sum(results)} of {len(results)} breaks caught")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
