"""Time the solver's hints over HTTP: positions of random games asked of a real `pegsearch serve`.

    python bench/solver_hint_benchmark.py [BOARD] [--samples 200] [--jumps 5 35] [--seed 1]
                                          [--seconds S]

Starts `pegsearch serve` on an empty runs root (no search: the board's hints come from the
depth-first solver) and asks GET /api/boards/BOARD/hint for SAMPLES positions, each reached by a
number of random legal jumps from the board's start drawn from JUMPS (a game that runs out of
jumps sooner is drawn again), written as those jumps. One keep-alive connection, one request at a
time, as the Play page asks, with the service's own time bound (or `seconds=S`). Prints the
median, 90th and 95th percentile and maximum seconds, and the share decided: the position and
every jump won or lost, none undecided (the finishing holes are not counted: they get a share of
the time of their own).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pegsearch.board.files import load_board  # noqa: E402
from pegsearch.board.geometry import legal_jumps  # noqa: E402
from tests.helpers.serving import Server  # noqa: E402


def random_games(board: str, samples: int, jumps: tuple[int, int], seed: int) -> list[str]:
    """SAMPLES positions as the jumps that reach them, each game JUMPS long (drawn uniformly)."""
    loaded, chosen = load_board(board), random.Random(seed)
    games: list[str] = []
    while len(games) < samples:
        wanted, position, played = chosen.randint(*jumps), loaded.start_position(), []
        while len(played) < wanted:
            moves = legal_jumps(loaded, position)
            if not moves:
                break
            jump, position = chosen.choice(moves)
            played.append(str(jump))
        if len(played) == wanted:
            games.append(",".join(played))
    return games


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board", nargs="?", default="triangle-9")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--jumps", type=int, nargs=2, default=(5, 35), metavar=("FEWEST", "MOST"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, help="the solver's bound a hint (default the service's)")
    args = parser.parse_args()
    games = random_games(args.board, args.samples, tuple(args.jumps), args.seed)
    bound = "" if args.seconds is None else f"&seconds={args.seconds}"
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "runs")
        try:
            server.get(f"/api/boards/{args.board}/hint?position={games[0]}{bound}")  # compiles, warms
            seconds, decided = [], 0
            for game in games:
                began = time.perf_counter()
                document = server.get(f"/api/boards/{args.board}/hint?position={game}{bound}")
                seconds.append(time.perf_counter() - began)
                decided += document["winnable"] is not None and \
                    all(jump["winnable"] is not None for jump in document["jumps"])
        finally:
            server.stop()
    seconds.sort()
    pick = lambda share: seconds[min(len(seconds) - 1, int(share * len(seconds)))]  # noqa: E731
    within = "the service's bound" if args.seconds is None else f"a bound of {args.seconds:g} s"
    print(f"{args.board}: {len(games)} hints ({within}), positions {args.jumps[0]}-{args.jumps[1]}"
          f" random jumps from the start: median {statistics.median(seconds):.3f} s, p90 {pick(0.9):.3f} s,"
          f" p95 {pick(0.95):.3f} s, max {seconds[-1]:.3f} s; decided {decided} of {len(games)}"
          f" ({100 * decided / len(games):.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
