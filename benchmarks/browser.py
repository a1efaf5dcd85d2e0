"""Benchmark "Run" in the browser: click-to-results time in Chromium, and the tiny variant's power.

    .venv/bin/python benchmarks/browser.py [--runs N] [--seeds N] [--json PATH]

(a) Time from clicking Run to the results for exercise 39 (reference solution) in Debian's
    chromium driven by playwright, against a site served on loopback:
    - cold: a fresh browser profile (Pyodide's 13 MB fetched and its WebAssembly compiled) whose
      connection says "save data", so the page does not load Python while idle: the click pays it;
    - preloaded: a fresh profile on a normal connection, clicked once the page has loaded Python
      in its idle time (``#browser-result[data-warm]``): what a learner who reads first gets;
    - warm: the cold profile reloading the page (HTTP cache, compiled-code cache), new worker;
    - again: a second Run on the same page (Pyodide already loaded in the worker).
    Median over --runs fresh profiles.
(b) Power of the tiny variant: every known-wrong solution judged on the browser variant under
    --seeds seeds (CPython with the torch subset as `torch`: the same Python as in Pyodide),
    with how often it is caught and by which case; the reference must pass every seed.

Needs chromium, playwright and built assets (`make assets`).
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import ROOT, console, machine, median, write_json  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]



def click_to_results(runs: int) -> dict:
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from judge.engine.process import LocalLauncher
    from web.app import create_app
    from web.core.config import Settings

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    logging.getLogger("probjudge").setLevel(logging.ERROR)
    reference = (ROOT / "solutions" / "039-sampling" / "reference.py").read_text()
    scratch = tempfile.mkdtemp()
    app = create_app(Settings(database_url=f"sqlite:///{scratch}/site.db", secret_key="bench", workers=1,
                              sandbox="local"), launcher=LocalLauncher(), start_workers=False)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/exercises/39"
    timings: dict[str, list[float]] = {"cold": [], "preloaded": [], "warm": [], "again": []}
    # As in tests/browser/test_waiting_and_running.py: a metered connection, so no idle preload.
    save_data = "Object.defineProperty(navigator, 'connection', {value: {saveData: true, effectiveType: '4g'}});"

    def run_once(page) -> float:
        page.evaluate("(code) => { const v = document.querySelector('textarea[data-editor]').editorView;"
                      " v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: code}}); }", reference)
        started = time.perf_counter()
        page.click("#run-button")
        page.wait_for_selector("#browser-result .verdict-line .v-AC", timeout=120_000)
        return (time.perf_counter() - started) * 1000

    with sync_playwright() as playwright:
        for _ in range(runs):
            profile = tempfile.mkdtemp()
            context = playwright.chromium.launch_persistent_context(profile, executable_path="/usr/bin/chromium",
                                                                    args=CHROMIUM_ARGS)
            context.add_init_script(save_data)
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector(".cm-editor")
            timings["cold"].append(run_once(page))
            timings["again"].append(run_once(page))
            page.reload()
            page.wait_for_selector(".cm-editor")
            timings["warm"].append(run_once(page))
            context.close()
            profile = tempfile.mkdtemp()
            context = playwright.chromium.launch_persistent_context(profile, executable_path="/usr/bin/chromium",
                                                                    args=CHROMIUM_ARGS)
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("#browser-result[data-warm]", state="attached", timeout=120_000)  # loaded while idle
            timings["preloaded"].append(run_once(page))
            context.close()
    server.shutdown()
    return {kind: {"median_ms": median(values), "all_ms": values} for kind, values in timings.items()}


def power(seeds: int) -> dict:
    # The authors' check (judge.browser.catalogue), repeated over seeds.
    done = subprocess.run([sys.executable, "-m", "judge.browser.catalogue", "39", "--seeds", str(seeds)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    table: dict[str, dict] = {}
    for line in done.stdout.splitlines():
        row = json.loads(line)
        entry = table.setdefault(row["name"], {"runs": 0, "failed": 0, "caught_by": {}})
        entry["runs"] += 1
        if row["verdict"] != "AC":
            entry["failed"] += 1
            entry["caught_by"][row["caught_by"]] = entry["caught_by"].get(row["caught_by"], 0) + 1
    return table


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    out = console()
    timing = click_to_results(args.runs)
    out.print("[bold]Run → results, exercise 39, reference (Chromium, this machine)[/]")
    for kind in ("cold", "preloaded", "warm", "again"):
        out.print(f"  {kind:5s}  median {timing[kind]['median_ms']:7.0f} ms   "
                  f"({', '.join(f'{v:.0f}' for v in timing[kind]['all_ms'])})")
    table = power(args.seeds)
    out.print(f"[bold]Tiny variant power over {args.seeds} seeds[/] (failed runs / runs, first failing case)")
    for name, entry in table.items():
        caught = ", ".join(f"{case} ×{n}" for case, n in sorted(entry["caught_by"].items(), key=lambda kv: -kv[1]))
        out.print(f"  {name:28s} {entry['failed']:3d}/{entry['runs']:<3d} {caught}")
    if args.json:
        write_json(args.json, {"machine": machine(), "click_to_results": timing, "power": table})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
