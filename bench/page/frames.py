"""The chat page on a throttled phone: a 20-turn thread's scroll frames and its first screen.

    PYTHONPATH=. python -m bench.page.frames --label after --out bench/results/52-page.json

Serves the app in-process (a scripted model: each turn runs a sales-per-region query, so
every turn has SQL, a chart and a grid), makes a 20-turn conversation over the sync API,
then opens it in Debian's Chromium at 390×844 with the CPU slowed 4× and the network at
150 ms / 1.6 Mbps (issue #52.9), scrolls it top to bottom and records every frame's
duration (requestAnimationFrame deltas). Also the time until the starters show on a cold
load. Run it with PYTHONPATH at another checkout to measure that checkout's page the same
way; `bench.page.figure` draws the runs side by side. A benchmark: it reports, never fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TURNS = 20
VIEWPORT = {"width": 390, "height": 844}
CPU_SLOWDOWN = 4
NETWORK = {"latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}
SCROLL_STEP_PX = 120
SALES_SQL = (
    "SELECT r.region_name AS region, COUNT(*) AS orders, ROUND(SUM(o.total_amount), 2) AS sales "
    "FROM orders o JOIN stores s USING (store_id) JOIN regions r USING (region_id) "
    "GROUP BY r.region_name"
)
# Every frame's duration while the page scrolls (deltas of requestAnimationFrame).
RECORD_FRAMES = """
window.__frames = [];
let last = performance.now();
const tick = (now) => {
  window.__frames.push(now - last);
  last = now;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
window.__slow = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const scripts = entry.scripts.map((s) => [
      Math.round(s.duration), s.invoker, (s.sourceURL || "").split("/").pop(), s.sourceFunctionName,
    ]);
    window.__slow.push([Math.round(entry.duration), scripts]);
  }
}).observe({ type: "long-animation-frame" });
"""


ALL_DRAWN = """async () => {
  const drawn = () => {
    const charts = document.querySelectorAll('[data-testid=chart]');
    const grids = document.querySelectorAll('[data-testid=results-table]');
    return [...charts].every((c) => c.querySelector('img, canvas'))
      && [...grids].every((g) => g.querySelector('tbody tr, .tabulator-row'));
  };
  while (!drawn()) await new Promise((done) => setTimeout(done, 100));
}"""


def percentile(values: list[float], share: float) -> float:
    """Return the `share` percentile (0–1) of `values` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


async def make_thread(http: Any, user: str) -> str:
    """Ask TURNS questions in one conversation over the sync API; return its id."""
    thread_id = ""
    for n in range(TURNS):
        body: dict[str, Any] = {"question": f"各地区订单数和销售额 {n}", "user_id": user}
        if thread_id:
            body["thread_id"] = thread_id
        response = await http.post("/api/v0/ask_react_agent", json=body, timeout=120)
        response.raise_for_status()
        thread_id = response.json()["data"]["conversation_id"]
    return thread_id


async def throttle(page: Any) -> Any:
    """Slow the page's CPU and network as issue #52.9's phone; return the CDP session."""
    session = await page.context.new_cdp_session(page)
    await session.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    await session.send("Network.enable")
    await session.send("Network.emulateNetworkConditions", {"offline": False, **NETWORK})
    return session


async def measure(browser: Any, url: str, thread_id: str) -> dict[str, Any]:
    """Return one round's first screen time (s) and the thread's scroll frames (ms)."""
    context = await browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    page = await context.new_page()
    await throttle(page)
    started = time.perf_counter()
    await page.goto(url, wait_until="commit")
    await page.locator("[data-testid=starter]").first.wait_for(timeout=120_000)
    first_screen_s = time.perf_counter() - started

    await page.goto(f"{url}/?c={thread_id}")
    turns = page.locator("[data-testid=turn][data-answered=true]")
    await turns.nth(TURNS - 1).wait_for(state="attached", timeout=180_000)
    # Settled first: what the newest turn needed has loaded (a one-off, timed apart above).
    await page.wait_for_load_state("networkidle", timeout=180_000)
    # Every chart and grid drawn (at load before #52; in idle moments after): the scroll is
    # then measured as a reader meets it once the page has settled.
    await page.evaluate(ALL_DRAWN)
    await page.evaluate("window.scrollTo(0, 0)")
    await page.wait_for_load_state("networkidle", timeout=180_000)
    frames, height = await scroll_frames(page, down=True)
    await page.close()
    # Reading while it draws: the thread opened again (the libraries now cached) and scrolled
    # up from the newest turn at once, while its charts, grids and SQL are still being drawn.
    page = await context.new_page()
    await throttle(page)
    await page.goto(f"{url}/?c={thread_id}")
    await (
        page.locator("[data-testid=turn][data-answered=true]")
        .nth(TURNS - 1)
        .wait_for(state="attached", timeout=180_000)
    )
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    drawing, _ = await scroll_frames(page, down=False)
    await context.close()
    return {
        "first_screen_s": first_screen_s,
        "frames": frames,
        "frames_while_drawing": drawing,
        "page_height_px": height,
    }


async def scroll_frames(page: Any, *, down: bool) -> tuple[list[float], int]:
    """Scroll the whole page by wheel steps, recording every frame's duration.

    Down from the top, or up from the bottom; return the frames (ms) and the page's height.
    """
    await page.mouse.move(195, 400)
    await page.evaluate(RECORD_FRAMES)
    height = await page.evaluate("document.documentElement.scrollHeight")
    step = SCROLL_STEP_PX if down else -SCROLL_STEP_PX
    for _ in range(int(height / SCROLL_STEP_PX) + 5):
        await page.mouse.wheel(0, step)
        await page.evaluate("new Promise((done) => requestAnimationFrame(() => done()))")
    frames = [f for f in await page.evaluate("window.__frames") if f > 0]
    if os.environ.get("PAGE_FRAMES_DEBUG"):
        slow = await page.evaluate("window.__slow")
        for entry in sorted(slow, key=lambda e: -e[0])[:12]:
            print(entry)
    return frames, height


def frame_figures(each: list[list[float]], prefix: str = "frame") -> dict[str, Any]:
    """Return the pooled figures of each round's frames (ms), keys starting with `prefix`."""
    frames = [f for round_frames in each for f in round_frames]
    return {
        f"{prefix}s": len(frames),
        f"{prefix}_ms_p50": round(percentile(frames, 0.5), 1),
        f"{prefix}_ms_p95": round(percentile(frames, 0.95), 1),
        f"{prefix}_ms_p95_each": [round(percentile(f, 0.95), 1) for f in each],
        f"{prefix}_ms_max": round(max(frames), 1),
        f"{prefix}s_over_50ms": sum(f > 50 for f in frames),
        f"{prefix}_ms_mean": round(statistics.fmean(frames), 1),
        f"{prefix}_ms": [round(f, 1) for f in frames],
    }


def summarise(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Pool the rounds' frames (settled, and while drawing); keep each round's first screen."""
    drawing = [r["frames_while_drawing"] for r in rounds if "frames_while_drawing" in r]
    return {
        "rounds": len(rounds),
        "first_screen_s": round(statistics.median(r["first_screen_s"] for r in rounds), 2),
        "first_screen_s_each": [round(r["first_screen_s"], 2) for r in rounds],
        "page_height_px": rounds[-1]["page_height_px"],
        **frame_figures([r["frames"] for r in rounds]),
        **(frame_figures(drawing, "drawing_frame") if drawing else {}),
    }


async def run(label: str, rounds: int) -> dict[str, Any]:
    """Serve the app, make the thread, measure the page; return the result."""
    from playwright.async_api import async_playwright

    from config import Settings
    from tests.app.page.test_progress_page import CHROMIUM, CHROMIUM_ARGS
    from tests.support.live_server import running_service
    from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

    replies = [call_tool("run_sql", sql=SALES_SQL), answer("华东的订单和销售额都最多。")]
    model = ScriptedChatModel(replies=replies * TURNS)
    data_dir = Path(tempfile.mkdtemp(prefix="page-frames-"))
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        checkpoint_database_url=f"sqlite:///{data_dir / 'checkpoints.db'}",
        openai_api_key=None,
        openai_base_url=None,
        run_timeout=120,
    )
    async with running_service(settings, model=model) as service:
        thread_id = await make_thread(service.http, "bench")
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
            )
            try:
                measured = [
                    await measure(browser, service.base_url, thread_id) for _ in range(rounds)
                ]
            finally:
                await browser.close()
    load = os.getloadavg()
    return {"label": label, "load_average": [round(x, 2) for x in load], **summarise(measured)}


def main() -> None:
    """Measure and write (or add to) the JSON results file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="the checkout measured, e.g. before/after")
    parser.add_argument("--out", type=Path, default=Path("bench/results/52-page.json"))
    parser.add_argument("--rounds", type=int, default=3, help="cold loads and scrolls, pooled")
    options = parser.parse_args()
    result = asyncio.run(run(options.label, options.rounds))
    runs = json.loads(options.out.read_text()) if options.out.exists() else []
    runs = [r for r in runs if r["label"] != options.label] + [result]
    options.out.write_text(json.dumps(runs, ensure_ascii=False, indent=1) + "\n")
    summary = {k: v for k, v in result.items() if not k.endswith("frame_ms")}
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
