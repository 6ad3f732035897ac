"""Open a ``zoo compare --report`` HTML file in headless Chromium and save a screenshot, to check in a real
browser that the report renders with no network (Debian: ``apt-get install chromium``). Not a test: CI has no
Chromium.

    python scripts/screenshot_report.py --demo docs/compare-report.png      # a report from made-up demo runs
    python scripts/screenshot_report.py --report report.html out.png        # any report
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--virtual-time-budget=10000"]  # fmt: skip


def demo_runs(runs_dir: Path) -> None:
    """A made-up 2x2 sweep (PE x norm, 3 seeds) of Multi30k BLEU with noisy learning curves: demo data only."""
    sys.path.insert(0, str(ROOT))
    from tests.compare.fake_runs import write_run

    rng = random.Random(0)
    for pe, pe_gain in (("sinusoidal", 0.0), ("rope", 1.6)):
        for norm, norm_gain in (("layernorm", 0.0), ("batchnorm", -2.2)):
            for seed in (1, 2, 3):
                final = 34.0 + pe_gain + norm_gain + rng.gauss(0, 0.6)
                curve = [(s, final * (1 - 0.5 ** (s / 400)) + rng.gauss(0, 0.5))
                         for s in range(300, 3001, 300)]  # fmt: skip
                tokens = tuple(rng.gauss(5200 if norm == "layernorm" else 4700, 150) for _ in range(20))
                knobs = {"model.pe": pe, "model.norm": norm}
                write_run(runs_dir, f"ed-multi30k-{pe}-{norm}-pre-h8-s{seed}", curve, knobs=knobs, seed=seed,
                          group="demo-pe-norm", parameters=4_361_216, tokens_per_sec=tokens,
                          wall_time_s=rng.gauss(1700, 40))  # fmt: skip


def screenshot(report: Path, png: Path, size: str) -> None:
    """Save ``png``, a screenshot of ``report`` at window ``size`` (``WIDTH,HEIGHT``)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        raise SystemExit("no chromium on PATH (Debian: apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as profile:
        command = [browser, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png.resolve()}",
                   f"--window-size={size}", report.resolve().as_uri()]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, timeout=120)
    print(f"screenshot: {png}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--report", type=Path, help="an HTML report written by zoo compare --report")
    source.add_argument("--demo", action="store_true", help="build a report from made-up demo runs first")
    parser.add_argument("png", type=Path)
    parser.add_argument("--window-size", default="1400,2000")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = args.report
        if args.demo:
            from zoo.compare import main as compare

            demo_runs(Path(tmp) / "runs")
            report = Path(tmp) / "report.html"
            compare([str(Path(tmp) / "runs"), "--report", str(report)])
        args.png.parent.mkdir(parents=True, exist_ok=True)
        screenshot(report, args.png, args.window_size)


if __name__ == "__main__":
    main()
