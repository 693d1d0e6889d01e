"""Privacy accounting that goes beyond one design's published theorem.

Modules
-------
:mod:`core.accounting.change_one`
    Amplification by sampling when the promise is for a *changed* record and the mechanism
    states two budgets, one for an added or removed record and one for a changed record:
    the exact Poisson bound and its inverse.
:mod:`core.accounting.change_designs`
    What carries over (or does not) to simple random, proportional stratified and cluster
    samples: the bound each design gets for a changed record, named, with its reason.
:mod:`core.accounting.gaussian_profile`
    Exact privacy profiles of the Gaussian mechanism under Poisson sampling (added or
    removed record) and simple random sampling (changed record), in closed form, their
    inverses, and the proof that the generic theorem is already exact for one release of
    the analytically calibrated Gaussian mean.
:mod:`core.accounting.zcdp`
    A promise stated as ρ-zCDP: the sharp conversion from pure ε-DP (ρ = ε·tanh(ε/2)) and
    its inverse, the largest ε_target that keeps ρ.
:mod:`core.accounting.stratified_profile`
    The exact worst loss of a proportional stratified sample with randomised rounding, for
    the stratum sizes the population has, and its inverse.
"""
