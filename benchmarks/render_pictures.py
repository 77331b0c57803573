"""Render shiplint's Mermaid pictures as a reader sees them: in a real browser, at the
width a page gives them, and say how big their text comes out.

GitHub (a job summary, a Markdown report, a pull request) draws a Mermaid block with
the mermaid library in the browser and scales the SVG down to the page's width; a
picture drawn 4,000 px wide shows its 16 px text at 5 px. This script does the same
with headless Chromium and the mermaid package from npm, writes a PNG per picture at
`--width` (1200 px by default), and prints the drawing's natural size and the size
its text is shown at.

    apt-get install chromium        # or any Chromium/Chrome: --chromium PATH
    npm install --prefix /tmp/mermaid-js mermaid@11
    python benchmarks/render_pictures.py --mermaid /tmp/mermaid-js \\
        --out /tmp/pictures check.mmd diff.mmd

A `.json` input is a shiplint JSON report: its `picture` is rendered. Nothing here is
a test: it needs a browser and npm, and what it answers is for a person to look at.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# Mermaid's default font size: what a label's text is at the drawing's natural size.
FONT_PX = 16
# The smallest text a reader reads without zooming, in CSS pixels.
READABLE_PX = 11

PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<style>body {{ margin: 0; background: #fff; font-family: sans-serif; }}
#out svg {{ display: block; }}</style>
<script src="{script}"></script></head>
<body><div id="out"></div><pre id="size" style="display:none"></pre>
<script>
mermaid.initialize({{ startOnLoad: false, securityLevel: "strict" }});
mermaid.render("picture", {source}).then(({{ svg }}) => {{
  const out = document.getElementById("out");
  out.innerHTML = svg;
  const drawn = out.querySelector("svg");
  const box = drawn.viewBox.baseVal;
  // As GitHub shows it: the natural size, but never wider than the page.
  drawn.style.maxWidth = "100%";
  drawn.setAttribute("width", String(Math.min(box.width, {width})));
  drawn.removeAttribute("height");
  document.getElementById("size").textContent = "natural " + box.width + " " + box.height;
}}).catch((e) => {{ document.getElementById("size").textContent = "error " + e; }});
</script></body></html>
"""


@dataclass(frozen=True)
class Rendered:
    name: str
    png: Path
    width: float
    height: float
    shown_width: int

    @property
    def scale(self) -> float:
        return min(1.0, self.shown_width / self.width)

    @property
    def text_px(self) -> float:
        return FONT_PX * self.scale


def _chromium(given: str | None) -> str:
    for candidate in (given, "chromium", "chromium-browser", "google-chrome"):
        if candidate and shutil.which(candidate):
            return str(shutil.which(candidate))
    sys.exit("no Chromium found: apt-get install chromium, or give --chromium PATH")


def _script(mermaid: Path) -> Path:
    for path in (
        mermaid / "node_modules/mermaid/dist/mermaid.min.js",
        mermaid / "dist/mermaid.min.js",
    ):
        if path.is_file():
            return path
    sys.exit(f"{mermaid}: no mermaid package (npm install --prefix {mermaid} mermaid@11)")


def _source(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        picture = json.loads(text).get("picture", "")
        if not picture:
            sys.exit(f"{path}: the report carries no picture (it checked no built artifact)")
        return str(picture)
    return text


def _browser(chromium: str, page: Path, width: int, height: int, *what: str) -> str:
    command = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--allow-file-access-from-files", f"--window-size={width},{height}",
        "--virtual-time-budget=20000", *what, page.as_uri(),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    if done.returncode != 0:
        sys.exit(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def render(source: str, name: str, out: Path, chromium: str, script: Path, width: int) -> Rendered:
    with tempfile.TemporaryDirectory(prefix="shiplint-picture-") as tmp:
        page = Path(tmp) / "page.html"
        page.write_text(
            PAGE.format(script=script.as_uri(), source=json.dumps(source), width=width),
            encoding="utf-8",
        )
        dom = _browser(chromium, page, width, 800, "--dump-dom")
        found = re.search(r'<pre id="size"[^>]*>([^<]*)</pre>', dom)
        said = html.unescape(found.group(1)) if found else "nothing"
        if not said.startswith("natural "):
            sys.exit(f"{name}: mermaid did not draw it: {said}")
        natural_w, natural_h = (float(x) for x in said.split()[1:3])
        shown = min(1.0, width / natural_w)
        height = int(natural_h * shown) + 40
        png = out / f"{name}.png"
        _browser(chromium, page, width, height, f"--screenshot={png}")
    return Rendered(name, png, natural_w, natural_h, width)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("inputs", nargs="+", type=Path, help=".mmd pictures or JSON reports")
    parser.add_argument("--mermaid", type=Path, required=True, help="where mermaid is installed")
    parser.add_argument("--chromium", help="the browser (default: chromium on PATH)")
    parser.add_argument("--width", type=int, default=1200, help="the page's width in px")
    parser.add_argument("--out", type=Path, default=Path("."), help="directory for the PNGs")
    args = parser.parse_args(argv)
    chromium, script = _chromium(args.chromium), _script(args.mermaid)
    args.out.mkdir(parents=True, exist_ok=True)
    worst = 0
    for path in args.inputs:
        done = render(_source(path), path.stem, args.out, chromium, script, args.width)
        verdict = "readable" if done.text_px >= READABLE_PX else "too small"
        worst = max(worst, 0 if done.text_px >= READABLE_PX else 1)
        print(
            f"{done.png}: natural {done.width:.0f}x{done.height:.0f} px, shown at "
            f"{done.shown_width} px wide (x{done.scale:.2f}): text {done.text_px:.1f} px, {verdict}"
        )
    return worst


if __name__ == "__main__":
    raise SystemExit(main())
