"""The HTML report rendered by a real headless browser (Chromium from Debian's packages).

The screenshot is decoded here (zlib + PNG row filters, no imaging library) and must show
the page: mostly white but not blank, the pass^k curve colours of the legend and the red and
green of the delta chart's intervals (paraphrase drops clearly, typo gains clearly).
.ci/run installs chromium; locally: apt-get install -y chromium.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from typer.testing import CliRunner

from perturb.cli import app
from perturb.report.formats.html import GREEN, PALETTE, RED
from tests.synthetic_runs import Prompt, write_run

pytestmark = pytest.mark.slow

WIDTH, HEIGHT = 1200, 1600


def _paeth_or_average(row: bytearray, prev: bytes, bpp: int, paeth: bool) -> None:
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        if paeth:
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
        else:
            pred = (a + b) >> 1
        row[i] = (row[i] + pred) & 0xFF


def decode_png(path: Path) -> NDArray[np.uint8]:
    """An 8-bit RGB or RGBA, non-interlaced PNG as an (height, width, channels) array."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, idat = 8, bytearray()
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(bytes(idat))
    stride = width * channels
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        row = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=start + 1).astype(np.int64)
        if kind == 0:
            recon = row
        elif kind == 1:  # Sub: a running sum per channel
            recon = np.cumsum(row.reshape(width, channels), axis=0).reshape(-1)
        elif kind == 2:  # Up
            recon = row + np.frombuffer(prev, dtype=np.uint8)
        elif kind in (3, 4):  # Average, Paeth: sequential
            buf = bytearray(raw[start + 1 : start + 1 + stride])
            _paeth_or_average(buf, prev, channels, paeth=kind == 4)
            recon = np.frombuffer(bytes(buf), dtype=np.uint8).astype(np.int64)
        else:
            raise AssertionError(f"bad PNG filter {kind} on row {y}")
        out[y] = (recon & 0xFF).astype(np.uint8)
        prev = out[y].tobytes()
    return out.reshape(height, width, channels)


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def _count(img: NDArray[np.uint8], colour: str) -> int:
    return int(np.all(img[:, :, :3] == np.array(_rgb(colour), dtype=np.uint8), axis=2).sum())


def clear_prompts() -> list[Prompt]:
    """Eight tasks where paraphrase clearly loses (0.6 -> 0) and typo clearly gains (0.6 -> 1):
    enough matched tasks that the two-stage interval of each change excludes 0, so the delta
    chart colours them red and green."""
    prompts: list[Prompt] = []
    for i in range(8):
        task = f"t{i}"
        prompts.append(Prompt(task, "PPPWW"))
        prompts.append(Prompt(task, "WWWWW", "paraphrase", f"c-00000000a{i:03d}", 0.2, 0.2))
        prompts.append(Prompt(task, "PPPPP", "typo", f"c-00000000b{i:03d}", 0.1, 0.1))
    return prompts


def test_html_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium and not os.environ.get("CI"):
        pytest.skip("chromium is not installed (apt-get install -y chromium); CI requires it")
    assert chromium, "chromium is not installed (apt-get install -y chromium; .ci/run does it)"
    run = write_run(tmp_path / "runs", "demo-run", clear_prompts())
    html = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(html), "-q"])
    assert result.exit_code == 0, result.stderr
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            f"--window-size={WIDTH},{HEIGHT}",
            html.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.is_file() and shot.stat().st_size > 0
    img = decode_png(shot)
    assert img.shape[:2] == (HEIGHT, WIDTH)
    rgb = img[:, :, :3].reshape(-1, 3)
    white = np.all(rgb >= 250, axis=1).mean()
    assert 0.5 < white < 0.98, f"share of white pixels {white:.3f}: blank or broken page"
    assert len(np.unique(rgb, axis=0)) > 50
    # the title, top left, is dark text
    assert (img[10:60, 20:400, :3] < 100).all(axis=2).sum() > 200
    # pass^k curves: canonical, paraphrase, typo in the palette's first three colours
    for colour in PALETTE[:3]:
        assert _count(img, colour) > 150, f"curve colour {colour} not on the screenshot"
    # delta chart: paraphrase mean drops clearly (red), typo mean gains clearly (green)
    assert _count(img, RED) > 100
    assert _count(img, GREEN) > 100
