"""QR codes of the lesson links and the printable handout of a lesson (pure, no Streamlit).

QR codes are made with segno (pinned in requirements.txt) as inline SVG with a ``viewBox``
and no fixed size, so the page or the print stylesheet scales them; dark modules on a white
quiet zone of four modules, as scanners expect, with error correction level M.
"""

from __future__ import annotations

import html

import segno

from ui.lessons.content import Lesson
from ui.lessons.links import lesson_step_url, step_url

#: QR error correction: M recovers about 15 % of damaged modules (a projector's glare).
QR_ERROR = "m"
#: Quiet zone around the code, in modules (the QR standard asks for four).
QR_BORDER = 4


def qr_code(url: str) -> segno.QRCode:
    """The QR code of ``url`` (error correction M).

    Raises
    ------
    ValueError
        If ``url`` is empty.
    """
    if not url:
        raise ValueError("url must be a non-empty address to encode")
    return segno.make(url, error=QR_ERROR, micro=False)


def qr_svg(url: str, *, title: str = "") -> str:
    """``url`` as an inline ``<svg>`` QR code that scales to its container's width.

    Parameters
    ----------
    url : str
        The address to encode.
    title : str
        Accessible name of the image (an SVG ``<title>``); the URL when empty.
    """
    code = qr_code(url)
    return str(
        code.svg_inline(
            scale=1,
            border=QR_BORDER,
            omitsize=True,
            dark="#000",
            light="#fff",
            title=title or url,
        )
    )


_CSS = """
@page { size: A4; margin: 15mm; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #111;
       max-width: 180mm; margin: 0 auto; line-height: 1.4; font-size: 11pt; }
h1 { font-size: 18pt; margin-bottom: 2mm; }
.intro { margin-top: 0; }
.step { display: flex; gap: 6mm; border-top: 1px solid #999; padding: 4mm 0;
        break-inside: avoid; page-break-inside: avoid; }
.step .text { flex: 1 1 auto; min-width: 0; }
.step h2 { font-size: 13pt; margin: 0 0 2mm; }
.qr { flex: 0 0 38mm; width: 38mm; }
.qr svg { width: 38mm; height: 38mm; display: block; }
ol.options { list-style: upper-alpha; padding-left: 7mm; margin: 1mm 0 2mm; }
ol.options li::after { content: "  \\2610"; }
.link { font-size: 8.5pt; word-break: break-all; color: #333; }
.takeaway { margin: 2mm 0 0; padding: 2mm 3mm; border-left: 3px solid #333; }
@media screen { body { padding: 8mm; } }
"""


def handout_html(lesson: Lesson, base: str) -> str:
    """A self-contained HTML handout of ``lesson`` that prints on A4.

    Per step: the question, the answer options with a box to tick, the absolute link that
    opens the answering page state (``base`` is the app's address, see
    :func:`ui.lessons.links.base_url`) with its QR code as inline SVG, and the takeaway. The
    first line links the lesson itself on the Lessons page. No external files, scripts or
    fonts.

    Raises
    ------
    ValueError
        If ``base`` is not an absolute http(s) address.
    """
    if not base.startswith(("http://", "https://")):
        raise ValueError(f"base must be an absolute http(s) address, got {base!r}")
    esc = html.escape
    lesson_link = lesson_step_url(base, lesson, 0)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Lesson: {esc(lesson.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{esc(lesson.title)}</h1>",
        f'<p class="intro">{esc(lesson.intro)}</p>',
        f'<p class="link">The lesson in the app: <a href="{esc(lesson_link)}">'
        f"{esc(lesson_link)}</a></p>",
    ]
    for i, step in enumerate(lesson.steps, start=1):
        url = step_url(base, step)
        options = "".join(f"<li>{esc(option)}</li>" for option in step.options)
        parts.append(
            '<section class="step"><div class="text">'
            f"<h2>Step {i}</h2>"
            f'<p class="question">{esc(step.question)}</p>'
            f'<ol class="options">{options}</ol>'
            f'<p class="link">See for yourself: <a href="{esc(url)}">{esc(url)}</a></p>'
            f'<p class="takeaway"><strong>Takeaway.</strong> {esc(step.takeaway)}</p>'
            f'</div><div class="qr">{qr_svg(url, title=f"Step {i}: link to the app")}</div>'
            "</section>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)
