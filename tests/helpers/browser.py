"""Debian's Chromium driven headless through Playwright (never a browser Playwright downloads), and
what the dashboard's tests wait for on the Play page."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page

CHROMIUM = Path("/usr/bin/chromium")
# Playwright's waits for what a page shows (its default, 30 s): a board's first hint loads the
# solver's kernels and scipy's LP, 3 s on a quiet machine, and ran past 30 s on two loaded cores.
WAIT_MS = 120_000
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def played(page: Page, jumps: int) -> None:
    """Wait for the Play page's hint after `jumps` jumps."""
    page.locator("#play-count").filter(has_text=re.compile(rf"^{jumps} jumps? played")).wait_for()
    page.locator("#play-verdict").filter(has_text=re.compile(r"won|Solved")).wait_for()
