"""Python code that rebuilds what a page shows ("Reproduce in Python" expanders).

Every snippet starts from :func:`population_snippet`, which rebuilds the *active* population
(a built-in with its seed, or the uploaded file with the columns and bounds the user chose), so
that the numbers a snippet prints are the numbers on the page.
"""

from __future__ import annotations

from core.populations import Population


def population_snippet(pop: Population) -> str:
    """Import line and assignment ``pop = ...`` that rebuild ``pop``.

    Uses :attr:`core.populations.Population.recipe`; a population without one (built in code)
    gets a comment saying so instead of a wrong rebuild.
    """
    if not pop.recipe:
        return "# This population was built in code; rebuild it the same way.\npop = ...\n"
    function = pop.recipe.split("(", 1)[0]
    return f"from core.populations import {function}\n\npop = {pop.recipe}\n"
