"""Tables and JSON documents for people and scripts; nothing here computes search results."""

from __future__ import annotations

from pegsearch.board import Board
from pegsearch.store import Run


def run_heading(run: Run) -> str:
    symmetry = (f"reduced by {run.manifest['symmetries']} symmetries" if run.reduced
                else "raw (no symmetry reduction)")
    if run.identity.symmetry == "start":
        symmetry += " (those fixing the start)"
    return (f"{run.board.name} ({run.board.holes} holes), start: hole"
            f"{'s' if len(run.start) > 1 else ''} {', '.join(map(str, run.start))}, {symmetry}")


def level_table(run: Run) -> str:
    """The per-level table: level, pegs left, states (and paths when counted), and the total."""
    rows = [("level", "pegs", "states", "paths")]
    rows += [(str(r["level"]), str(r["pegs"]), f"{r['states']:,}", f"{int(r.get('paths', 0)):,}")
             for r in run.levels]
    rows.append(("total", "", f"{sum(r['states'] for r in run.levels):,}", ""))
    if not run.count_paths:
        rows = [row[:3] for row in rows]
    return aligned(rows)


def aligned(rows: list[tuple[str, ...]]) -> str:
    """Right-aligned columns, two spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
                     for row in rows)


def run_document(run: Run) -> dict:
    """The run as JSON for scripts (the shape documented in the README)."""
    return {"board": run.board.name, "holes": run.board.holes,
            "symmetries": run.manifest["symmetries"], "start": list(run.start),
            "reduced": run.reduced, "status": run.status,
            "levels": [_level_document(r) for r in run.levels]}


def _level_document(record: dict) -> dict:
    document = {"level": record["level"], "pegs": record["pegs"], "states": record["states"]}
    if "paths" in record:
        document["paths"] = int(record["paths"])
    return document


def boards_table(boards: list[Board]) -> str:
    rows = [("board", "grid", "holes", "jumps", "symmetries", "description")]
    rows += [(b.name, b.grid, str(b.holes), str(len(b.jumps)), str(len(b.symmetries)),
              b.description) for b in boards]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row[:5], widths, strict=True))
                     + "  " + row[5] for row in rows)
