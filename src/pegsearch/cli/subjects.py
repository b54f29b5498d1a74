"""What a command's answer is asked of: a run folder, a survey's folder, or a board (a shipped name
or a board file, answered by the solver), and the one line for a name that is none of them."""

from __future__ import annotations

from pegsearch.answers.survey import start_runs
from pegsearch.board.files import board_choices, load_board, shipped_name
from pegsearch.board.geometry import Board
from pegsearch.errors import UsageError
from pegsearch.store import MANIFEST, Location, Run


def open_run(where: str) -> Run:
    """`Run.open`, a survey's folder named as one (the service's words for it): its answers are
    the survey's, a position's hint is one of its start runs'."""
    try:
        return Run.open(where)
    except UsageError:
        location = Location.parse(where)
        try:
            starts = start_runs(location) if location.exists() else []
        except OSError:  # the store does not answer: Run.open's line says so
            starts = []
        if starts:
            raise UsageError(f"{where} is a survey: its answers are `pegsearch survey`'s; for a"
                             f" run's answers give one of its start runs ({starts[0].uri}, ...)"
                             ) from None
        raise


def asked_of(text: str) -> Run | Board:
    """What a question is asked of: a run, or a board (a shipped name or a .toml file that no run
    folder shadows), answered by the solver. A bare name that is neither (`solve nosuchboard`) is
    most likely a board mistyped: the boards are listed, as `survey` lists them."""
    location = Location.parse(text)
    if (shipped_name(text) is not None or text.endswith(".toml")) and not location.is_file(MANIFEST):
        return load_board(text)
    if "/" not in text and not location.exists():
        raise UsageError(f"'{text}' is neither a board nor a run: {board_choices(text)}; or give the"
                         " --out of a `pegsearch run` (`pegsearch runs` lists the runs under runs/)")
    return open_run(text)
