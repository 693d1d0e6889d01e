"""The command line: ``python -m batch CONFIG.yaml --out DIR [--scheduler ...] [--workers N]``.

Exit codes: 0 done, 2 a bad config or bad arguments (a message naming the field, never a
traceback), 1 the cluster failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from core.accounting.zcdp import Promise
from core.population import Population
from core.publication.config import Config, ConfigError, build_population, load_config
from core.publication.records import input_warnings

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m batch",
        description="Plan a publication table (cells × statistics) under one ε_target "
        "(or a ρ-zCDP promise, converted to ε_target).",
    )
    p.add_argument("config", help="the YAML config (see assets/publication_example.yaml)")
    p.add_argument("--out", required=True, help="folder for plan.csv, summary.json, ...")
    p.add_argument("--scheduler", help="address of a running Dask scheduler, tcp://HOST:PORT")
    p.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the batch; the exit code."""
    args = _parser().parse_args(argv)
    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    try:
        config = load_config(args.config)
        population = build_population(config)
    except ConfigError as exc:
        print(f"config error in {exc.field!r}: {exc.message}", file=sys.stderr)
        return 2
    from batch.outputs import write_outputs
    from batch.run import run_plan

    for warning in input_warnings(population):
        print(f"warning: population: {warning}", file=sys.stderr)
    if config.frequency is not None:
        return _frequency(config, population, args)

    print(
        f"{config.name}: {population.name}, grouped by {', '.join(config.groups)}; "
        f"{'scheduler ' + args.scheduler if args.scheduler else f'{args.workers} local workers'}"
    )
    if config.rho_target is not None:
        print(f"promise: {Promise('zcdp', config.rho_target).describe()}")
    try:
        tp = run_plan(
            config,
            population,
            scheduler=args.scheduler,
            workers=args.workers,
            show_progress=not args.no_progress,
        )
    except ValueError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 2
    except (OSError, TimeoutError) as exc:
        print(f"error: the Dask cluster failed: {exc}", file=sys.stderr)
        return 1
    files = write_outputs(Path(args.out), config, population, tp)
    s = tp.summary()
    print(
        f"\n{s['rows']} cell × statistic plans, {s['publishable']} publishable; "
        f"wrote {', '.join(f.name for f in files)} to {args.out}"
    )
    for warning in input_warnings(population):
        print(f"warning (also in summary.json): population: {warning}", file=sys.stderr)
    return 0


def _frequency(config: Config, population: Population, args: argparse.Namespace) -> int:
    """Run a frequency table (``table: frequency``); the exit code."""
    from batch.frequency import run_frequency, write_frequency

    freq = config.frequency
    assert freq is not None
    where = f"scheduler {args.scheduler}" if args.scheduler else f"{args.workers} local workers"
    by = " × ".join(freq.rows) + (f" × {freq.column}" if freq.column else "")
    print(f"{config.name}: {population.name}, {freq.kind}s by {by}; {where}")
    if config.rho_target is not None:
        print(
            f"promise: ρ = {config.rho_target:.6g}-zCDP, kept by discrete Gaussian noise on the "
            "census (no amplification by sampling is proven for zCDP)"
        )
    try:
        plan = run_frequency(config, population, scheduler=args.scheduler, workers=args.workers)
    except ValueError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 2
    except (OSError, TimeoutError) as exc:
        print(f"error: the Dask cluster failed: {exc}", file=sys.stderr)
        return 1
    files = write_frequency(Path(args.out), config, population, plan)
    s = plan.summary()
    print(
        f"\n{s['cells']} cells under {plan.design} at rate {plan.rate:g}, {s['publishable']} "
        f"publishable (the census: {s['census_publishable']}); wrote "
        f"{', '.join(f.name for f in files)} to {args.out}"
    )
    return 0
