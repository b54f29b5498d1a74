"""Kept winnable sets and hints, against the walk that does not keep them, an independent game
solver written here (a triangle's geometry from rows and columns, every real position played out),
and the published English figures."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import cache
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from pegsearch.answers.hint import hint
from pegsearch.answers.winnable import targets, winnable_counts, winnable_sets
from pegsearch.board.classes import class_of, invariants
from pegsearch.board.pictures import holes_with_pegs
from pegsearch.board.symmetry import image_of_position
from pegsearch.errors import NotFound
from pegsearch.kernel.digest import as_text, combined
from pegsearch.kernel.values import Carry
from pegsearch.store import Location, Run
from pegsearch.store.lock import writer_of
from pegsearch.store.parts import iter_parts, write_part
from pegsearch.store.sets import set_folder, set_key
from tests.answers.test_answers import triangle_run
from tests.helpers import assert_one_line_error, cell, hole_at, local_run, pegsearch

SIDE = 5
HOLES = SIDE * (SIDE + 1) // 2
STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))


def jumps_of(pegs: frozenset[int]) -> list[tuple[str, frozenset[int]]]:
    """Every legal jump of a triangle-5 position, by rows and columns, with the pegs after it."""
    found = []
    for start in pegs:
        row, column = cell(start)
        for dr, dc in STEPS:
            over, to = (row + dr, column + dc), (row + 2 * dr, column + 2 * dc)
            if not (0 <= to[1] <= to[0] < SIDE):
                continue
            over_hole, to_hole = hole_at(*over), hole_at(*to)
            if over_hole in pegs and to_hole not in pegs:
                found.append((f"{start}-{over_hole}-{to_hole}", (pegs - {start, over_hole}) | {to_hole}))
    return found


@cache
def can_finish(pegs: frozenset[int], on: int | None) -> bool:
    """Whether the position can be played down to one peg (on hole `on`): every line tried."""
    if len(pegs) == 1:
        return on is None or pegs == {on}
    return any(can_finish(after, on) for _, after in jumps_of(pegs))


@cache
def solutions_from(pegs: frozenset[int], on: int | None) -> int:
    """The jump sequences from the position down to one peg (on hole `on`): every line counted."""
    if len(pegs) == 1:
        return int(on is None or pegs == {on})
    return sum(solutions_from(after, on) for _, after in jumps_of(pegs))


@cache
def moves_left(pegs: frozenset[int], last: int | None, on: int | None) -> float:
    """The fewest moves from the position down to one peg (on hole `on`), the peg on `last` (the
    one that moved last) free to go on jumping: every line tried."""
    if len(pegs) == 1:
        return 0 if on is None or pegs == {on} else float("inf")
    return min((int(jump.split("-")[0]) != last) + moves_left(after, int(jump.split("-")[2]), on)
               for jump, after in jumps_of(pegs)) if jumps_of(pegs) else float("inf")


def sampled(run: Run, seed: int) -> Iterator[tuple[int, frozenset[int]]]:
    """Three stored positions of each level of a triangle-5 run (fewer where it has fewer), drawn
    with `seed`, as (level, the holes with pegs)."""
    chosen = random.Random(seed)
    for level in range(len(run.levels)):
        stored = run.read_level(level).tolist()
        for position in chosen.sample(stored, min(3, len(stored))):
            yield level, frozenset(h + 1 for h in range(HOLES) if position >> h & 1)


def asked(run: Run, pegs: frozenset[int], finish: int | None) -> dict:
    """The hint of the position with pegs on `pegs`, asked in this process (the command line's
    own document: `test_hints_agree_with_every_line_played_out` checks they are the same)."""
    return hint(run, sum(1 << (hole - 1) for hole in pegs), finish).as_document()


def hint_json(out: Path, position: str, *flags: str) -> dict:
    result = pegsearch("hint", str(out), position, *flags, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(("start", "symmetry"), [(1, "board"), (4, "start"), (5, "none")])
def test_kept_sets_are_the_walk_and_verify_checks_them(tmp_path: Path, start: int,
                                                       symmetry: str) -> None:
    """`pegsearch winnable` keeps, per level, exactly the sets the walk finds (any finish, and one
    hole's beside it); asked again it reads them; verify checks them and finds a changed one."""
    out = triangle_run(tmp_path, start, symmetry)
    for finish in (None, 13):
        flags = () if finish is None else ("--finish", str(finish))
        result = pegsearch("winnable", str(out), *flags, "--json")
        assert result.returncode == 0, result.stderr
        record = json.loads(result.stdout)
        run = Run.open(out)
        walked = dict(winnable_sets(run, targets(run, finish)))
        assert [level["states"] for level in record["levels"]] == winnable_counts(run, finish)
        assert all(level["states"] == len(walked[level["level"]]) for level in record["levels"])
        again = pegsearch("winnable", str(out), *flags)
        assert again.returncode == 0 and "were kept already" in again.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["winnable"]) == {"any", "hole-13"}
    assert "ok: winnable sets hole-13" in pegsearch("verify", str(out)).stdout
    sets = out / "winnable-any"
    [earlier] = (sets / "level-002").iterdir()
    [part] = (sets / "level-003").iterdir()
    part.write_bytes(earlier.read_bytes())  # another level's set in its place
    refused = pegsearch("verify", str(out))
    assert refused.returncode == 1 and "winnable any level 3" in refused.stdout
    shutil.copytree(sets, out / "winnable-hole-5")  # sets a killed `pegsearch winnable` never listed
    refused = pegsearch("verify", str(out))
    assert refused.returncode == 1 and "winnable-hole-5/ is not listed in the manifest" in refused.stdout


def test_two_keeping_the_same_sets_at_once_leave_them_whole(tmp_path: Path) -> None:
    """Two `pegsearch winnable` of one run at once: the second is refused in one line while the
    first keeps the sets (or, started after, reads them), and the sets kept verify."""
    run = local_run("english-33", tmp_path / "run")
    command = [sys.executable, "-m", "pegsearch", "winnable", run.uri]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The second once the first holds the run (a fixed second was too short for a process
    # starting on a loaded machine: the second, asked in this process, took the run first).
    deadline = time.monotonic() + 120
    while writer_of(Location.parse(run.uri)) is None and first.poll() is None:
        assert time.monotonic() < deadline, "the first `winnable` never took the run"
        time.sleep(0.01)
    second = pegsearch("winnable", run.uri)
    _, errors = first.communicate(timeout=600)
    assert first.returncode == 0, errors
    if second.returncode:
        assert_one_line_error(second, "is being written by pegsearch process")
    else:
        assert "were kept already" in second.stdout
    checked = pegsearch("verify", run.uri)
    assert checked.returncode == 0, checked.stdout


@pytest.mark.parametrize("carrying", [(), ("--count-paths",), ("--fewest-moves",)])
def test_kept_sets_hold_what_the_walk_holds(tmp_path: Path, carrying: tuple[str, ...]) -> None:
    """Read back from their parts, the kept sets are the walk's sets, position for position, also
    when they carry solutions or moves left (made by another kernel)."""
    from pegsearch.answers.winnable import read_sets

    made = pegsearch("run", "triangle-5", *carrying, "--out", str(tmp_path / "run"))
    assert made.returncode == 0, made.stderr
    run = Run.open(tmp_path / "run")
    walked = dict(winnable_sets(run, targets(run)))
    kept = dict(read_sets(run))
    assert kept.keys() == walked.keys()
    assert all(np.array_equal(kept[level], walked[level]) for level in kept)


@pytest.mark.parametrize(("start", "symmetry", "finish"),
                         [(1, "board", None), (1, "board", 11), (4, "start", 1), (5, "none", None)])
def test_hints_agree_with_every_line_played_out(tmp_path: Path, start: int, symmetry: str,
                                                finish: int | None) -> None:
    """On sampled reachable positions of every level, the hint's verdict and each jump's equal an
    independent solver's (down to one peg, or one peg on a hole the symmetries move)."""
    out = triangle_run(tmp_path, start, symmetry)
    run = Run.open(out)
    flags = () if finish is None else ("--finish", str(finish))
    [(_, first), *_] = sampled(run, start)
    by_command = hint_json(out, ",".join(map(str, sorted(first))), *flags)
    assert by_command.pop("location") == str(out) and by_command == asked(run, first, finish)
    for level, pegs in sampled(run, start):
        document = asked(run, pegs, finish)
        assert document["level"] == level and document["reachable"]
        assert document["winnable"] == can_finish(pegs, finish)
        expected = {jump: can_finish(after, finish) for jump, after in jumps_of(pegs)}
        assert {j["jump"]: j["winnable"] for j in document["jumps"]} == expected
        assert document["exact"] or (symmetry == "board" and "note" in document)


@pytest.mark.parametrize(("start", "symmetry"), [(1, "board"), (4, "start"), (5, "none")])
def test_a_hint_names_every_hole_the_last_peg_can_end_on(tmp_path: Path, start: int,
                                                        symmetry: str) -> None:
    """The finishing holes kept with each winnable position (carried through the symmetry that
    makes each child's signature) are, for every hole at once, what an independent solver finds
    hole by hole, on holes the symmetries move and holes they keep; and `--finish H` agrees."""
    run = Run.open(triangle_run(tmp_path, start, symmetry))
    for level, pegs in sampled(run, start + 10):
        position = sum(1 << (hole - 1) for hole in pegs)
        assert hint(run, position).finishes == [h for h in range(1, HOLES + 1)
                                                   if can_finish(pegs, h)], (level, sorted(pegs))
        for hole in range(1, HOLES + 1):
            document = hint(run, position, hole).as_document()
            assert document["winnable"] == can_finish(pegs, hole), (level, sorted(pegs), hole)
            assert {j["jump"]: j["winnable"] for j in document["jumps"]} == \
                {jump: can_finish(after, hole) for jump, after in jumps_of(pegs)}
    checked = pegsearch("verify", run.location.path())
    assert "ok: winnable sets finishes: " in checked.stdout, checked.stdout


@pytest.mark.parametrize(("start", "symmetry", "finish"),
                         [(1, "board", None), (1, "start", 13), (4, "start", None), (5, "none", None),
                          (1, "none", 10)])
def test_a_count_paths_run_tells_the_solutions_left(tmp_path: Path, published: dict, start: int,
                                                    symmetry: str, finish: int | None) -> None:
    """On a --count-paths run, a hint counts the solutions from the position and after each jump:
    from the start, Durango Bill's figures; elsewhere, every line counted by the independent
    solver; and verify rechecks every kept count against its children's."""
    out = triangle_run(tmp_path, start, symmetry, count_paths=True)
    flags = () if finish is None else ("--finish", str(finish))
    bill = published["triangle5_solutions"]
    full = ",".join(str(hole) for hole in range(1, HOLES + 1) if hole != start)
    expected = bill["by_start_hole"][str(start)] if finish is None else \
        bill["corner_start_by_final_hole"][str(finish)]
    assert hint_json(out, full, *flags)["solutions"] == expected
    run = Run.open(out)
    for _level, pegs in sampled(run, start):
        document = asked(run, pegs, finish)
        assert document["solutions"] == solutions_from(pegs, finish)
        assert {j["jump"]: j["solutions"] for j in document["jumps"]} == \
            {jump: solutions_from(after, finish) for jump, after in jumps_of(pegs)}
    verify_checks_the_values(run, finish, Carry.PATHS)


def verify_checks_the_values(run: Run, finish: int | None, carry: Carry) -> None:
    """verify remakes the kept values from the children's, and names a position whose stored
    value is one more than that (its part rewritten as the run's own writer would, so only the
    values can tell)."""
    checked = pegsearch("verify", run.uri)
    assert checked.returncode == 0 and "made from its children's" in checked.stdout
    key, level = set_key(finish), 3
    record = run.manifest["winnable"][key]["levels"][level]
    entry = record["files"][0]
    folder = set_folder(run, finish, level)
    [(positions, values)] = iter_parts(folder, [entry], 1 << 30, carry, "a set")
    values = values.copy()
    values[0, 0 if carry is Carry.PATHS else 1] += 1  # one solution more, or one move more
    written = write_part(folder, entry["name"], positions, carry, values, run.part_metadata(level))
    record["files"][0] = {**entry, **written}
    record["digest"] = as_text(combined([int(f["digest"], 16) for f in record["files"]]))
    run.save()
    refused = pegsearch("verify", run.uri)
    assert refused.returncode == 1 and f"winnable {key} level 3: position" in refused.stdout


@pytest.mark.parametrize(("start", "symmetry", "finish"),
                         [(4, "start", None), (1, "board", None), (1, "start", 13), (5, "none", None)])
def test_a_fewest_moves_run_tells_the_moves_left(tmp_path: Path, start: int, symmetry: str,
                                                 finish: int | None) -> None:
    """On a --fewest-moves run, a hint gives the fewest moves left from the position (the next
    jump beginning a move) and after each winnable jump (its peg free to go on): from the start,
    the search's own fewest moves, found forwards; elsewhere every line tried by the independent
    solver; and verify remakes every kept value from its children's."""
    out = tmp_path / "run"
    made = pegsearch("run", "triangle-5", "--start", str(start), "--symmetry", symmetry,
                     "--fewest-moves", "--out", str(out), "--json")
    assert made.returncode == 0, made.stderr
    flags = () if finish is None else ("--finish", str(finish))
    full = ",".join(str(hole) for hole in range(1, HOLES + 1) if hole != start)
    forwards = json.loads(made.stdout)
    fewest = forwards["moves"] if finish is None else \
        next(entry["moves"] for entry in forwards["finishes"] if entry.get("hole") == finish)
    document = hint_json(out, full, *flags)
    assert document["moves_left"] == fewest == \
        moves_left(frozenset(map(int, full.split(","))), None, finish)
    run = Run.open(out)
    for _level, pegs in sampled(run, start):
        document = asked(run, pegs, finish)
        if not document["winnable"]:
            assert "moves_left" not in document
            continue
        assert document["moves_left"] == moves_left(pegs, None, finish)
        assert {j["jump"]: j["moves_left"] for j in document["jumps"] if j["winnable"]} == \
            {jump: moves_left(after, int(jump.split("-")[2]), finish)
             for jump, after in jumps_of(pegs) if can_finish(after, finish)}
    verify_checks_the_values(run, finish, Carry.MOVES)


def test_a_hint_tells_no_solutions_where_the_finish_is_not_exact(tmp_path: Path) -> None:
    """Hole 7 is moved by the reflection the run is reduced by (to 10): its sets count solutions
    to either, so a hint to it gives none (rather than a wrong count)."""
    out = triangle_run(tmp_path, 1, "board", count_paths=True)
    document = hint_json(out, ",".join(map(str, range(2, HOLES + 1))), "--finish", "7")
    assert document["winnable"] and "solutions" not in document
    assert all("solutions" not in jump for jump in document["jumps"])


def test_a_board_reduced_run_knows_images_of_another_class_unreachable(tmp_path: Path) -> None:
    """On a run reduced by symmetries that move the start, each image of a stored position is
    either reached (the raw run holds it) or, in another position class than the start's, refused
    as unreachable; the hint never says an image of another class is reachable."""
    reduced, raw = Run.open(triangle_run(tmp_path, 1, "board")), Run.open(triangle_run(tmp_path, 1, "none"))
    refused = []
    for level in (3, 6):
        reached = set(raw.read_level(level).tolist())
        for position in reduced.read_level(level).tolist()[:2]:
            for perm in reduced.board.symmetries:
                image = image_of_position(perm, position)
                try:
                    assert hint(reduced, image).reachable
                    assert class_of(image, invariants(reduced.board)) == \
                        class_of(position, invariants(reduced.board))
                except NotFound as unreachable:
                    assert image not in reached
                    assert "another position class than the start" in unreachable.line()
                    refused.append(image)
    assert refused
    said = pegsearch("hint", str(reduced.uri), ",".join(map(str, holes_with_pegs(refused[0]))), "--json")
    assert_one_line_error(said, "another position class than the start")


def test_a_position_given_as_jumps_or_a_picture_is_the_same_position(tmp_path: Path) -> None:
    out = triangle_run(tmp_path, 1, "board")
    by_jumps = hint_json(out, "4-2-1,6-5-4")
    assert by_jumps["position"] == [1, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    by_picture = hint_json(out, by_jumps["picture"])
    assert hint_json(out, ",".join(map(str, by_jumps["position"]))) == by_picture
    assert by_jumps == by_picture
    ended = pegsearch("hint", "--json", str(out), "--", "4-2-1,6-5-4")  # `--` ends the options
    assert ended.returncode == 0 and json.loads(ended.stdout) == by_jumps, ended.stderr


def test_jumps_from_the_start_prove_the_position_itself_reachable(tmp_path: Path) -> None:
    """Skippy XL's run is reduced by symmetries that move its start: holes prove only that the
    position or one of its images is reachable, a line of jumps from the start the position."""
    out = tmp_path / "skippy"
    assert pegsearch("run", "skippy-xl", "--out", str(out)).returncode == 0
    by_jumps = hint_json(out, "4-2-1")
    by_holes = hint_json(out, ",".join(map(str, [1, 3, *range(5, 29)])))
    assert by_jumps["position"] == by_holes["position"]
    assert by_jumps["exact"] and "note" not in by_jumps
    assert not by_holes["exact"] and "one of its images" in by_holes["note"]


def test_a_hint_refuses_in_one_line(tmp_path: Path) -> None:
    out = triangle_run(tmp_path, 1, "none")
    run = Run.open(out)
    three = set(run.read_level(HOLES - 1 - 3).tolist())
    unreached = next(",".join(map(str, holes)) for holes in combinations(range(1, HOLES + 1), 3)
                     if sum(1 << (h - 1) for h in holes) not in three)
    for position, fragment in (("2,99", ": position 99: hole 99 does not exist on triangle-5"),
                               ("1-2-4", "jump 1 (1-2-4) is not a legal jump there"),
                               ("o o\no", "a picture of triangle-5 has 15 holes"),
                               ("x,y", "give the holes with pegs as numbers"),
                               ("1,1,2,3", "hole 1 is named more than once"),
                               ("-1,2", "give the holes with pegs as numbers"),  # no jump (issue 64, 12)
                               (unreached, "is not reachable from the start")):
        assert_one_line_error(pegsearch("hint", str(out), position), fragment)
    assert_one_line_error(pegsearch("hint", str(out), "1,2", "--finish", "16"), "--finish 16")


@pytest.mark.slow
def test_english_kept_sets_match_a112738_and_are_no_larger_than_the_levels(
        published: dict, tmp_path: Path) -> None:
    """The English centre game's sets to the centre, kept by `counts --winnable` and read by the
    next one, are the published counts; their bytes are no more than the levels' own."""
    run = local_run("english-33", tmp_path / "run")
    figures = published["english_centre_winnable_reduced_per_level"]
    for _ in range(2):
        result = pegsearch("counts", str(run.uri), "--winnable", "--finish", "17", "--json")
        assert result.returncode == 0, result.stderr
        assert [level["winnable"] for level in json.loads(result.stdout)["levels"]] == figures["levels"]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    kept = sum(f["bytes"] for level in manifest["winnable"]["hole-17"]["levels"] for f in level["files"])
    stored = sum(f["bytes"] for level in manifest["levels"] for f in level["files"])
    assert 0 < kept <= stored
    # The centre game played by hints alone: always a jump marked winnable, down to one peg on 17.
    position = "5-10-17"
    for _ in range(30):
        document = hint_json(tmp_path / "run", position, "--finish", "17")
        assert document["winnable"]
        position = ",".join(map(str, next(j for j in document["jumps"] if j["winnable"])["position"]))
    assert hint_json(tmp_path / "run", position, "--finish", "17")["position"] == [17]
