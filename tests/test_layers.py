"""The floor plan: each layer of the package imports only from the layers before it.

The data path is board -> kernel -> store -> engines -> answers -> faces (the service, then the
command line, which starts it). The rule is checked over the real imports of every module, those
inside functions included, so a shortcut up the stack fails here rather than in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pegsearch

PACKAGE = Path(pegsearch.__file__).parent
# Lowest first. Foundation modules (errors, signals, numba's cache folder) serve every layer.
LAYERS = (
    ("foundation", ("pegsearch", "pegsearch.errors", "pegsearch.interrupts", "pegsearch.numba_cache",
                    "pegsearch.sizes", "pegsearch.words")),
    ("board", ("pegsearch.board",)),
    ("kernel", ("pegsearch.kernel",)),
    ("store", ("pegsearch.store",)),
    ("engines", ("pegsearch.engines",)),
    ("answers", ("pegsearch.answers",)),
    ("service", ("pegsearch.service",)),
    ("cli", ("pegsearch.cli", "pegsearch.__main__")),
)


def layer_of(module: str) -> int:
    """The rank of the layer a module belongs to (the longest matching prefix decides)."""
    best, rank = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{module} belongs to no layer: add it to LAYERS"
    return rank


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The pegsearch modules a module's code imports, relative imports resolved."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
    return {name for name in found if name == "pegsearch" or name.startswith("pegsearch.")}


def violations(root: Path) -> list[str]:
    """Every import of a higher layer by a lower one under the package folder `root`."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(root, path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target in sorted(imported(tree, module, path.name == "__init__.py")):
            if layer_of(target) > layer_of(module):
                problems.append(f"{module} ({LAYERS[layer_of(module)][0]}) imports {target}"
                                f" ({LAYERS[layer_of(target)][0]})")
    return problems


def test_no_layer_imports_a_higher_one() -> None:
    assert violations(PACKAGE) == []


def test_every_module_belongs_to_a_layer_and_each_layer_has_code() -> None:
    modules = [module_name(PACKAGE, path) for path in PACKAGE.rglob("*.py")]
    ranks = {layer_of(module) for module in modules}
    assert ranks == set(range(len(LAYERS)))


def test_an_import_up_the_stack_is_caught(tmp_path: Path) -> None:
    """The rule on a copy of two real modules, one given an import of a higher layer."""
    root = tmp_path / "pegsearch"
    (root / "kernel").mkdir(parents=True)
    (root / "kernel" / "tables.py").write_text((PACKAGE / "kernel" / "tables.py").read_text())
    assert violations(root) == []
    (root / "kernel" / "tables.py").write_text("from pegsearch.answers.verdict import verdict\n")
    (root / "kernel" / "expand.py").write_text("def later():\n    from ..store import Run\n")
    assert violations(root) == [
        "pegsearch.kernel.expand (kernel) imports pegsearch.store (store)",
        "pegsearch.kernel.tables (kernel) imports pegsearch.answers.verdict (answers)",
    ]
