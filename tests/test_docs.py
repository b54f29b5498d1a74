"""The docs stay readable and true to the code: each guide within its bounds, every module of
src/pegsearch named in docs/internals.md, every relative link leading to a page and a heading that
exist. (tests/store/test_readers.py runs docs/formats.md's code; this checks the pages' shape.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
LAB = DOCS / "lab"
PACKAGE = ROOT / "src" / "pegsearch"

# A guide (docs/*.md) is read whole: at most this many lines; the README's quick start and first
# result must stay on its first screen. The lab record (docs/lab/) may be long.
GUIDE_LINES = 200
README_LINES = 250
LINE_CHARS = 1000
CELL_CHARS = 300

# Pages over their bounds that this branch does not own; each is to be mended where it is owned.
# strict: once it is within its bounds the test fails until its line here is removed.
NOT_YET: dict[str, str] = {}


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def outside_fences(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line not inside a ``` fence."""
    kept, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            kept.append((number, line))
    return kept


def cells(row: str) -> list[str]:
    """A table row's cells; `\\|` is a bar inside a cell."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def bounds(page: Path) -> list[str]:
    """What is wrong with a page's shape, one line each."""
    text = page.read_text(encoding="utf-8")
    lines = text.splitlines()
    wrong = []
    if page == ROOT / "README.md" and len(lines) > README_LINES:
        wrong.append(f"{len(lines)} lines, over {README_LINES}")
    if page.parent == DOCS and len(lines) > GUIDE_LINES:
        wrong.append(f"{len(lines)} lines, over {GUIDE_LINES} (measurements go to docs/lab/)")
    wrong += [f"line {n}: {len(line)} characters, over {LINE_CHARS}"
              for n, line in enumerate(lines, 1) if len(line) > LINE_CHARS]
    for n, line in outside_fences(text):
        if line.lstrip().startswith("|"):
            wrong += [f"line {n}: a table cell of {len(cell)} characters, over {CELL_CHARS}"
                      for cell in cells(line) if len(cell) > CELL_CHARS]
    return wrong


@pytest.mark.parametrize("page", [pytest.param(page, id=name(page), marks=(
    [pytest.mark.xfail(strict=True, reason=NOT_YET[name(page)])] if name(page) in NOT_YET else []))
    for page in pages()])
def test_a_page_stays_within_its_bounds(page: Path) -> None:
    assert bounds(page) == []


def test_the_bounds_find_a_long_line_and_a_long_cell(tmp_path: Path) -> None:
    """The check is not vacuous: a cell over its bound (a bar inside code not a new cell) and a
    line over its bound are found, a fenced table is not a table; the lab record is there."""
    page = tmp_path / "page.md"
    page.write_text(f"| a | `x \\| y` {'c' * 300} |\n{'w ' * 501}\n```\n| {'d' * 400} |\n```\n")
    assert bounds(page) == ["line 2: 1002 characters, over 1000",
                            "line 1: a table cell of 309 characters, over 300"]
    assert (LAB / "README.md").exists() and list(LAB.glob("20*.md"))
    assert NOT_YET.keys() <= {name(page) for page in pages()}


def test_the_readme_keeps_its_quick_start_on_the_first_screen() -> None:
    """The two set-up commands (.ci/run runs the second) and a first result, within 50 lines."""
    first = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:50]
    assert "pip install -e . && pegsearch run skippy-xl" in first
    assert 'pip install -e ".[all]" && pytest --slow' in first
    assert any(line.startswith("one peg is not reachable") for line in first)
    assert 'pip install -e ".[all]" && pytest --slow' in (ROOT / ".ci" / "run").read_text()


def modules() -> list[str]:
    return sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))


def test_every_module_is_named_in_internals_once() -> None:
    """docs/internals.md has a line `- `path`: what it is for` for each .py file of src/pegsearch
    (path relative to it), and names no module that is gone."""
    named = re.findall(r"^- `([\w/]+\.py)`: \S", (DOCS / "internals.md").read_text(), re.M)
    assert sorted(set(named)) == sorted(named), "a module named twice"
    assert sorted(set(modules()) - set(named)) == [], "modules docs/internals.md does not name"
    assert sorted(set(named) - set(modules())) == [], "named in docs/internals.md, not in src"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them (a repeated heading gets -1, -2)."""
    found, seen = set(), {}
    for _, line in outside_fences(page.read_text(encoding="utf-8")):
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).replace("`", "").strip().lower())
            slug = slug.replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def linking_pages() -> list[Path]:
    return [*pages(), *sorted((ROOT / "cluster").rglob("*.md")), ROOT / "bench" / "README.md"]


@pytest.mark.parametrize("page", linking_pages(), ids=name)
def test_every_relative_link_leads_to_a_page_and_heading(page: Path) -> None:
    text = "\n".join(line for _, line in outside_fences(page.read_text(encoding="utf-8")))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no such heading")
    assert broken == []
