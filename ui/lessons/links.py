"""Links of the lessons: the page state that answers a step, and the lesson step itself.

A page's URL path is its script's file name without ``.py`` (Streamlit's rule for
``st.Page``), so ``app_pages/clusters.py`` is served at ``<base>/clusters``. A step's link
carries the page's own parameters (:attr:`ui.lessons.content.Step.query`) plus the
population and the seed of the sidebar, written as the sidebar writes them (the population
by its label, e.g. ``population=Establishments``).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import urlencode, urlsplit

from ui.lessons.content import Lesson, Step
from ui.state import POPULATION_KEY, SEED_KEY, population_label

#: URL keys of the Lessons page's own controls.
LESSON_KEY = "lesson"
STEP_KEY = "lesson_step"
TEACHER_KEY = "lesson_teacher"
#: Script of the Lessons page.
LESSONS_PAGE = "app_pages/lessons.py"
#: Base URL used when the browser's address is not known (tests, bare mode).
FALLBACK_BASE = "http://localhost:8501"


def page_path(script: str) -> str:
    """URL path of a page script: ``"app_pages/strata.py"`` → ``"strata"``.

    Raises
    ------
    ValueError
        If ``script`` is not a ``.py`` file.
    """
    path = PurePosixPath(script)
    if path.suffix != ".py" or not path.stem:
        raise ValueError(f"script must name a .py page script, got {script!r}")
    return path.stem


def step_query(step: Step) -> dict[str, str]:
    """Every URL parameter of the state a step's link opens: population, seed, page controls."""
    return {
        POPULATION_KEY: population_label(step.population),
        SEED_KEY: str(step.seed),
        **step.query,
    }


def base_url(page_url: str | None) -> str:
    """Scheme, host and base path of the app, from the browser's address of the current page.

    ``"https://host/app/lessons?lesson=Median"`` → ``"https://host/app"``. Without an address
    (``None`` or empty, as in tests) the local default :data:`FALLBACK_BASE` is returned.

    Raises
    ------
    ValueError
        If ``page_url`` is given but is not an absolute http(s) address.
    """
    if not page_url:
        return FALLBACK_BASE
    parts = urlsplit(page_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"page_url must be an absolute http(s) address, got {page_url!r}")
    segments = [s for s in parts.path.split("/") if s]
    base_path = "/".join(segments[:-1])  # drop the current page's own path segment
    return f"{parts.scheme}://{parts.netloc}" + (f"/{base_path}" if base_path else "")


def _url(base: str, path: str, query: dict[str, str]) -> str:
    return f"{base.rstrip('/')}/{path}?{urlencode(query)}"


def step_url(base: str, step: Step) -> str:
    """Absolute link that opens the page state answering ``step``."""
    return _url(base, page_path(step.page), step_query(step))


def lesson_step_url(base: str, lesson: Lesson, index: int) -> str:
    """Absolute link to step ``index`` (0-based) of ``lesson`` on the Lessons page.

    Raises
    ------
    ValueError
        If ``index`` is not a step of the lesson.
    """
    if not 0 <= index < len(lesson.steps):
        raise ValueError(
            f"index must be 0 to {len(lesson.steps) - 1} for {lesson.label!r}, got {index}"
        )
    query = {LESSON_KEY: lesson.label, STEP_KEY: str(index + 1)}
    return _url(base, page_path(LESSONS_PAGE), query)
