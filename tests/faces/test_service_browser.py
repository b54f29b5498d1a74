"""The dashboard in a real headless Chromium (Debian's, driven by Playwright): submit, watch, step.

Screenshots go to a folder of the test session's own; with PEGSEARCH_SCREENSHOTS=docs they replace
the tracked ones in docs/screenshots/, where the README shows them (a plain `pytest --slow` leaves
the tree clean).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.helpers import stopped_inside_a_level
from tests.helpers.browser import ARGS, CHROMIUM, WAIT_MS, played
from tests.helpers.serving import Server

DOCS_SHOTS = Path(__file__).parents[2] / "docs" / "screenshots"
BOARDS = Path(__file__).parents[2] / "boards"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: docs/screenshots/ when asked (PEGSEARCH_SCREENSHOTS=docs), else a
    temporary folder."""
    if os.environ.get("PEGSEARCH_SCREENSHOTS") == "docs":
        DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
        return DOCS_SHOTS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(tmp_path / "runs", token="dashboard-token")
    yield started
    started.stop()


@pytest.fixture
def page() -> Iterator[Page]:
    """A Chromium page that answers the dashboard's one token prompt and fails on script errors."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (see .ci/run)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(WAIT_MS)
        page.on("dialog", lambda dialog: dialog.accept("dashboard-token"))
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        browser.close()
    assert errors == [], errors


def rows(page: Page) -> int:
    return page.locator("#levels tbody tr").count()


def submit(page: Page, board: str, start: tuple[int, ...]) -> None:
    """Choose a board and its start holes on the form (by clicking holes) and submit."""
    page.locator("#board-select").select_option(board)
    for hole in page.locator("#start-holes").inner_text().split(", "):
        page.locator(f'#board-picture circle[data-hole="{hole}"]').click()  # fill the drawn start
    for hole in start:
        page.locator(f'#board-picture circle[data-hole="{hole}"]').click()
    assert page.locator("#start-holes").inner_text() == ", ".join(map(str, start))
    page.locator("#submit").click()
    page.wait_for_url(re.compile(rf"#/search/{board}-h"))


def test_a_search_fills_in_live(server: Server, page: Page, shots: Path) -> None:
    page.goto(server.url + "/")
    page.locator("#board-select").select_option("skippy-xl")
    assert page.locator("#board-picture circle").count() == 28
    assert page.locator("#board-picture circle.peg").count() == 27
    page.screenshot(path=str(shots / "submit.png"), full_page=True)

    page.locator("#settings").fill("memory=512M")
    submit(page, "skippy-xl", (1,))
    page.wait_for_function("document.querySelectorAll('#levels tbody tr').length >= 8")
    seen_while_running = rows(page)
    assert "engine local (memory=512M)" in page.locator("#search-settings").inner_text()
    assert page.locator("#search").is_visible() and not page.locator("#home").is_visible()
    assert page.locator("#status").inner_text() in ("running", "complete")
    page.screenshot(path=str(shots / "running.png"), full_page=True)

    page.locator("#verdict").filter(has_text="one peg is not reachable").wait_for(timeout=300_000)
    assert page.locator("#status").inner_text() == "complete"
    assert seen_while_running < rows(page) == 26  # the table filled in as levels came
    assert page.locator("#chart rect.bar").count() == 26
    assert page.locator("#total").inner_text() == "7,937,410"
    engines = page.locator("#levels tbody td.engine").all_inner_texts()
    assert engines == ["local"] * 26  # which engine made each level, the start included

    page.goto(server.url + "/#/")
    page.locator("#searches tbody tr").first.wait_for()
    assert "complete" in page.locator("#searches tbody tr").first.inner_text()
    # The page fits the 1,280 px window (a list of long ids made it 1,317 px wide).
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    # ... and the list its card, the verdict in view, not under a scrollbar (issue 64, item 16).
    assert page.evaluate("(c => c.scrollWidth <= c.clientWidth)(document.getElementById('list-card'))")
    assert page.locator("#searches tbody tr").first.locator("td").last.is_visible()
    page.screenshot(path=str(shots / "searches.png"), full_page=True)


def test_an_uploaded_board_and_a_solution_step_by_step(server: Server, page: Page, tmp_path: Path,
                                                       shots: Path) -> None:
    board_file = tmp_path / "cracker-barrel.toml"
    board_file.write_text(BOARDS.joinpath("triangle-5.toml").read_text()
                          .replace('name = "triangle-5"', 'name = "cracker-barrel"'))
    page.goto(server.url + "/")
    page.locator("#board-select").select_option("")
    page.locator("#board-file").set_input_files(str(board_file))
    page.locator("#board-description").filter(has_text="15 holes, 36 jumps").wait_for()
    assert page.locator("#board-picture circle").count() == 15
    page.locator('#board-picture circle[data-hole="1"]').click()
    page.locator('#board-picture circle[data-hole="5"]').click()
    assert page.locator("#start-holes").inner_text() == "5"
    page.locator("#submit").click()
    page.wait_for_url(re.compile(r"#/search/cracker-barrel-h5-"))
    page.locator("#verdict").filter(has_text="one peg is reachable").wait_for(timeout=120_000)
    assert rows(page) == 14
    page.locator("#solve").click()
    page.locator("#solution-steps").wait_for(state="visible", timeout=120_000)
    assert page.locator("#solution-caption").inner_text() == "start"
    assert page.locator("#solution-board circle.peg").count() == 14
    for step in range(1, 6):
        page.locator("#solution-next").click()
        assert re.fullmatch(rf"{step}\. \d+-\d+-\d+ \(move \d+ of \d+\)",
                            page.locator("#solution-caption").inner_text())
        assert page.locator("#solution-board circle.peg").count() == 14 - step
        assert page.locator("#solution-board circle.to").count() == 1
    page.screenshot(path=str(shots / "solution.png"), full_page=True)
    page.locator("#solution-last").click()
    assert page.locator("#solution-board circle.peg").count() == 1
    assert page.locator("#solution-caption").inner_text().startswith("13. ")
    page.locator("#solution-prev").click()
    assert page.locator("#solution-board circle.peg").count() == 2


def test_a_survey_from_the_form(server: Server, page: Page, shots: Path) -> None:
    page.goto(server.url + "/")
    page.locator("#board-select").select_option("triangle-5")
    page.locator("#survey").check()
    assert not page.locator("#start-line").is_visible() and not page.locator("#symmetry-label").is_visible()
    page.locator("#count-paths").check()
    page.locator("#submit").click()
    page.wait_for_url(re.compile(r"#/search/survey-triangle-5-paths-"))
    page.locator("#verdict").filter(has_text="from 15 of 15 start holes").wait_for(timeout=120_000)
    page.locator("#starts tbody tr").nth(14).wait_for()
    assert page.locator("#starts tbody tr").count() == 15
    first = page.locator("#starts tbody tr").first.inner_text().split("\t")
    assert first[:2] == ["1", "yes"] and first[3] == "29,760"
    assert not page.locator("#level-cards").is_visible()
    page.screenshot(path=str(shots / "survey.png"), full_page=True)
    page.goto(server.url + "/#/")
    page.locator("#searches tbody tr").first.wait_for()
    cells = page.locator("#searches tbody tr").first.locator("td")
    assert [cells.nth(k).inner_text() for k in (2, 4, 5)] == ["every hole", "-", "-"]
    verdict = cells.nth(6)  # whole (it was cut to "one p..." at 1,280 px), in a few lines, never 6-9
    assert verdict.inner_text() == "one peg is reachable from 15 of 15 start holes"
    assert verdict.bounding_box()["height"] < 85


def test_fewest_moves_from_the_form_to_a_solution_grouped_by_move(server: Server, page: Page,
                                                                  shots: Path) -> None:
    page.goto(server.url + "/")
    page.locator("#fewest-moves").check()
    submit(page, "triangle-5", (4,))
    page.locator("#verdict").filter(has_text="in 9 moves at fewest").wait_for(timeout=120_000)
    assert "fewest moves" in page.locator("#search-settings").inner_text()
    assert page.locator("#levels thead th.moves").is_visible()
    assert not page.locator("#levels thead th.paths").is_visible()
    assert page.locator("#levels tbody tr").last.locator("td.moves").inner_text() == "9"
    first_bar = page.locator("#chart rect.bar").first  # level 0: one state, still a bar
    assert float(first_bar.get_attribute("height")) > 5
    page.locator("#solve").click()
    page.locator("#solution-steps").wait_for(state="visible", timeout=120_000)
    assert "9 moves (the fewest)" in page.locator("#solution-title").inner_text()
    grouped = page.locator("#solution-moves").inner_text().removeprefix("moves: ").split()
    assert len(grouped) == 9 and sum(len(move.split(",")) for move in grouped) == 13
    page.locator("#solution-last").click()
    assert page.locator("#solution-caption").inner_text().endswith("(move 9 of 9)")
    page.screenshot(path=str(shots / "fewest-moves.png"), full_page=True)


def play_by_clicks(page: Page, jump: str) -> None:
    """Click the jump's peg, see its landing hole marked as the hint says, and click that."""
    start, _, to = jump.split("-")
    page.locator(f'#play-board circle[data-hole="{start}"]').click()
    landing = page.locator(f'#play-board circle[data-hole="{to}"]')
    mark = page.locator(f'#play-jumps li[data-jump="{jump}"]').get_attribute("class")
    assert mark in ("keeps", "loses") and mark in landing.get_attribute("class").split()
    landing.click()


def test_play_the_english_centre_game_by_its_hints(server: Server, page: Page, shots: Path) -> None:
    """Following only jumps marked winnable clears the English board down to the centre; one
    losing jump, and the page says the game cannot be won any more, and no jump is marked winnable
    after it."""
    search_id = server.submit({"board": "english-33", "start": [17]})
    server.wait(search_id)
    page.goto(server.url + f"/#/search/{search_id}")
    page.locator("#play-link").click()
    page.wait_for_url(re.compile(rf"#/play/{search_id}$"))
    page.locator("#play-finish").select_option("17")
    played(page, 0)
    assert page.locator("#play-board circle.peg").count() == 32
    # "Won means" offers the holes the last peg can still end on (the hint's), not all 33.
    start = ",".join(str(hole) for hole in range(1, 34) if hole != 17)
    finishes = server.get(f"/api/searches/{search_id}/hint?position={start}")["finishes"]
    assert 17 in finishes and len(finishes) < 33
    offered = page.locator("#play-finish option").evaluate_all("options => options.map(o => o.value)")
    assert offered == ["", *map(str, sorted(finishes))]
    # Before any click the pegs that can move are marked; a stuck peg says it has no jump.
    movable = page.locator("#play-board circle.movable").all()
    assert sorted(int(circle.get_attribute("data-hole")) for circle in movable) == [5, 15, 19, 29]
    page.locator('#play-board circle[data-hole="1"]').click()
    assert page.locator("#play-note").inner_text() == "The peg on hole 1 has no jump from here."
    assert page.locator("#play-board svg").bounding_box()["width"] > 460  # fills its card
    for jumps in range(31):
        keeping = page.locator("#play-jumps li.keeps")
        assert keeping.count() > 0 and page.locator("#play-verdict").inner_text().startswith("Can")
        play_by_clicks(page, keeping.first.get_attribute("data-jump"))
        played(page, jumps + 1)
        if jumps == 9:  # a peg chosen, where it can land marked, for the README
            losing = page.locator("#play-jumps li.loses").first.get_attribute("data-jump")
            peg = losing.split("-")[0]
            page.locator(f'#play-board circle[data-hole="{peg}"]').click()
            assert page.locator("#play-board circle.loses").count() >= 1
            page.screenshot(path=str(shots / "play.png"), full_page=True)
            page.locator(f'#play-board circle[data-hole="{peg}"]').click()  # chosen no more
    assert page.locator("#play-verdict").inner_text() == "Solved: one peg on hole 17."
    assert [c.get_attribute("data-hole") for c in page.locator("#play-board circle.peg").all()] == ["17"]

    page.locator("#play-restart").click()
    played(page, 0)
    jumps = 0
    while page.locator("#play-jumps li.loses").count() == 0:
        play_by_clicks(page, page.locator("#play-jumps li.keeps").first.get_attribute("data-jump"))
        jumps += 1
        played(page, jumps)
    play_by_clicks(page, page.locator("#play-jumps li.loses").first.get_attribute("data-jump"))
    played(page, jumps + 1)
    assert page.locator("#play-verdict").inner_text().startswith("Cannot be won any more")
    assert page.locator("#play-jumps li.keeps").count() == 0
    page.locator("#play-undo").click()
    played(page, jumps)
    assert page.locator("#play-verdict").inner_text().startswith("Can still be won")


def play_a_new_search(server: Server, page: Page, request: dict) -> None:
    """Submit a search, wait for it, and open its Play page at the start."""
    search_id = server.submit(request)
    server.wait(search_id)
    page.goto(server.url + f"/#/play/{search_id}")
    played(page, 0)


def test_play_tells_the_solutions_left_on_a_count_paths_search(server: Server, page: Page,
                                                               published: dict) -> None:
    """On a search that counts paths, the Play page says how many solutions the position has and
    each winnable jump leaves: from triangle-5's hole 5, Durango Bill's 1,550, half after each of
    its two first jumps (mirror images)."""
    play_a_new_search(server, page, {"board": "triangle-5", "start": [5], "symmetry": "none",
                                     "count_paths": True})
    total = published["triangle5_solutions"]["by_start_hole"]["5"]
    assert page.locator("#play-verdict").inner_text() == \
        f"Can still be won (one peg): {total:,} solutions from here."
    jumps = page.locator("#play-jumps li.keeps")
    assert [item.inner_text() for item in jumps.all()] == \
        [f"{jump} ✓ ({total // 2:,} solutions)" for jump in ("12-8-5", "14-9-5")]
    play_by_clicks(page, "12-8-5")
    played(page, 1)
    assert f"{total // 2:,} solutions from here" in page.locator("#play-verdict").inner_text()


def test_play_tells_the_fewest_moves_left_on_a_fewest_moves_search(server: Server, page: Page,
                                                                  published: dict) -> None:
    """On a search that finds fewest moves, the Play page says how many moves are left at fewest:
    from triangle-5's hole 4, the 9 of OEIS A127500; a jump whose peg can go on leaves 8."""
    play_a_new_search(server, page, {"board": "triangle-5", "start": [4], "symmetry": "start",
                                     "fewest_moves": True})
    fewest = published["triangle_shortest_solution_moves"]["by_side"]["5"]
    assert page.locator("#play-verdict").inner_text() == \
        f"Can still be won (one peg): {fewest} moves at fewest from here."
    assert page.locator('#play-jumps li[data-jump="1-2-4"]').inner_text() == \
        f"1-2-4 ✓ ({fewest - 1} moves left)"
    play_by_clicks(page, "1-2-4")
    played(page, 1)
    assert f"{fewest - 1} moves at fewest from here" in page.locator("#play-verdict").inner_text()


def test_number_settings_are_sent_as_numbers(server: Server, page: Page) -> None:
    """The form sent batch_size alone as a number (a hand list), so `driver_below=...` went as text
    and was refused; it sends as numbers the settings the API's description calls integers."""
    page.goto(server.url + "/")
    page.locator("#engine").select_option("spark")
    page.locator("#settings").fill("master=local[1], driver_below=1000000")
    submit(page, "triangle-5", (1,))
    page.locator("#status").filter(has_text="complete").wait_for(timeout=300_000)
    search_id = page.url.rsplit("/", 1)[-1]
    assert server.get(f"/api/searches/{search_id}")["settings"] == {"master": "local[1]",
                                                                    "driver_below": 1000000}
    page.goto(server.url + "/")
    page.locator("#settings").fill("driver_below=few")
    page.locator("#engine").select_option("spark")
    page.locator("#board-select").select_option("triangle-5")
    page.locator("#submit").click()
    page.locator("#message").filter(has_text="settings.driver_below few: give a whole number").wait_for()


def test_a_level_in_progress_is_shown_beside_the_status(server: Server, page: Page,
                                                        tmp_path: Path) -> None:
    checkpoint = stopped_inside_a_level(tmp_path / "runs" / "in-passes")
    page.goto(server.url + "/#/search/in-passes")
    shown = page.locator("#in-progress")
    shown.filter(has_text="pass 2 of").wait_for()
    assert shown.inner_text().startswith(f"level {checkpoint['level']}: pass 2 of"
                                         f" {checkpoint['passes']} done")
    assert page.locator("#status").inner_text() == "interrupted"


def test_play_any_board_by_the_solvers_hints(server: Server, page: Page, shots: Path) -> None:
    """No search: the home page's link plays triangle-9 from its start with the solver's hints.
    Following jumps marked winnable keeps it winnable; a jump played shows at once, greyed until
    its answer; a chosen finishing hole that becomes impossible offers those still possible."""
    page.goto(server.url + "/#/")
    page.locator("#board-select").select_option("triangle-9")
    page.locator("#play-board-link").click()
    page.wait_for_url(re.compile(r"#/play-board/triangle-9$"))
    played(page, 0)
    assert page.locator("#play-board circle.peg").count() == 44
    for jumps in range(6):
        keeping = page.locator("#play-jumps li.keeps")
        assert keeping.count() > 0
        jump = keeping.first.get_attribute("data-jump")
        start, _, to = jump.split("-")
        page.locator(f'#play-board circle[data-hole="{start}"]').click()
        page.locator(f'#play-board circle[data-hole="{to}"]').click()
        # Shown before its answer: the new position, one peg fewer, greyed while asked.
        assert page.locator("#play-board circle.peg").count() == 43 - jumps
        played(page, jumps + 1)
    assert page.locator("#play-verdict").inner_text().startswith("Can still be won")
    page.screenshot(path=str(shots / "play-board.png"), full_page=True)
    # Choose a finishing hole, then play a jump the hint marks losing for it.
    offered = page.locator("#play-finish option").evaluate_all("options => options.map(o => o.value)")
    page.locator("#play-finish").select_option(offered[1])
    page.locator("#play-verdict").filter(has_text=re.compile(r"won|Undecided")).wait_for()
    losing = page.locator("#play-jumps li.loses")
    if losing.count():
        losing.first.click()
        page.locator("#play-offer").wait_for(state="visible")
        assert f"hole {offered[1]} is no longer possible" in page.locator("#play-offer-text").inner_text()
        page.locator("#play-offer-holes button").first.click()
        page.locator("#play-offer").wait_for(state="hidden")
