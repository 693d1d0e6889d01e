"""The bytes of an uploaded file, the size limit, and their decoding to text.

A file is read up to one byte past :data:`MAX_UPLOAD_BYTES` (the limit in force when it is
read), recognised and refused when it is a known binary format, and decoded (UTF-8, UTF-16,
then legacy single-byte codecs) with the notes a user should see.  Nothing is evaluated.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .._validation import quoted

__all__ = [
    "MAX_UPLOAD_BYTES",
]


#: Largest upload accepted, in bytes (checked before anything is parsed). Reading a CSV file
#: takes about five times its size in memory (bench/bench_populations.py --memory: a 1 GB
#: file of 10 short columns peaks at 5.2 GB), so 400 MiB keeps a read near 2 GB. The app's
#: uploader is limited by the server's ``server.maxUploadSize`` (``.streamlit/config.toml``),
#: the same limit (``tests/e2e/test_security.py`` checks that they agree).
MAX_UPLOAD_BYTES: int = 400 * 1024 * 1024


class _Default:
    """Marker: the limit in force when the file is read (:data:`MAX_UPLOAD_BYTES`)."""


DEFAULT_LIMIT = _Default()


_SNIFF_CHARS = 64 * 1024


# Only signatures that no text header could start with (other binaries fail the NUL and
# control-byte checks anyway).
_BINARY_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive or an Excel .xlsx workbook", "save the sheet as CSV first"),
    (b"\xd0\xcf\x11\xe0", "an old Excel .xls workbook", "save the sheet as CSV first"),
    (b"%PDF-", "a PDF document", ""),
    (b"\x89PNG", "a PNG image", ""),
    (b"\xff\xd8\xff", "a JPEG image", ""),
    (b"GIF87a", "a GIF image", ""),
    (b"GIF89a", "a GIF image", ""),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it first"),
    (b"\xfd7zXZ\x00", "an xz-compressed file", "decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract it first"),
    (b"SQLite format 3\x00", "an SQLite database", "export the table as CSV first"),
    (b"\x7fELF", "a program", ""),
)


def _read_source_bytes(
    source: Any, max_bytes: int | _Default | None = DEFAULT_LIMIT
) -> tuple[bytes, str | None]:
    """The raw bytes of a path, bytes object or binary file-like, refusing oversize input.

    ``max_bytes``: the size limit (default :data:`MAX_UPLOAD_BYTES`, read at call time);
    ``None`` reads a file of any size (a file the server was started with, never an upload).
    """
    if max_bytes is None:  # no limit: read everything (read(-1))
        limit, chunk = 1 << 62, -1
    else:
        limit = MAX_UPLOAD_BYTES if isinstance(max_bytes, _Default) else int(max_bytes)
        chunk = limit + 1
    too_big = f"The file is larger than {limit // 2**20:,} MB, the upload limit."
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limit:
            raise ValueError(too_big)
        return data, None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            is_file = path.is_file()
        except (OSError, ValueError):
            is_file = False
        if not is_file:
            raise ValueError(f"There is no file at {quoted(path, 200)}.")
        try:
            if path.stat().st_size > limit:
                raise ValueError(too_big)
            with path.open("rb") as fh:
                data = fh.read(chunk)
        except OSError as exc:
            raise ValueError(
                f"The file {quoted(path, 200)} cannot be read: {exc.strerror}."
            ) from None
        if len(data) > limit:
            raise ValueError(too_big)
        return data, path.name
    if hasattr(source, "read"):
        seek = getattr(source, "seek", None)
        if callable(seek):
            try:
                seek(0)
            except (OSError, ValueError):
                pass
        try:
            data = source.read(chunk)
        except (OSError, ValueError) as exc:
            raise ValueError(f"The upload cannot be read: {exc}.") from None
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("The file object's read() must return bytes.")
        data = bytes(data)
        if len(data) > limit:
            raise ValueError(too_big)
        name = getattr(source, "name", None)
        return data, name if isinstance(name, str) else None
    raise TypeError(f"Expected a path, bytes or a binary file object, got {type(source).__name__}.")


def _decode(data: bytes) -> tuple[str, list[str]]:
    """Text of the file and notes about its encoding; ValueError for binary content."""
    notes: list[str] = []
    if not data:
        raise ValueError("The file is empty.")
    for signature, what, advice in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise ValueError(
                f"This looks like {what}, not a CSV text file" + (f"; {advice}." if advice else ".")
            )
    text: str | None = None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        text = _decode_strict(data, "utf-32", "UTF-32")
        notes.append("The file is encoded as UTF-32; it was converted.")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = _decode_strict(data, "utf-16", "UTF-16")
        notes.append("The file is encoded as UTF-16; it was converted.")
    elif b"\x00" in data:
        encoding = _utf16_without_bom(data)
        if encoding is None:
            raise ValueError(
                "This looks like a binary file (it contains NUL bytes), not a CSV text file."
            )
        text = _decode_strict(data, encoding, "UTF-16")
        notes.append("The file is encoded as UTF-16; it was converted.")
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            if _control_share(data[:_SNIFF_CHARS].decode("latin-1")) > 0.01:
                raise ValueError(
                    "This looks like a binary file, not a CSV text file (it is not valid text)."
                ) from None
            try:
                text = data.decode("cp1252")
                notes.append(
                    "The file is not UTF-8; it was read as Windows-1252. Check that accented "
                    "letters look right, or save the file as UTF-8."
                )
            except UnicodeDecodeError:
                text = data.decode("latin-1")
                notes.append(
                    "The file is not UTF-8; it was read as Latin-1. Check that accented letters "
                    "look right, or save the file as UTF-8."
                )
    if "\x00" in text:
        raise ValueError("This looks like a binary file (it contains NUL characters).")
    if _control_share(text[:_SNIFF_CHARS]) > 0.01:
        raise ValueError(
            "This looks like a binary file, not a CSV text file (it is full of control bytes)."
        )
    return text, notes


def _decode_strict(data: bytes, codec: str, label: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        raise ValueError(f"The file looks like {label} text but is not valid {label}.") from None


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when NULs sit at every other byte, as in ASCII UTF-16."""
    sample = data[: 2 * 4096]
    if len(sample) < 4 or len(sample) % 2:
        return None
    even, odd = sample[0::2], sample[1::2]
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if nul_odd > 0.9 and nul_even < 0.1:
        return "utf-16-le"
    if nul_even > 0.9 and nul_odd < 0.1:
        return "utf-16-be"
    return None


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _control_share(text: str) -> float:
    if not text:
        return 0.0
    return len(_CONTROL.findall(text)) / len(text)
