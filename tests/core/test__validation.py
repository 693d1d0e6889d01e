"""Tests for core._validation: the one scalar/array contract and the one message wording."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import _validation as v

CORE = Path(__file__).resolve().parents[2] / "core"

# ---------------------------------------------------------------------------------------
# Scalars in -> Python floats out; arrays broadcast
# ---------------------------------------------------------------------------------------


def test_scalar_calls_give_python_floats_and_arrays_give_fresh_arrays():
    a = v.check_eps("eps_sample", 0.5)
    assert a.ndim == 0
    out = v.finish(a * 2, v.all_scalar(0.5))
    assert type(out) is float and out == 1.0
    arr = np.array([0.5, 1.0])
    res = v.finish(arr, v.all_scalar(arr))
    assert isinstance(res, np.ndarray) and res.dtype == np.float64
    assert res is not arr


@given(st.lists(st.floats(1e-9, 1e3), min_size=1, max_size=5), st.floats(1e-6, 1.0))
def test_broadcast_keeps_numpy_rules(eps, rate):
    e, r = v.broadcast(eps_sample=v.check_eps("eps_sample", eps), rate=v.check_rate("rate", rate))
    assert e.shape == r.shape == (len(eps),)


def test_broadcast_names_the_clashing_shapes():
    with pytest.raises(ValueError, match=r"eps_sample with shape \(2,\), rate with shape \(3,\)"):
        v.broadcast(eps_sample=np.ones(2), rate=np.ones(3))


def test_elementwise_restores_the_shape():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(v.elementwise(lambda a: a + 1, x), x + 1)


# ---------------------------------------------------------------------------------------
# One wording: "<name> must be <allowed>; got <value>[ at index i][ (k of m ...)]"
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: v.check_eps("eps_target", 0.0),
            r"^eps_target must be a finite number > 0; got 0\.0$",
        ),
        (
            lambda: v.check_eps("eps_sample", [1.0, -1.0, -2.0]),
            r"^eps_sample must be a finite number > 0; got -1\.0 at index 1 "
            r"\(2 of 3 values are invalid\)$",
        ),
        (
            lambda: v.check_rate("rate", [[0.5, 0.5, 0.5], [0.5, 0.5, 2.0]]),
            r"^rate must be in the interval \(0, 1\] \(a sampling rate n/N\); "
            r"got 2\.0 at index \(1, 2\)$",
        ),
        (lambda: v.check_nonnegative("size", math.nan), r"^size must be a finite number ≥ 0"),
        (
            lambda: v.check_interval("q", 1.0, 0.0, 1.0, high_open=True, meaning="a fraction"),
            r"^q must be in the interval \[0, 1\) \(a fraction\); got 1\.0$",
        ),
        (lambda: v.check_count("clusters_total", 2.5, 1), r"a whole number ≥ 1; got 2\.5$"),
        (lambda: v.check_count("clusters_total", 2.0**60, 1), "clusters_total must be"),
        (lambda: v.as_float_array("eps_sample", "big"), "must be a number or an array"),
        (lambda: v.as_float_array("rate", True), "not a boolean"),
        (lambda: v.check_whole("seed", -1, 0, 5), r"^seed must be a whole number between 0 and 5"),
        (lambda: v.check_whole("size", 2.5, 0, 5), r"^size must be a whole number; got 2\.5$"),
        (lambda: v.check_whole("size", "3", 0, 5), "whole number"),
        (lambda: v.check_whole("size", True, 0, 5), "whole number"),
        (lambda: v.check_seed(2**63), "seed must be a whole number between 0"),
        (lambda: v.finite_scalar("S2_N", math.inf), r"^S2_N must be a finite number; got inf$"),
        (lambda: v.finite_scalar("lower", None), r"^lower must be a number; got None$"),
        (lambda: v.check_bounds(1.0, 1.0), r"^lower must be < upper"),
        (lambda: v.check_bounds(-1e308, 1e308), r"^upper - lower must be finite"),
        (lambda: v.check_delta_open("delta", 1.0), r"^delta must be in the interval \(0, 1\)"),
        (lambda: v.check_choice("noise", "cauchy", ("gaussian", "laplace")), "one of 'gaussian'"),
        (lambda: v.check_eps_list("eps_targets", []), "non-empty list"),
        (lambda: v.check_rate_list("rates", [0.5, 0.0]), r"^rates must be in the interval"),
        (lambda: v.values_in_bounds([0.5, 2.0], 0.0, 1.0), "inside the public bounds"),
        (lambda: v.values_in_bounds([[0.5]], 0.0, 1.0), "one-dimensional"),
    ],
)
def test_messages_follow_the_one_wording(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_good_values_pass_through():
    assert (
        v.check_whole("n", 7.0, 1, 10) == 7 and type(v.check_whole("n", np.int64(7), 1, 10)) is int
    )
    assert v.check_whole("big", 2**62, 0, 2**63 - 1) == 2**62  # exact, no float rounding
    assert v.check_delta_open("delta", 1e-9) == 1e-9
    assert v.check_bounds(0, 10) == (0.0, 10.0)
    np.testing.assert_array_equal(v.check_eps_list("e", [2.0, 1.0, 2.0]), [1.0, 2.0])
    np.testing.assert_array_equal(v.values_in_bounds([0.3, 0.1], 0.0, 1.0), [0.1, 0.3])
    assert v.check_choice("noise", "laplace", ("gaussian", "laplace")) == "laplace"


def test_message_pieces():
    assert v.plural(1, "row") == "1 row" and v.plural(1234, "row") == "1,234 rows"
    assert v.quoted("x" * 50, limit=5) == repr("xxxx…")
    assert v.number_text(2000.0) == "2,000" and v.number_text(0.123456789) == "0.123457"
    assert v.number_text(math.inf) == "∞" and v.number_text(-math.inf) == "−∞"


# ---------------------------------------------------------------------------------------
# The copies are gone: no core module defines its own copy of a shared helper
# ---------------------------------------------------------------------------------------

_ONCE = {
    "_check_eps",
    "_finish",
    "_broadcast",
    "_as_float_array",
    "_require",
    "_all_scalar",
    "_check_rate",
    "_check_delta",
    "_finite_scalar",
    "_check_bounds",
    "_check_seed",
    "_check_int",
    "_whole",
    "_count",
    "_short",
    "_fmt",
}


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_no_core_module_redefines_a_shared_helper(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert not names & _ONCE, sorted(names & _ONCE)


def test_sample_size_exists_once():
    from core import amplification, gains, statistical

    assert gains.sample_size is statistical.sample_size is amplification.sample_size


def test_vectors_are_one_dimensional_and_not_empty():
    np.testing.assert_array_equal(v.check_vector("sizes", [3, 1]), [3.0, 1.0])
    with pytest.raises(ValueError, match=r"^sizes must be one-dimensional; got shape \(1, 2\)$"):
        v.check_vector("sizes", [[3, 1]])
    with pytest.raises(ValueError, match=r"^values must not be empty"):
        v.check_vector("values", [])
    with pytest.raises(ValueError, match=r"^values must be finite \(no NaN or infinity\); got nan"):
        v.values_in_bounds([0.5, math.nan], 0.0, 1.0)
