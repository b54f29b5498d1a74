"""What the handlers print of a run and of a solution as text: a run's levels, verdict and state,
and a solution's jumps, moves and boards. The tables themselves are in cli.text, which imports no
answers so that `pegsearch boards` starts quickly; these read a run's answers (its verdict, where
its last peg stands, a line of play's moves), so they are imported with the handlers.
"""

from __future__ import annotations

import json

from pegsearch.answers.fewest import move_numbers
from pegsearch.answers.shapes import Counts, Solution
from pegsearch.board.geometry import Jump
from pegsearch.board.pictures import render
from pegsearch.cli.text import finish_table, grouped_jumps, level_table, run_heading
from pegsearch.store import Run
from pegsearch.words import levels_named


def print_run(run: Run, counts: Counts, as_json: bool = False) -> None:
    """A run's counts as JSON (with where the run is), or as text: its level table, verdict and,
    when the answer holds them, where the last peg stands; or how to continue it."""
    if as_json:
        print(json.dumps({**counts.as_document(), "location": run.uri}, indent=1))
        return
    print(run_heading(run))
    print(level_table(counts))
    if run.dropped():
        print(f"kept: the last level's parts only (--keep last); {levels_named(run.dropped())}"
              " dropped, their counts and digests kept")
    if counts.verdict is not None:
        print(counts.verdict)
        if counts.finishes is not None:
            print(finish_table(counts.finishes, counts.finishes_exact_per_hole))
        return
    paused = f" after level {counts.levels[-1].level}" if counts.status == "paused" else ""
    if counts.in_progress is not None:
        print(f"{counts.in_progress.note}: --resume continues it at the next pass")
    print(f"incomplete run ({counts.status}{paused}): continue it with"
          f" `pegsearch run {counts.board} --out {run.uri} --resume [--until LEVEL]`")


def print_solution(heading: str, solution: Solution) -> None:
    """A solution as text: what it is, its jumps and moves, then the board after each."""
    print(heading)
    jumps = solution.jumps
    moves = f"{solution.moves} moves{' (the fewest)' if solution.fewest_moves else ''}"
    if solution.solved:
        print(f"a solution in {len(jumps)} jumps, {moves}, last peg on hole"
              f" {solution.positions[-1].bit_length()}")
        if solution.note:
            print(solution.note)
    elif jumps:
        print(f"{solution.note}, in {len(jumps)} jumps, {moves}")
    else:
        print(solution.note)
    if solution.found is not None and solution.found.pagoda is not None:
        print(render(solution.board, labels=[str(w) for w in solution.found.pagoda.weights]))
    if not jumps:
        return
    print("jumps: " + " ".join(map(str, jumps)))
    print("moves: " + grouped_jumps(jumps, [step.move for step in solution.steps]))
    print()
    for caption, position in zip(captions(jumps), solution.positions, strict=True):
        print(caption)
        print(render(solution.board, position))
        print()


def captions(jumps: list[Jump]) -> list[str]:
    """Each board's caption: the start, then each jump with its number and its move's."""
    numbers = move_numbers(jumps)
    return ["start", *(f"{k}. {jump}  (move {number})" for k, (jump, number)
                       in enumerate(zip(jumps, numbers, strict=True), start=1))]
