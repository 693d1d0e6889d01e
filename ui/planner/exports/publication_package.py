"""The publication table's downloads beyond the config: a script, a notebook and a zip package.

:func:`publication_script` writes a Python script that loads the batch config
``publication.yaml`` saved beside it, builds its population and plans the table with
:func:`core.publication.plan_table` in this process (no Dask); :func:`publication_notebook`
runs the same steps as notebook cells. :func:`publication_zip` packs both with the config,
the page's table, its summary, registry entry and report and a README, in the manner of DP
Wizard's exports.

All three are pure functions of their arguments (no Streamlit) and write no date, so one plan
gives the same bytes every time. The script and the notebook import only the installed package
``dp_sampling`` (the explorer's core: :mod:`core.publication.config` reads the config), so
they run on any machine where it is installed, outside the repository; ui only writes their
text.
"""

from __future__ import annotations

import io
import math
import re
import textwrap
import zipfile
from collections.abc import Mapping
from typing import Any

import nbformat
import yaml  # type: ignore[import-untyped]
from nbformat import v4

from core.accounting.zcdp import Promise, eps_target_for_rho
from core.population import Population
from core.publication import TablePlan, cell_budget, records, sizes_statement
from ui.format import fmt
from ui.planner.exports.checks import INSTALL_COMMAND, package_imports

__all__ = [
    "BATCH_COMMAND",
    "CONFIG_NAME",
    "NOTEBOOK_NAME",
    "PACKAGE_FILES",
    "SCRIPT_NAME",
    "config_yaml",
    "package_readme",
    "publication_notebook",
    "publication_script",
    "publication_zip",
    "script_steps",
]

#: The config's file name: the script and the notebook read it from their own folder.
CONFIG_NAME = "publication.yaml"
SCRIPT_NAME = "plan_publication.py"
NOTEBOOK_NAME = "plan_publication.ipynb"
#: The command that runs a saved config on Dask (from a clone of the explorer).
BATCH_COMMAND = "python -m batch publication.yaml --out plan/"
#: The files of the zip package, in the order they are stored.
PACKAGE_FILES = (
    "README.md",
    CONFIG_NAME,
    SCRIPT_NAME,
    NOTEBOOK_NAME,
    "plan.csv",
    "summary.json",
    "registry.json",
    "report.html",
)
#: What ran the page's plan, for the registry entry.
RUN_BY = "the release planner page (Publication table tab)"
#: Every file in the zip carries this time (the earliest a zip can hold): no date leaks in.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)

#: The imports: everything the script runs comes from the installed package dp_sampling.
_IMPORTS = (
    "from dp_sampling.publication import plan_table",
    "from dp_sampling.publication.config import ConfigError, build_population, load_config",
    "from dp_sampling.publication.records import input_warnings, plan_csv",
)

_LOAD = """\
from pathlib import Path

# The folder of this script (in a notebook: the working directory); the config is there.
here = Path(globals().get("__file__", "plan_publication.py")).resolve().parent
try:
    config = load_config(here / "publication.yaml")
    population = build_population(config)
except ConfigError as error:  # a missing file, an unknown column: say which field, and stop
    raise SystemExit(f"config error in {error.field!r}: {error.message}") from None
print(
    f"{config.name}: {population.name}, N = {population.size:,}, "
    f"grouped by {', '.join(config.groups)}; eps_target = {config.eps_target:g}"
)
for warning in input_warnings(population):
    print(f"warning: population: {warning}")
"""

_PLAN = """\
table_plan = plan_table(population, **config.plan_kwargs())
totals = table_plan.summary()
print(
    f"{totals['rows']} cell x statistic plans, {totals['publishable']} publishable; "
    f"the table's epsilon recomputed from the cells: {table_plan.eps_table:.6g}"
)
"""

_WRITE = """\
import pandas as pd

with pd.option_context("display.max_rows", None, "display.width", 200):
    print(table_plan.table.to_string(index=False))
out = here / "plan"
out.mkdir(exist_ok=True)
(out / "plan.csv").write_text(plan_csv(table_plan), encoding="utf-8")
print(f"wrote {out / 'plan.csv'}")
"""


def script_steps(reader: str = "script") -> list[tuple[str, str]]:
    """The steps of the script and the notebook: (a title in words, the Python code).

    Parameters
    ----------
    reader : str
        ``"script"`` or ``"notebook"``: what the import step's message on a missing
        ``dp_sampling`` calls the code.

    Returns
    -------
    list of (str, str)
        Import the planner from the installed package ``dp_sampling``; load the config and
        build the population; plan the table; print it and write ``plan/plan.csv``.
    """
    return [
        (
            "Import the planner from the package dp_sampling",
            package_imports(reader, *_IMPORTS),
        ),
        (f"Load the config ({CONFIG_NAME}) and build the population", _LOAD),
        ("Plan every cell × statistic (in this process, no Dask)", _PLAN),
        ("Print the table and write plan/plan.csv", _WRITE),
    ]


def _file_comments(config: Mapping[str, Any], population: Population | None) -> list[str]:
    """Comment lines above a file population: what to fill in, and how the page read it."""
    pop = config["population"]
    lines = [
        f"population: the file the page read, {_plain(str(pop['file']))}, cannot travel in "
        "this config: put its path under file (relative to this config's folder).",
        "Everything else below is what the page used.",
    ]
    read = None if population is None else population.file_settings
    if read is None:
        lines.append(
            "The page's population was not read from a file: the file must hold these columns."
        )
        return lines
    upper = f"{read.upper:g}" if math.isfinite(read.upper) else "none (no public upper bound)"
    lines += [
        f"As read on the page: {read.rows_read:,} rows in the file;",
        f"- {read.rows_dropped:,} rows dropped (their {_plain(read.value_column)} was blank, "
        "not a number or infinite);",
        f"- {read.values_clipped:,} values clipped to the bounds [{read.lower:g}, {upper}] "
        f"({read.clipped_below:,} below, {read.clipped_above:,} above).",
    ]
    if not read.bounds_declared:
        lines.append(
            "The bounds were read from the data, not declared: replace them by public ones."
        )
    return lines


def config_yaml(config: Mapping[str, Any], population: Population | None = None) -> str:
    """The config as YAML text, with comments: how to run it and, for a population read
    from a file, that only its path is left to fill in, and the rows dropped and values
    clipped when ``population`` was read (:attr:`Population.file_settings`).

    Parameters
    ----------
    config : Mapping
        The batch config (:func:`ui.planner.publication.config_dict`).
    population : Population, optional
        The population the page planned on: its reading is stated in comments.

    Returns
    -------
    str
        YAML that :func:`core.publication.config.load_config` reads.
    """
    head = f"# The release planner's publication table; run it in batch with\n#   {BATCH_COMMAND}\n"
    body = yaml.safe_dump(dict(config), sort_keys=False, allow_unicode=True)
    if "file" not in config["population"]:
        return head + body
    comments = "".join(
        f"# {part}\n"
        for line in _file_comments(config, population)
        for part in textwrap.wrap(line, width=86, subsequent_indent="  " * line.startswith("- "))
    )
    lines = body.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("population:"))
    return head + "".join(lines[:at]) + comments + "".join(lines[at:])


def _plain(text: str) -> str:
    """User text on one line, for a docstring or Markdown (no quotes, backticks or breaks)."""
    return re.sub(r"[\s`\"\\]+", " ", text).strip()


def _describe(config: Mapping[str, Any]) -> list[str]:
    """The plan's settings in words, one line each."""
    pop = config["population"]
    if "builtin" in pop:
        population = (
            f"the built-in {_plain(str(pop['builtin']))} population (seed {pop.get('seed', 0)}, "
            f"N = {int(pop.get('size') or 0):,})"
        )
    else:
        labels = [
            f"{what} {' × '.join(map(_plain, columns if isinstance(columns, list) else [columns]))}"
            for what, columns in (
                ("strata", pop.get("strata_column")),
                ("clusters", pop.get("cluster_column")),
                ("categories", pop.get("category_column")),
            )
            if columns
        ]
        population = (
            f"the file {_plain(str(pop['file']))}: value column {_plain(str(pop['value_column']))}"
            f", public bounds [{float(pop['lower']):g}, {float(pop['upper']):g}]"
            + "".join(f", {label}" for label in labels)
            + f" (put the file's path under population in {CONFIG_NAME})"
        )
    relation = records.relation_words(config["relation"], bool(config["labels_fixed"]))
    return [
        f"population: {population}",
        f"cells: grouped by {' × '.join(map(str, config['groups']))}",
        "statistics: "
        + ", ".join(
            f"quantile {s['quantile']:g}" if isinstance(s, Mapping) else str(s)
            for s in config["statistics"]
        ),
        f"privacy unit: one record of the population; neighbours: {relation}",
        "sizes: " + _sizes(config),
        f"promise for the whole table: {_promise(config)}, "
        f"δ_target = {fmt(float(config['delta_target']), 'delta')}",
        f"T = {config['T']} Monte Carlo repetitions per cell × statistic, seed {config['seed']}",
    ]


def publication_script(config: Mapping[str, Any]) -> str:
    """A runnable Python script that plans the config's table and writes ``plan/plan.csv``.

    Parameters
    ----------
    config : Mapping
        The batch config (:func:`ui.planner.publication.config_dict`); only described in the
        script's docstring, since the script reads the saved ``publication.yaml``.

    Returns
    -------
    str
        The script: a module docstring saying what it does and how to run it, then the
        steps of :func:`script_steps` in order.
    """
    doc = "\n".join(
        [
            '"""Plan a publication table (cells × statistics) under one ε_target.',
            "",
            f"Written by the release planner page. It reads the batch config {CONFIG_NAME}",
            "saved next to this file, builds its population, plans every cell × statistic with",
            "dp_sampling.publication.plan_table (a plain map in this process, no Dask), prints",
            "the table and writes it to plan/plan.csv next to this file.",
            "",
            "It needs the package dp_sampling, the explorer's core (Python 3.11 or later),",
            "installed once in the environment that runs it; then any folder will do:",
            "",
            f"    {INSTALL_COMMAND}",
            f"    python {SCRIPT_NAME}",
            "",
            "The batch, run in this file's folder from a clone of the explorer (its folder on",
            "PYTHONPATH), plans the same table on Dask and writes the same plan/plan.csv (with",
            "summary.json, registry.json and report.html):",
            "",
            f"    {BATCH_COMMAND}",
            "",
            "The plan:",
            "",
            *(f"- {line}" for line in _describe(config)),
            '"""',
        ]
    )
    body = "\n".join(f"# {title}\n{code}" for title, code in script_steps("script"))
    return f"{doc}\n\n{body}"


def publication_notebook(config: Mapping[str, Any]) -> str:
    """The script's steps as a Jupyter notebook (``.ipynb`` JSON text, nbformat 4).

    Parameters
    ----------
    config : Mapping
        The batch config, described in the first cell.

    Returns
    -------
    str
        A Markdown cell on what the notebook does and how to run it, then one Markdown title
        and one code cell per step of :func:`script_steps`; validated, with fixed cell ids.
    """
    intro = "\n".join(
        [
            "# Publication table: reproduce the planner's numbers",
            "",
            f"Written by the release planner page. It reads the batch config `{CONFIG_NAME}` "
            "from the working directory, builds its population, plans every cell × statistic "
            "with `dp_sampling.publication.plan_table` and writes `plan/plan.csv`. Start "
            "Jupyter in the folder holding this notebook and the config.",
            "",
            "**It needs the package `dp_sampling`**, the explorer's core: install it once with "
            f"`{INSTALL_COMMAND}`; the first code cell stops with a clear message if it is "
            "missing. In a clone of the explorer, the batch runs the same plan on Dask: "
            f"`{BATCH_COMMAND}`.",
            "",
            "The plan:",
            "",
            *(f"- {line}" for line in _describe(config)),
        ]
    )
    cells = [v4.new_markdown_cell(intro)]
    for title, code in script_steps("notebook"):
        cells += [v4.new_markdown_cell(f"## {title}"), v4.new_code_cell(code)]
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"
    notebook = v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    nbformat.validate(notebook)
    return str(nbformat.writes(notebook))


def _eps(config: Mapping[str, Any]) -> float:
    """The config's pure ε_target: as written, or converted from its ``rho_target``
    (:func:`core.accounting.zcdp.eps_target_for_rho`), as the config loader does."""
    if config.get("rho_target") is not None:
        return eps_target_for_rho(float(config["rho_target"]))
    return float(config["eps_target"])


def _promise(config: Mapping[str, Any]) -> str:
    """The config's promise in words: ε_target, or ρ-zCDP with its conversion named."""
    if config.get("rho_target") is None:
        return f"ε_target = {_eps(config):g}"
    return Promise("zcdp", float(config["rho_target"])).describe()


def _sizes(config: Mapping[str, Any]) -> str:
    """Whether the config declares the cell sizes public, in words (the table's statement)."""
    budget = cell_budget(
        _eps(config),
        float(config["delta_target"]),
        str(config["relation"]),
        labels_fixed=bool(config["labels_fixed"]),
    )
    return sizes_statement(bool(config.get("sizes_public", False)), budget.relation)


def package_readme(config: Mapping[str, Any], population: Population) -> str:
    """The zip's README: what each file is, how to run them, the promise in words."""
    files = {
        "README.md": "this file",
        CONFIG_NAME: "the plan as the batch config",
        SCRIPT_NAME: "a Python script that plans the table from the config (no Dask)",
        NOTEBOOK_NAME: "the same steps as a Jupyter notebook",
        "plan.csv": "the page's table: one row per cell × statistic (best design, rate, "
        "ε_sample, RMSE, 95 % error bound, relative error, publishable)",
        "summary.json": "the composition across cells and statistics, and the totals",
        "registry.json": "an entry in the style of the DP Deployments Registry",
        "report.html": "a short report: the promise, the composition, the table",
    }
    return "\n".join(
        [
            f"# Publication plan: {_plain(str(config['name']))}",
            "",
            f"Planned on the release planner page; population: {_plain(population.name)}.",
            "",
            "## The promise",
            "",
            "The privacy unit is one record of the population. The whole table, every cell "
            f"and statistic together, is (ε_target = {_eps(config):g}, "
            f"δ_target = {fmt(float(config['delta_target']), 'delta')})-differentially private, "
            + (
                ""
                if config.get("rho_target") is None
                else f"which keeps the promise stated as {_promise(config)}, "
            )
            + "neighbouring populations being one step apart: "
            + records.relation_words(config["relation"], bool(config["labels_fixed"]))
            + ". "
            + _sizes(config)
            + " summary.json and report.html say how the releases compose.",
            "",
            "## The files",
            "",
            *(f"- `{name}`: {what}" for name, what in files.items()),
            "",
            "## Reproduce the numbers",
            "",
            "The script and the notebook need the package `dp_sampling`, the explorer's core "
            "(Python 3.11 or later); install it once in the environment that runs them, on any "
            "machine:",
            "",
            f"    {INSTALL_COMMAND}",
            "",
            *(
                [
                    f"First put the file {_plain(str(config['population']['file']))} in this "
                    f"folder, or its path under `population: file:` in `{CONFIG_NAME}`: the "
                    "package cannot carry the data.",
                    "",
                ]
                if "file" in config["population"]
                else []
            ),
            "Then unzip into a folder and run, in that folder:",
            "",
            f"- the script: `python {SCRIPT_NAME}` prints the table and writes "
            "`plan/plan.csv` next to it;",
            f"- the notebook: open `{NOTEBOOK_NAME}` in Jupyter started in this folder and "
            "run all cells;",
            f"- the batch, cells in parallel on Dask, from a clone of the explorer (its folder "
            f"on `PYTHONPATH`): `{BATCH_COMMAND}` (add `--scheduler tcp://HOST:PORT` for a "
            "running cluster).",
            "",
            "Each cell × statistic has its own seed, derived from the config's seed, so all "
            "three give the page's plan.csv (up to floating-point rounding).",
            "",
            "## The plan",
            "",
            *(f"- {line}" for line in _describe(config)),
            "",
        ]
    )


def publication_zip(
    config: Mapping[str, Any], population: Population, table_plan: TablePlan
) -> bytes:
    """A zip package of the plan: README, config, script, notebook, table and records.

    Parameters
    ----------
    config : Mapping
        The batch config of the plan (:func:`ui.planner.publication.config_dict`).
    population : Population
        The population the table was planned on.
    table_plan : TablePlan
        The page's plan of the table.

    Returns
    -------
    bytes
        A deflated zip holding :data:`PACKAGE_FILES` in that order, every file dated
        :data:`ZIP_TIME`: the same inputs give the same bytes.
    """
    name = str(config["name"])
    texts = {
        "README.md": package_readme(config, population),
        CONFIG_NAME: config_yaml(config, population),
        SCRIPT_NAME: publication_script(config),
        NOTEBOOK_NAME: publication_notebook(config),
        **records.record_files(
            table_plan,
            population,
            name=name,
            T=int(config["T"]),
            seed=int(config["seed"]),
            eps_target=_eps(config),
            relation=str(config["relation"]),
            labels_fixed=bool(config["labels_fixed"]),
            publish_share=float(config["publish_share"]),
            run_by=RUN_BY,
        ),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for file_name in PACKAGE_FILES:
            info = zipfile.ZipInfo(file_name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, texts[file_name].encode("utf-8"))
    return buffer.getvalue()
