"""What the handlers print of a run and of a solution as text: a run's levels, verdict and state,
and a solution's jumps, moves and boards. The tables themselves are in cli.text, which imports no
answers so that `pegsearch boards` starts quickly; these read a run's answers (its verdict, where
its last peg stands, a line of play's moves), so they are imported with the handlers.
"""

from __future__ import annotations

import json

from pegsearch.answers.fewest import move_numbers
from pegsearch.answers.finishes import exact_per_hole, finishes
from pegsearch.answers.shapes import Solution
from pegsearch.answers.verdict import verdict
from pegsearch.board.geometry import Jump
from pegsearch.board.pictures import render
from pegsearch.cli.text import finish_table, grouped_jumps, level_table, run_heading
from pegsearch.store import Run
from pegsearch.words import levels_named


def print_run(run: Run, document: dict | None, winnable: list[int] | None = None,
               finish_classes: bool = False) -> None:
    """The run's document as JSON when given, else the level table and verdict as text;
    `finish_classes` adds where the last peg stands."""
    if document is not None:
        print(json.dumps(document, indent=1))
        return
    print(run_heading(run))
    print(level_table(run, winnable))
    if run.dropped():
        print(f"kept: the last level's parts only (--keep last); {levels_named(run.dropped())}"
              " dropped, their counts and digests kept")
    if run.status == "complete":
        print(verdict(run).sentence())
        if finish_classes:
            print(finish_table(finishes(run), exact_per_hole(run)))
    else:
        paused = f" after level {len(run.levels) - 1}" if run.status == "paused" else ""
        if run.in_progress is not None:
            print(f"{run.passes_note()}: --resume continues it at the next pass")
        print(f"incomplete run ({run.status}{paused}): continue it with"
              f" `pegsearch run {run.board.name} --out {run.uri} --resume [--until LEVEL]`")


def print_solution(heading: str, solution: Solution) -> None:
    """A solution as text: what it is, its jumps and moves, then the board after each."""
    print(heading)
    jumps = solution.jumps
    moves = f"{solution.moves} moves{' (the fewest)' if solution.fewest_moves else ''}"
    if solution.solved:
        print(f"a solution in {len(jumps)} jumps, {moves}, last peg on hole"
              f" {solution.positions[-1].bit_length()}")
    elif jumps:
        print(f"{solution.note}, in {len(jumps)} jumps, {moves}")
    else:
        print(solution.note)
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
