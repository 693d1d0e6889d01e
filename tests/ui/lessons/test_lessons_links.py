"""Links of the lessons: page paths, the app's base address, step and lesson-step URLs."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from ui.lessons.content import CLUSTER_LESSON, LESSONS
from ui.lessons.links import (
    FALLBACK_BASE,
    base_url,
    lesson_step_url,
    page_path,
    step_query,
    step_url,
)
from ui.router import PAGES


def test_page_path_is_the_script_stem_for_every_registered_page():
    assert page_path("app_pages/strata.py") == "strata"
    assert {page_path(spec.script) for spec in PAGES} >= {"lessons", "gains", "clusters"}
    with pytest.raises(ValueError, match="script"):
        page_path("app_pages/strata")


@pytest.mark.parametrize(
    ("address", "base"),
    [
        ("http://localhost:8501/lessons?lesson=Median", "http://localhost:8501"),
        ("https://example.org/explorer/lessons", "https://example.org/explorer"),
        ("https://example.org/", "https://example.org"),
        (None, FALLBACK_BASE),
        ("", FALLBACK_BASE),
    ],
)
def test_base_url_keeps_scheme_host_and_base_path(address, base):
    assert base_url(address) == base


def test_base_url_refuses_a_relative_address():
    with pytest.raises(ValueError, match="absolute"):
        base_url("/lessons")


def test_step_url_carries_population_seed_controls_and_tab():
    step = CLUSTER_LESSON.steps[0]
    url = step_url("https://example.org/app", step)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "example.org", "/app/clusters")
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert query == step_query(step)
    assert query["population"] == "Lognormal" and query["seed"] == "0"
    assert query["cl_view"] == "ε_target vs cluster size"


def test_establishment_steps_name_the_population_by_its_label():
    step = LESSONS[3].steps[0]
    assert step_query(step)["population"] == "Establishments"


def test_lesson_step_url_is_one_based_and_checked():
    lesson = LESSONS[1]
    url = lesson_step_url("http://h:1", lesson, 2)
    assert url == "http://h:1/lessons?lesson=Median&lesson_step=3"
    with pytest.raises(ValueError, match="index"):
        lesson_step_url("http://h:1", lesson, len(lesson.steps))
