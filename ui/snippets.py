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


def population_overview_snippet(pop: Population) -> str:
    """The Population page's snippet: rebuild ``pop`` and print the numbers its table shows.

    Prints N, the mean, the median (the lower middle value, the app's median rank) and the
    bounds with the same formatting as the page's summary table, and the number of strata,
    clusters and categories when the population has them, so the printed lines can be
    compared with the page one by one.
    """
    lines = [
        population_snippet(pop),
        'print(f"N = {pop.size:,}")',
        'print(f"mean = {pop.values.mean():.6g}")',
        'print(f"median = {pop.values[(pop.size - 1) // 2]:.6g}")  # lower middle value',
        'print(f"bounds = [{pop.lower:.6g}, {pop.upper:.6g}]")',
    ]
    if pop.strata is not None:
        lines.append('print(f"strata = {len(set(pop.strata.tolist())):,}")')
    if pop.clusters is not None:
        lines.append('print(f"clusters = {len(set(pop.clusters.tolist())):,}")')
    if pop.categories is not None:
        lines.append('print(f"categories = {len(set(pop.categories.tolist())):,}")')
    return "\n".join(lines) + "\n"
