"""Non-HTML files of the demo web, written byte by byte: a minimal PDF and a PNG chart."""

from __future__ import annotations

import struct
import zlib


def _pdf_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return f"({escaped})"


def minimal_pdf(lines: list[str]) -> bytes:
    """A one-page A4 PDF 1.4 document showing ``lines`` (ASCII) in Helvetica."""
    if not all(line.isascii() for line in lines):
        raise ValueError("minimal_pdf writes ASCII text only")
    text = "\n".join(
        f"BT /F1 {18 if index == 0 else 12} Tf 72 {770 - 28 * index} Td {_pdf_string(line)} Tj ET"
        for index, line in enumerate(lines)
    ).encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bar_chart_png(values: list[int], width: int = 640, height: int = 400) -> bytes:
    """An RGB PNG bar chart of ``values`` (each 0-100) on a light background."""
    if not values or any(not 0 <= value <= 100 for value in values):
        raise ValueError("bar_chart_png needs values between 0 and 100")
    background, bar, axis = b"\xf5\xf3\xec", b"\xc8\x10\x2e", b"\x28\x28\x28"
    slot = width // len(values)
    margin = slot // 6
    tops = [height - 20 - (height - 60) * value // 100 for value in values]
    rows = []
    for y in range(height):
        if y >= height - 20:
            pixels = (axis if y == height - 20 else background) * width
        else:
            pixels = b"".join(
                background * margin
                + (bar if top <= y else background) * (slot - 2 * margin)
                + background * margin
                for top in tops
            )
            pixels += background * (width - slot * len(values))
        rows.append(b"\x00" + pixels)  # filter type: none
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + _png_chunk(b"IEND", b"")
    )
