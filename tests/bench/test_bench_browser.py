"""The browser bench's options, its rows and its arithmetic (nothing is timed here: the bench
itself runs in ``make bench``, never in the suite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import bench_browser, bench_page_profile
from ui.router import PAGES

ROOT = Path(__file__).resolve().parents[2]


def test_default_options_run_the_default_rows_three_times_against_this_tree_only():
    args = bench_browser.parse_args([])
    assert args.rows == list(bench_browser.DEFAULT_ROWS)
    assert args.repeats == 3
    assert args.against is None
    assert args.js_profile is True
    assert args.pages is None


def test_rows_run_in_registry_order_and_all_means_every_row():
    assert bench_browser.parse_args(["--rows", "eps", "open"]).rows == ["open", "eps"]
    assert bench_browser.parse_args(["--rows", "all"]).rows == list(bench_browser.ROWS)
    args = bench_browser.parse_args(["--against", "fe1c6d8", "--repeats", "5", "--no-js-profile"])
    assert (args.against, args.repeats, args.js_profile) == ("fe1c6d8", 5, False)


@pytest.mark.parametrize("argv", [["--rows", "nonsense"], ["--repeats", "0"]])
def test_bad_options_are_refused(argv):
    with pytest.raises(SystemExit):
        bench_browser.parse_args(argv)


def test_the_row_registry_holds_every_row_of_the_issue():
    assert set(bench_browser.ROWS) == {"open", "eps", "plan", "register", "classroom"}
    assert set(bench_browser.DEFAULT_ROWS) <= set(bench_browser.ROWS)
    for row in bench_browser.ROWS.values():
        assert row.description and callable(row.run)


def test_every_eps_case_names_a_registered_page_and_a_key_the_app_uses():
    stems = {Path(spec.script).stem for spec in PAGES}
    code = "".join(p.read_text() for d in ("app_pages", "ui") for p in (ROOT / d).rglob("*.py"))
    for case in bench_browser.EPS_CASES:
        assert case.page in stems, case
        assert f'"{case.key}"' in code, case


def test_every_label_an_eps_case_puts_into_a_url_is_found_in_this_tree():
    refs = [v for case in bench_browser.EPS_CASES for _, v in case.query if v.startswith("@")]
    assert refs
    found = bench_page_profile.worker_labels(refs)
    assert all(isinstance(found[ref], str) and found[ref] for ref in refs)


def test_each_repeat_types_another_value():
    for case in bench_browser.EPS_CASES:
        values = case.values(10)
        assert len(set(values)) == 10, case
        if case.listed:
            assert all(v.startswith(case.listed + ", ") for v in values)


def test_page_urls_put_the_first_page_at_the_root():
    first = Path(PAGES[0].script).stem
    assert bench_browser.page_url("http://h", first) == "http://h/"
    url = bench_browser.page_url("http://h", "planner", [("population", "Establishments")])
    assert url == "http://h/planner?population=Establishments"


def test_metrics_split_an_interaction_into_server_transfer_and_drawing():
    read = {
        "settled": 3500.0,
        "last_recv": 3000.0,
        "recv_n": 4,
        "recv_bytes": 2_000_000,
        "long_ms": 1200.0,
        "long_n": 3,
        "first_sent": 1010.0,
        "charts": 2,
        "live": None,
        "origin": 1_000_000.0,
    }
    # the page clock starts at epoch 1000 s; the run went from 1001.1 s to 1003.0 s
    m = bench_browser._metrics(read, 1000.0, 2.6, [(1001.1, 1003.0, 0.4)], {"PlotlyChart": 0.2})
    assert m["settled"] == pytest.approx(2.5)
    assert m["last_msg"] == pytest.approx(2.0)
    assert m["draw"] == pytest.approx(0.5)
    assert m["server"] == pytest.approx(1.9)
    assert m["server_cpu"] == pytest.approx(0.4)
    assert m["after_script"] == pytest.approx(0.5)
    assert m["sent"] == pytest.approx(0.01)
    assert m["mb"] == pytest.approx(2.0)
    assert m["js:PlotlyChart"] == pytest.approx(0.2)
    summary = bench_browser.summarise([m, {**m, "settled": 4.5, "js:PlotlyChart": 0.0}])
    assert summary["settled"] == pytest.approx(3.5)
    assert "server script" in bench_browser.detail(summary)


def test_js_profile_time_is_counted_per_script_file_without_idle():
    nodes = [
        {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}},
        {
            "id": 2,
            "callFrame": {"functionName": "draw", "url": "http://h/static/js/PlotlyChart.D9.js"},
        },
        {"id": 3, "callFrame": {"functionName": "(idle)", "url": ""}},
        {"id": 4, "callFrame": {"functionName": "(garbage collector)", "url": ""}},
    ]
    profile = {"nodes": nodes, "samples": [2, 2, 3, 4, 2], "timeDeltas": [0, 1000, 2000, 500, 250]}
    totals = bench_browser.js_categories(profile)
    assert totals == pytest.approx(
        {"PlotlyChart": 0.001 + 0.002, "(garbage collector)": 0.00025}, rel=1e-9
    )


def test_the_profile_bench_lists_every_registered_page():
    assert bench_page_profile.page_names() == [Path(spec.script).stem for spec in PAGES]


def test_without_chromium_the_bench_stops_at_once_and_says_so(monkeypatch, tmp_path):
    from tests.e2e import conftest

    monkeypatch.setattr(conftest, "CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(SystemExit, match="is missing; install Debian's Chromium"):
        bench_browser.main(["--rows", "open"])
