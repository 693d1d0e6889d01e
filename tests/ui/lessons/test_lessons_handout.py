"""The printable handout and its QR codes.

No QR decoder is installed (segno only encodes), so each embedded code is read back from its
SVG path into a module matrix and compared with segno's matrix for the step's link.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pytest

from ui.lessons.content import LESSONS
from ui.lessons.handout import QR_BORDER, handout_html, qr_code, qr_svg
from ui.lessons.links import step_url

BASE = "https://school.example/explorer"


class _Handout(HTMLParser):
    """Collects the text, the link targets and the raw SVG of each QR code."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.links: list[str] = []
        self.paths: list[str] = []
        self.svgs = 0
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a":
            self.links.append(attrs["href"])
        elif tag == "svg":
            self.svgs += 1
        elif tag == "path" and attrs.get("class") == "qrline":  # dark modules, not the fill
            self.paths.append(attrs["d"])
        elif tag == "style":
            self._in_style = True

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        (self.styles if self._in_style else self.text).append(data)


def _parse(html_text: str) -> _Handout:
    parser = _Handout()
    parser.feed(html_text)
    parser.close()
    return parser


def matrix_from_path(d: str, size: int) -> np.ndarray:
    """Dark modules drawn by a segno path (``M x y``, ``m dx dy`` and ``h length``)."""
    grid = np.zeros((size, size), dtype=bool)
    x = y = 0.0
    for op, args in re.findall(r"([Mmh])([-\d. ]+)", d):
        numbers = [float(v) for v in args.split()]
        if op == "M":
            x, y = numbers
        elif op == "m":
            x, y = x + numbers[0], y + numbers[1]
        else:
            row = int(y - 0.5)
            grid[row, int(x) : int(x + numbers[0])] = True
            x += numbers[0]
    return grid


def segno_matrix(url: str) -> np.ndarray:
    matrix = np.array(qr_code(url).matrix, dtype=bool)
    return np.pad(matrix, QR_BORDER)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.label)
def test_the_handout_parses_and_holds_every_step(lesson):
    page = handout_html(lesson, BASE)
    parsed = _parse(page)
    text = " ".join(" ".join(parsed.text).split())
    assert lesson.title in text
    for step in lesson.steps:
        assert " ".join(step.question.split()) in text
        assert " ".join(step.takeaway.split()) in text
        for option in step.options:
            assert option in text
        assert step_url(BASE, step) in parsed.links
    assert all(link.startswith("https://school.example/explorer/") for link in parsed.links)
    assert parsed.svgs == len(lesson.steps) == len(parsed.paths)
    css = " ".join(parsed.styles)
    assert "size: A4" in css and "break-inside: avoid" in css
    assert "<script" not in page and "src=" not in page  # self-contained


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.label)
def test_each_embedded_qr_code_encodes_its_step_link(lesson):
    parsed = _parse(handout_html(lesson, BASE))
    for step, d in zip(lesson.steps, parsed.paths, strict=True):
        expected = segno_matrix(step_url(BASE, step))
        assert np.array_equal(matrix_from_path(d, expected.shape[0]), expected)


def test_a_qr_code_of_another_link_differs():
    step = LESSONS[0].steps[0]
    (d,) = _parse(qr_svg(step_url(BASE, step))).paths
    other = segno_matrix(step_url("https://other.example", step))
    mine = segno_matrix(step_url(BASE, step))
    assert np.array_equal(matrix_from_path(d, mine.shape[0]), mine)
    assert mine.shape != other.shape or not np.array_equal(mine, other)


def test_qr_svg_scales_and_has_a_title():
    svg = qr_svg("http://x.example/a", title="Step 1")
    assert svg.startswith("<svg") and "viewBox" in svg and "width=" not in svg.split(">")[0]
    assert "<title>Step 1</title>" in svg


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="url"):
        qr_code("")
    with pytest.raises(ValueError, match="base"):
        handout_html(LESSONS[0], "example.org")
