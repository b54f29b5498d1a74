"""Board geometry: numbering, jumps and symmetry groups derived from the drawings."""

from __future__ import annotations

import numpy as np
import pytest

from pegsearch.board.files import load_board, parse_board, shipped_boards
from pegsearch.errors import UsageError
from pegsearch.kernel.expand import signatures
from pegsearch.kernel.tables import BoardTables

# Jump counts worked out by hand: a triangle of side n has 3(n-1)(n-2) jumps; a hexagon counts the
# triples on its rows of lengths s..2s-1..s in three directions, both ways; English 76, French 92;
# Wiegleb's cross 2 x (3 + 3 x 7 + 3) triples a direction, the diamond 2 x (1 + 3 + 5 + 7 + 5 + 3 + 1).
EXPECTED = {
    "triangle-5": (15, 36, 6), "triangle-6": (21, 60, 6), "skippy-xl": (28, 90, 6),
    "triangle-8": (36, 126, 6), "english-33": (33, 76, 8), "european-37": (37, 92, 8),
    "hexagon-19": (19, 54, 12), "hexagon-37": (37, 138, 12), "triangle-9": (45, 168, 6),
    "wiegleb-45": (45, 108, 8), "diamond-41": (41, 100, 8), "triangle-10": (55, 216, 6),
}


def test_every_expected_board_is_shipped() -> None:
    assert set(EXPECTED) <= set(shipped_boards())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_holes_jumps_and_symmetry_order(name: str) -> None:
    board = load_board(name)
    assert (board.holes, len(board.jumps), len(board.symmetries)) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_symmetries_map_jumps_onto_jumps(name: str) -> None:
    board = load_board(name)
    jumps = {(j.start, j.over, j.to) for j in board.jumps}
    assert board.symmetries[0] == tuple(range(board.holes))
    for perm in board.symmetries:
        image = {(perm[a - 1] + 1, perm[b - 1] + 1, perm[c - 1] + 1) for a, b, c in jumps}
        assert image == jumps


def test_numbering_row_by_row() -> None:
    skippy = load_board("skippy-xl")
    assert skippy.empty == (1,)
    assert skippy.cells[0][1] == 0 and skippy.cells[-1][1] == 6
    assert load_board("english-33").empty == (17,)
    assert load_board("european-37").empty == (19,)
    first = load_board("triangle-5").jumps[0]
    assert (first.start, first.over, first.to) in {(1, 2, 4), (1, 3, 6)}


def test_a_rectangle_has_four_symmetries_not_eight() -> None:
    board = parse_board('name = "r"\ngrid = "square"\nlayout = """\no o o\no . o\n"""\n', "r.toml")
    assert len(board.symmetries) == 4


@pytest.mark.parametrize("name", ["triangle-6", "english-33", "hexagon-19"])
def test_signature_is_the_smallest_image(name: str) -> None:
    board = load_board(name)
    tables = BoardTables.for_board(board)
    rng = np.random.default_rng(7)
    positions = rng.integers(0, 1 << board.holes, size=500, dtype=np.uint64)
    slow = []
    for p in positions.tolist():
        images = []
        for perm in board.symmetries:
            images.append(sum(1 << perm[i] for i in range(board.holes) if p >> i & 1))
        slow.append(min(images))
    assert tables.signatures(positions).tolist() == slow
    assert signatures(tables, positions).tolist() == slow


BAD_FILES = [
    ('name = "x"\ngrid = "triangle"\nlayout = """\n  .\n o o\no x o\n"""\n', "line 6, column 3"),
    ('name = "x"\ngrid = "square"\nlayout = """\no  o\n"""\n', "off the square grid"),
    ('name = "x"\ngrid = "hex"\nlayout = "o o"\n', "line 2: unknown grid 'hex'"),
    ('name = "x"\ngrid = "square"\nlayout = "o o"\nholes = 3\n', "line 4: unknown key 'holes'"),
    ('name = "x"\ngrid = "square"\nlayout = """\no o\n', "not valid TOML"),
    ('name = "x"\ngrid = "square"\n', "missing or empty 'layout'"),
    ('name = "x"\ngrid = "square"\nlayout = "   "\n', "missing or empty 'layout'"),
    # A control character in a name or description (issue 79: a NUL broke every listing).
    ('name = "x\\u0000y"\ngrid = "square"\nlayout = "o o"\n',
     "line 1: 'name' holds the control character U\\+0000; write it in printable characters"),
    ('grid = "square"\nname = "x\\ty"\nlayout = "o o"\n', "line 2: 'name' holds .* U\\+0009"),
    ('name = "x"\ndescription = "a\\u001b[31mb"\ngrid = "square"\nlayout = "o o"\n',
     "line 2: 'description' holds the control character U\\+001B"),
]


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_malformed_board_files_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        parse_board(text, "bad.toml")
    assert str(caught.value).startswith("bad.toml")
    assert "\n" not in str(caught.value)


def test_a_description_may_hold_line_breaks_and_tabs() -> None:
    text = 'name = "x"\ndescription = """one\n\tand two"""\ngrid = "square"\nlayout = "o o"\n'
    assert parse_board(text, "ok.toml").description == "one\n\tand two"


def test_unknown_board_and_hole() -> None:
    with pytest.raises(UsageError, match="unknown board 'nope'"):
        load_board("nope")
    with pytest.raises(UsageError, match="hole 29 does not exist on skippy-xl"):
        load_board("skippy-xl").start_position((29,))
