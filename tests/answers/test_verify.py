"""`pegsearch verify`: a good run passes; damaged, foreign or tampered levels are each reported."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pegsearch.answers.verify import Spans, verify
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.kernel.digest import as_text, digest
from pegsearch.store import MANIFEST, Run
from pegsearch.store.manifest import level_digest
from tests.helpers import assert_one_line_error, part_file, pegsearch, sha256_of, wait_for_levels


def make_run(out: Path, board: str = "triangle-5", count_paths: bool = False) -> Path:
    loaded = load_board(board)
    search(SearchSpec(loaded, loaded.empty, count_paths=count_paths), out, LocalEngine())
    return out


def edit_manifest(out: Path, change) -> None:
    manifest = json.loads((out / MANIFEST).read_text())
    change(manifest)
    (out / MANIFEST).write_text(json.dumps(manifest))


def problems(out: Path) -> list[str]:
    result = pegsearch("verify", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_a_good_run_passes(tmp_path: Path) -> None:
    out = make_run(tmp_path / "run", count_paths=True)
    result = pegsearch("verify", str(out))
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("ok: ") and "14 levels, 1,544 states" in result.stdout


def test_a_truncated_level_file_is_caught(tmp_path: Path) -> None:
    out = make_run(tmp_path / "run")
    part = part_file(out, 7)
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    lines = problems(out)
    assert any(f"level 7 {part.name}: checksum does not match" in line for line in lines)
    assert any(f"level 7 {part.name}: unreadable Parquet" in line for line in lines)
    assert not any("level 6" in line or "level 8" in line for line in lines)


def test_a_truncated_level_part_of_a_run_with_kept_sets_is_a_problem_line(tmp_path: Path) -> None:
    """It was one `error:` line telling the user to run verify, and exit 2: with winnable sets
    kept, the sets' check read the damaged level whole."""
    out = make_run(tmp_path / "run")
    assert pegsearch("winnable", str(out)).returncode == 0
    part = part_file(out, 2)
    part.write_bytes(part.read_bytes()[:-100])
    lines = problems(out)
    assert any(f"level 2 {part.name}: checksum does not match" in line for line in lines), lines
    assert not any("run `pegsearch verify`" in line for line in lines)


def test_a_level_from_another_board_is_caught(tmp_path: Path) -> None:
    out = make_run(tmp_path / "run")
    other = make_run(tmp_path / "other", board="triangle-6")
    ours, theirs = part_file(out, 5), part_file(other, 5)
    ours.write_bytes(theirs.read_bytes())
    lines = problems(out)
    assert any(line.startswith(f"{out}: level 5") and "checksum" in line for line in lines)
    # Even with the manifest edited to list the foreign files, their positions give them away.
    ours.unlink()
    shutil.copy(theirs, ours.parent / theirs.name)
    foreign = json.loads((other / MANIFEST).read_text())["levels"][5]
    edit_manifest(out, lambda m: m["levels"][5].update(files=foreign["files"],
                                                       states=foreign["states"],
                                                       digest=foreign["digest"]))
    lines = problems(out)
    assert lines and all(": level 5 part-" in line and "do not have 9 pegs" in line for line in lines)


def test_tampered_manifest_totals_and_board_are_caught(tmp_path: Path) -> None:
    out = make_run(tmp_path / "run", count_paths=True)

    def tamper(manifest: dict) -> None:
        manifest["levels"][13]["paths"] = "29761"
        manifest["levels"][3]["states"] += 1
        manifest["board_digest"] = "0" * 16

    edit_manifest(out, tamper)
    lines = problems(out)
    assert len(lines) == 3
    assert any("level 13: paths sum to 29,760, the manifest says 29,761" in line for line in lines)
    assert any("level 3:" in line and "states" in line for line in lines)
    assert any("board digest" in line for line in lines)


def split_level(out: Path, level: int, pieces: list[np.ndarray]) -> None:
    """Store a level as the given part files and list them (with checksums) in the manifest."""
    folder = out / f"level-{level:03d}"
    shutil.rmtree(folder)
    folder.mkdir()
    files = []
    for index, piece in enumerate(pieces):
        part = folder / f"part-{index:05d}.parquet"
        pq.write_table(pa.table({"position": pa.array(piece.view(np.int64), pa.int64())}), part)
        files.append({"name": part.name, "rows": len(piece), "sha256": sha256_of(part),
                      "digest": as_text(digest(piece))})
    edit_manifest(out, lambda m: m["levels"][level].update(files=files, digest=level_digest(files)))


def test_unsorted_and_overlapping_parts_are_caught(tmp_path: Path) -> None:
    """Levels of several parts (as hash-partitioning engines write them): each sorted, all disjoint."""
    out = make_run(tmp_path / "run")
    positions = np.sort(Run.open(out).read_level(7))
    odd, even = positions[positions % np.uint64(2) == 1], positions[positions % np.uint64(2) == 0]
    split_level(out, 7, [odd, even])
    assert pegsearch("verify", str(out)).returncode == 0
    split_level(out, 7, [odd[::-1], np.sort(np.concatenate([even[1:], odd[:1]]))])
    lines = problems(out)
    assert len(lines) == 2
    assert "level 7 part-00000.parquet: positions are not sorted" in lines[0]
    assert "level 7: a position appears in more than one part" in lines[1]


def test_parts_too_many_to_hold_are_compared_in_rounds(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A level larger than verify may hold (here 256 bytes) is checked for positions in two parts
    in rounds, each reading the parts again for its share of the positions: the same findings."""
    monkeypatch.setattr(Spans, "HELD", 256)
    out = make_run(tmp_path / "run")
    positions = np.sort(Run.open(out).read_level(8))
    assert 8 * 2 * len(positions) > 4 * 256  # several rounds
    odd, even = positions[positions % np.uint64(2) == 1], positions[positions % np.uint64(2) == 0]
    split_level(out, 8, [odd, even])
    assert verify(out).ok
    split_level(out, 8, [odd, np.sort(np.concatenate([even, odd[-1:]]))])
    assert verify(out).problems == [
        f"level 8: {len(positions) + 1:,} rows read, the manifest says {len(positions):,} states",
        "level 8: a position appears in more than one part"]


def test_verify_refuses_a_folder_that_is_no_run(tmp_path: Path) -> None:
    assert_one_line_error(pegsearch("verify", str(tmp_path)), "is not a pegsearch run (no manifest.json)")


@pytest.mark.slow
def test_verify_passes_after_a_killed_run_is_resumed(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "pegsearch", "run", "skippy-xl", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_levels(out, 12)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    interrupted = pegsearch("verify", str(out))
    if interrupted.returncode == 0:  # killed before the level being made wrote a part
        assert "the run is interrupted: resume it to finish" in interrupted.stdout  # its writer died
    else:
        assert all("`--resume` removes it" in line for line in interrupted.stdout.splitlines())
    assert pegsearch("run", "skippy-xl", "--out", str(out), "--resume").returncode == 0
    result = pegsearch("verify", str(out))
    assert result.returncode == 0, result.stdout
    assert "26 levels" in result.stdout and "(the run is" not in result.stdout


def test_recompute_agrees_with_a_good_run_and_catches_a_consistent_lie(tmp_path: Path) -> None:
    """A level missing one position, with the manifest rewritten to match, passes every check of
    the files; only the second computation can tell it is not the level the search makes."""
    from pegsearch.store import encode

    out = make_run(tmp_path / "run", board="triangle-6")
    good = pegsearch("verify", str(out), "--recompute", "30")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "levels 1 to 19 agree position for position with a second computation" in good.stdout

    states = Run.open(out).levels[5]["states"]
    part = part_file(out, 5)
    kept = Run.open(out).read_level(5)[1:]
    part.write_bytes(encode(kept))

    def shrink(manifest: dict) -> None:
        record = manifest["levels"][5]
        record["files"][0].update(rows=record["files"][0]["rows"] - 1, sha256=sha256_of(part),
                                  bytes=part.stat().st_size,
                                  digest=as_text(digest(kept)))
        record["digest"] = record["files"][0]["digest"]
        record["states"] -= 1

    edit_manifest(out, shrink)
    assert pegsearch("verify", str(out)).returncode == 0  # the files agree with the manifest
    caught = pegsearch("verify", str(out), "--recompute", "8")
    assert caught.returncode == 1
    assert caught.stdout.splitlines() == [f"{out}: level 5: the stored {states - 1:,} positions differ"
                                          f" from the {states:,} a second computation (numpy) finds"]


def test_verify_checks_fewest_moves_against_the_manifest_and_the_rules(tmp_path: Path) -> None:
    """A part whose moves were rewritten (manifest entry updated to match its bytes) is caught by
    the level's count of positions by moves and by the rule that a level-k position needs at most k
    moves."""
    from pegsearch.kernel.values import Carry
    from pegsearch.store import encode

    out = tmp_path / "moves"
    assert pegsearch("run", "triangle-5", "--fewest-moves", "--out", str(out)).returncode == 0
    good = pegsearch("verify", str(out))
    assert good.returncode == 0 and "fewest moves (per level, and each possible)" in good.stdout
    run = Run.open(out)
    values = run.read_level_values(3).copy()
    values[0, 1] = 7  # seven moves in three jumps
    positions = run.read_level(3)
    part = part_file(out, 3)
    part.write_bytes(encode(positions, Carry.MOVES, values))

    def match(manifest: dict) -> None:
        entry = manifest["levels"][3]["files"][0]
        entry.update(sha256=sha256_of(part), bytes=part.stat().st_size,
                     digest=as_text(digest(positions, values)))
        manifest["levels"][3]["digest"] = entry["digest"]

    edit_manifest(out, match)
    caught = pegsearch("verify", str(out))
    assert caught.returncode == 1
    assert [line.split(": ", 2)[1:] for line in caught.stdout.splitlines()] == [
        ["level 3", f"positions by fewest moves {{'3': {run.levels[3]['states'] - 1}, '7': 1}}, the"
                    f" manifest says {{'3': {run.levels[3]['states']}}} (fewest 3)"],
        ["level 3", "a fewest-moves count outside 1..3 (a move is at least one jump)"]]


def test_verify_names_files_the_manifest_does_not_list(tmp_path: Path) -> None:
    """What a killed attempt leaves (a part in a committed level, a level never committed) is
    invisible to pegsearch's readers but not to a tool globbing level-*/*.parquet: verify names
    each, and `--resume` removes them."""
    out = make_run(tmp_path / "run", board="triangle-6")
    stray = out / "level-005" / "part-00009-deadbeef.parquet"
    stray.write_bytes(part_file(out, 6).read_bytes())
    ghost = out / "level-099"
    ghost.mkdir()
    (ghost / "part-00000-deadbeef.parquet").write_bytes(part_file(out, 7).read_bytes())
    (out / "level-098").mkdir()  # an empty folder holds nothing a reader counts
    lines = problems(out)
    assert [line.split(": ", 1)[1] for line in lines] == [
        "level 5: part-00009-deadbeef.parquet is not listed in the manifest (left by an interrupted"
        " attempt: readers that take level-*/*.parquet would count it; `--resume` removes it)",
        "level-099/ is not listed in the manifest (a level never committed: left by an interrupted"
        " attempt: readers that take level-*/*.parquet would count it; `--resume` removes it)"]


def test_against_compares_two_runs_level_by_level_and_names_the_first_difference(tmp_path: Path) -> None:
    """Runs of one search by two engines (their parts split differently) are identical digest for
    digest; one position dropped from a level, with the manifest rewritten to match, passes every
    check of the files but not the comparison, which names that level."""
    from pegsearch.store import encode

    local, mrjob = tmp_path / "local", tmp_path / "mrjob"
    assert pegsearch("run", "triangle-6", "--out", str(local)).returncode == 0
    assert pegsearch("run", "triangle-6", "--out", str(mrjob), "--engine", "mrjob",
                     "--runner", "inline").returncode == 0
    same = pegsearch("verify", str(local), "--against", str(mrjob))
    assert same.returncode == 0, same.stdout
    assert f"identical: all 20 levels equal {mrjob}'s, digest for digest" in same.stdout

    part = part_file(mrjob, 7)
    kept = Run.open(mrjob).read_level(7)[1:]
    part.write_bytes(encode(kept))

    def shrink(manifest: dict) -> None:
        record = manifest["levels"][7]
        record["files"][0].update(rows=len(kept), sha256=sha256_of(part), bytes=part.stat().st_size,
                                  digest=as_text(digest(kept)))
        record["states"] -= 1
        record["digest"] = as_text(digest(kept))

    edit_manifest(mrjob, shrink)
    assert pegsearch("verify", str(mrjob)).returncode == 0  # the files agree with the manifest
    states = Run.open(local).levels[7]["states"]
    caught = pegsearch("verify", str(local), "--against", str(mrjob))
    assert caught.returncode == 1
    [line] = caught.stdout.splitlines()
    assert line.startswith(f"{local}: level 7 differs: {states:,} positions against {states - 1:,}")


def test_a_stage_of_a_search_agrees_with_the_whole_search(tmp_path: Path) -> None:
    """A run paused by --until is compared on the levels it holds, either way round; resumed to
    the end it is identical level for level."""
    whole, stage = tmp_path / "whole", tmp_path / "stage"
    assert pegsearch("run", "triangle-6", "--out", str(whole)).returncode == 0
    assert pegsearch("run", "triangle-6", "--out", str(stage), "--until", "7").returncode == 0
    for mine, other in ((stage, whole), (whole, stage)):
        compared = pegsearch("verify", str(mine), "--against", str(other))
        assert compared.returncode == 0, compared.stdout
        assert (f"identical: the 8 levels both runs hold are equal, digest for digest; {stage} is"
                " paused after level 7: resume it to compare the rest") in compared.stdout
    assert pegsearch("run", "triangle-6", "--out", str(stage), "--resume").returncode == 0
    same = pegsearch("verify", str(stage), "--against", str(whole))
    assert same.returncode == 0 and "identical: all 20 levels equal" in same.stdout


def test_a_part_whose_content_is_not_its_digest_is_caught(tmp_path: Path) -> None:
    out = make_run(tmp_path / "run", board="triangle-6")

    def forge(manifest: dict) -> None:
        manifest["levels"][4]["files"][0]["digest"] = "0" * 16

    edit_manifest(out, forge)
    lines = problems(out)
    assert any("level 4 part-" in line and "the manifest says 0000000000000000" in line for line in lines)
    assert any("level 4: the level's digest" in line for line in lines)
