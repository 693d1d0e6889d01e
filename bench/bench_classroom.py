"""A classroom against one server: time-to-rendered-chart for 30 concurrent sessions.

Starts ``streamlit run serve.py`` on a free port, runs ``tests.e2e.classroom`` (30 browser
contexts in Debian's Chromium, each visiting every page and moving the sidebar seed), and prints
the median and worst time from navigation to the first drawn chart, per page and overall, plus
the server's resident memory before and after.

Run: ``.venv/bin/python -m bench.bench_classroom [--sessions 30]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path

from tests.e2e.classroom import run_classroom
from tests.e2e.conftest import serve


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serve(Path(tmp) / "server.log") as server:
        rss_before, cpu_before = server.rss_mb(), server.cpu_seconds()
        result = asyncio.run(run_classroom(server.url, args.sessions, timeout=300))
        rss_after, cpu_after = server.rss_mb(), server.cpu_seconds()
    summary = result["summary"]
    print(f"{args.sessions} concurrent sessions, pages {summary['pages']}")
    print(f"  visits {summary['visits']}, visits with an error: {summary['visits_with_errors']}")
    for path in summary["pages"]:
        times = [
            r["chart_seconds"]
            for r in result["records"]
            if r["page"] == path and "chart_seconds" in r
        ]
        if times:
            print(
                f"  {path:16s} time to first chart: median {statistics.median(times):6.1f} s,"
                f" worst {max(times):6.1f} s"
            )
    print(
        f"  overall: median {summary['median_chart_seconds']:.1f} s, "
        f"worst {summary['worst_chart_seconds']:.1f} s, wall {summary['wall_seconds']:.0f} s"
    )
    print(f"  server RSS: {rss_before:.0f} MB before, {rss_after:.0f} MB after")
    cpu = cpu_after - cpu_before
    print(
        f"  server CPU: {cpu:.0f} s for {summary['visits']} visits ({cpu / summary['visits']:.2f} s"
        " per visit incl. its control move); the rest of the wall time is the browsers, which"
        " here share the server's two cores"
    )


if __name__ == "__main__":
    main()
