"""Tests for core.mechanisms.registry: lookup by name and the public release function."""

from __future__ import annotations

import numpy as np
import pytest

from core import mechanisms as mech

LOWER, UPPER = 0.0, 10.0
ALL = [mech.SmoothLaplaceQuantile, mech.GlobalLaplaceQuantile, mech.LaplaceMean]


@pytest.mark.parametrize(
    ("name", "delta"),
    [
        ("smooth_laplace", 1e-3),
        ("smooth_pure", 0.0),
        ("exponential", 0.0),
        ("global_laplace", 0.0),
        ("laplace", 0.0),
        ("gaussian", 1e-3),
    ],
)
def test_release_function_is_the_class_release(name: str, delta: float) -> None:
    x = np.sort(np.random.default_rng(0).uniform(LOWER, UPPER, size=(20, 9)), axis=1)
    kw = {"quantile": 0.8} if name not in ("laplace", "gaussian") else {}
    got = mech.release(
        x,
        mechanism=name,
        eps=0.9,
        delta=delta,
        lower=LOWER,
        upper=UPPER,
        rng=np.random.default_rng(5),
        **kw,
    )
    m = mech.mechanism_by_name(name, **kw)
    want = m.release(x, 0.9, delta or 0.5, LOWER, UPPER, np.random.default_rng(5)).released
    np.testing.assert_array_equal(got, want)
    assert got.shape == (20,)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mechanism": "smooth_median"}, "unknown mechanism"),
        ({"mechanism": "smooth_laplace"}, "delta must be in the interval \\(0, 1\\)"),
        ({"mechanism": "gaussian", "delta": 1.0}, "delta must be"),
        ({"mechanism": "exponential", "delta": -0.1}, "delta must be"),
        ({"mechanism": "laplace", "quantile": 0.9}, "quantile is only for"),
        ({"mechanism": "exponential", "quantile": 1.0}, "quantile must be"),
        ({"mechanism": mech.LaplaceMean(), "quantile": 0.9}, "constructor"),
        ({"mechanism": "exponential", "eps": 0.0}, "eps_sample"),
    ],
)
def test_release_function_rejects_bad_input(kwargs: dict, match: str) -> None:
    args = {
        "mechanism": "exponential",
        "eps": 1.0,
        "lower": LOWER,
        "upper": UPPER,
        "rng": np.random.default_rng(),
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        mech.release([[1.0, 2.0, 3.0]], **args)


def test_mechanism_by_name_round_trip() -> None:
    for cls in ALL:
        got = mech.mechanism_by_name(cls.name)
        assert type(got) is cls and got == cls() and hash(got) == hash(cls())
        args = (
            "quantile=0.5"
            if issubclass(cls, mech.SmoothLaplaceQuantile | mech.GlobalLaplaceQuantile)
            else ""
        )
        assert got.label and repr(got) == f"{cls.__name__}({args})"
    with pytest.raises(ValueError, match="unknown mechanism 'exponentail'"):
        mech.mechanism_by_name("exponentail")
