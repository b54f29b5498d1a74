"""Time the solver's hints over HTTP: positions of random games asked of a real `pegsearch serve`.

    python bench/solver_hint_benchmark.py [BOARD] [--samples 200] [--jumps 5 35] [--seed 1]
                                          [--start HOLE] [--seconds S] [--clients N]

Starts `pegsearch serve` on an empty runs root (no search: the board's hints come from the
depth-first solver) and asks GET /api/boards/BOARD/hint for SAMPLES positions, each reached by a
number of random legal jumps drawn from JUMPS (a game that runs out of jumps sooner is drawn again)
from the board's start, or from HOLE alone empty (a start the Play page offers where the drawn one
can never be won: diamond-41's), written as the holes with pegs. One keep-alive connection, one
request at a time, as the Play page asks, with the service's own time bound (or `seconds=S`). Prints the
median, 90th and 95th percentile and maximum seconds, and the share decided: the position and
every jump won or lost, none undecided (the finishing holes are not counted: they get a share of
the time of their own). With --clients N, N clients ask at once, the positions dealt out among
them, while one more lists the searches (GET /api/searches, what the dashboard polls) every
LISTING_EVERY seconds: its median and maximum seconds are printed too (issue 64: the listing
stays quick whatever the hints do).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pegsearch.board.files import load_board  # noqa: E402
from pegsearch.board.geometry import legal_jumps  # noqa: E402
from pegsearch.board.pictures import holes_with_pegs  # noqa: E402
from pegsearch.errors import UsageError  # noqa: E402
from tests.helpers.serving import Server  # noqa: E402

LISTING_EVERY = 0.25  # seconds between one client's listings, while --clients ask hints


def random_games(board: str, samples: int, jumps: tuple[int, int], seed: int,
                 start: int | None) -> list[str]:
    """SAMPLES positions as their holes with pegs, each game JUMPS long (drawn uniformly) from the
    board's start, or from `start` alone empty."""
    loaded, chosen = load_board(board), random.Random(seed)
    first = loaded.start_position(None if start is None else (start,))
    games: list[str] = []
    while len(games) < samples:
        wanted, position, played = chosen.randint(*jumps), first, 0
        while played < wanted:
            moves = legal_jumps(loaded, position)
            if not moves:
                break
            _, position = chosen.choice(moves)
            played += 1
        if played == wanted:
            games.append(",".join(map(str, holes_with_pegs(position))))
    return games


def hint(server: Server, board: str, game: str, bound: str) -> tuple[float, bool]:
    """One hint's seconds, and whether the position and every jump were decided."""
    began = time.perf_counter()
    document = server.get(f"/api/boards/{board}/hint?position={game}{bound}")
    return time.perf_counter() - began, document["winnable"] is not None and \
        all(jump["winnable"] is not None for jump in document["jumps"])


def listings(server: Server, asked: threading.Event) -> list[float]:
    """The seconds of each listing of the searches, one every LISTING_EVERY s until `asked` is set."""
    seconds: list[float] = []
    while not asked.wait(LISTING_EVERY):
        began = time.perf_counter()
        server.get("/api/searches")
        seconds.append(time.perf_counter() - began)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board", nargs="?", default="triangle-9")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--jumps", type=int, nargs=2, default=(5, 35), metavar=("FEWEST", "MOST"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, help="the one hole empty at the start (default the board's)")
    parser.add_argument("--seconds", type=float, help="the solver's bound a hint (default the service's)")
    parser.add_argument("--clients", type=int, default=1, help="clients asking at once")
    args = parser.parse_args()
    try:
        games = random_games(args.board, args.samples, tuple(args.jumps), args.seed, args.start)
    except UsageError as exc:  # a board or --start hole that is not there: one line, exit 2
        parser.error(str(exc))
    bound = "" if args.seconds is None else f"&seconds={args.seconds}"
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "runs")
        try:
            server.get(f"/api/boards/{args.board}/hint?position={games[0]}{bound}")  # compiles, warms
            asked = threading.Event()
            listing = ThreadPoolExecutor(1).submit(listings, server, asked) if args.clients > 1 else None
            with ThreadPoolExecutor(args.clients) as clients:
                timed = list(clients.map(lambda game: hint(server, args.board, game, bound), games))
            asked.set()
            listed = listing.result() if listing else []
        finally:
            server.stop()
    seconds = [spent for spent, _ in timed]
    decided = sum(whole for _, whole in timed)
    seconds.sort()
    pick = lambda share: seconds[min(len(seconds) - 1, int(share * len(seconds)))]  # noqa: E731
    within = "the service's bound" if args.seconds is None else f"a bound of {args.seconds:g} s"
    clients = f", {args.clients} clients at once" if args.clients > 1 else ""
    start = "the start" if args.start is None else f"hole {args.start} empty"
    print(f"{args.board}: {len(games)} hints ({within}{clients}), positions {args.jumps[0]}-{args.jumps[1]}"
          f" random jumps from {start}: median {statistics.median(seconds):.3f} s, p90 {pick(0.9):.3f} s,"
          f" p95 {pick(0.95):.3f} s, max {seconds[-1]:.3f} s; decided {decided} of {len(games)}"
          f" ({100 * decided / len(games):.1f} %)")
    if listed:
        print(f"the searches listed {len(listed)} times meanwhile: median {statistics.median(listed):.3f} s,"
              f" max {max(listed):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
