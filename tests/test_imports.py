"""The package's imports point one way: no cycle, not even one broken by a lazy import.

Every `import` and `from ... import` in every module counts, wherever it stands: at the top,
inside a function, under `if TYPE_CHECKING:`. A cycle kept alive by moving one side into a
function still means the two modules cannot be read, tested or replaced apart.

How an import becomes an edge:
- `import a.b.c` is an edge to a.b.c; `from a.b import c` is an edge to a.b.c when c is a
  module, else to a.b (whose __init__ defines or re-exports c). Relative imports are resolved
  against the importing module's package first.
- The parent packages that Python initialises on the way (a, a.b) are not edges. Python runs a
  package's __init__ before any of its submodules, so a submodule never triggers its parent's
  __init__ mid-import; what that __init__ imports is counted as its own edges.
- `import chatapp` or `from chatapp import X` is an edge to the package __init__ like any other.
  That __init__ only prepares the offline environment and hands out ChatEngine lazily (PEP 562);
  the lazy import counts, so a stage that imported `chatapp` would close a cycle through the
  engine. No chatapp module needs that import for its side effect: Python has run
  chatapp/__init__, and so prepared the environment, before any chatapp module's first line.
  Scripts and tests outside the package still `import chatapp` first.
- `importlib.import_module("chatapp.x")` with a literal name is an edge too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = "chatapp"
PACKAGE_DIR = Path(__file__).resolve().parent.parent / PACKAGE


def _module_files() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _module_files()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _resolve_relative(module: str, level: int, name: str | None) -> str:
    """The absolute name of `from <level dots><name> import ...` written in `module`."""
    base = module.split(".") if _is_package(module) else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _imports(module: str, source: str) -> set[str]:
    """The chatapp modules that `source`, the text of `module`, imports anywhere."""
    targets: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            origin = _resolve_relative(module, node.level, node.module) if node.level else node.module
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                targets.add(submodule if submodule in MODULES else origin)
        elif (  # importlib.import_module("chatapp.x") would hide an import from the statements above
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            targets.add(str(node.args[0].value))
    own = {target for target in targets if target == PACKAGE or target.startswith(PACKAGE + ".")}
    unknown = own - MODULES.keys()
    assert not unknown, f"{module} imports modules that do not exist: {sorted(unknown)}"
    return own - {module}


GRAPH = {module: _imports(module, path.read_text(encoding="utf-8")) for module, path in MODULES.items()}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path that starts and ends at the same module, or None."""
    unvisited, on_path, done = 0, 1, 2
    state = dict.fromkeys(graph, unvisited)
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = on_path
        path.append(module)
        for target in sorted(graph[module]):
            if state[target] == on_path:
                return path[path.index(target) :] + [target]
            if state[target] == unvisited and (cycle := visit(target)):
                return cycle
        path.pop()
        state[module] = done
        return None

    for module in sorted(graph):
        if state[module] == unvisited and (cycle := visit(module)):
            return cycle
    return None


def _all_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every tangle: each cycle found loses its closing edge, then the search runs again."""
    graph = {module: set(targets) for module, targets in graph.items()}
    cycles = []
    while cycle := _find_cycle(graph):
        cycles.append(cycle)
        graph[cycle[-2]].discard(cycle[-1])
    return cycles


def _in(module: str, area: str) -> bool:
    name = f"{PACKAGE}.{area}"
    return module == name or module.startswith(name + ".")


def _crossings(importers: list[str], forbidden: list[str]) -> list[str]:
    """Imports from a module in one of the `importers` areas into one of the `forbidden` areas."""
    missing = [area for area in importers + forbidden if not any(_in(module, area) for module in MODULES)]
    assert not missing, f"no such part of the package (renamed?): {missing}"
    return [
        f"{module} -> {target}"
        for module in sorted(GRAPH)
        if any(_in(module, area) for area in importers)
        for target in sorted(GRAPH[module])
        if any(_in(target, area) for area in forbidden)
    ]


def test_the_walker_sees_every_kind_of_import():
    source = """
from typing import TYPE_CHECKING
import importlib

if TYPE_CHECKING:
    from chatapp.preprocess.assembly.prompt import assemble

def later():
    from . import context
    import chatapp.records
    return importlib.import_module("chatapp.turn")

from ..knowledge import registry
from chatapp.preprocess.entities import resolver as renamed
from chatapp.token_count import token_counter
"""
    assert _imports(f"{PACKAGE}.preprocess.retrieval", source) == {
        f"{PACKAGE}.{name}"
        for name in ("preprocess.assembly.prompt", "preprocess.context", "records", "turn", "knowledge.registry",
                     "preprocess.entities.resolver", "token_count")
    }
    # A package's own relative imports start from the package itself.
    assert _imports(f"{PACKAGE}.knowledge.parsers", "from .base import Block") == {f"{PACKAGE}.knowledge.parsers.base"}


def test_the_cycle_finder_reports_the_path():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert _find_cycle(graph) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle():
    cycles = _all_cycles(GRAPH)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_records_import_nothing_from_the_package():
    assert GRAPH[f"{PACKAGE}.records"] == set()


def test_knowledge_and_storage_sit_below_the_pipeline():
    above = ["preprocess", "postprocess", "llm", "cli", "tui", "turn", "engine"]
    assert _crossings(["knowledge", "storage"], above) == []


def test_the_stages_do_not_reach_up_to_the_turn_or_the_interfaces():
    assert _crossings(["preprocess", "postprocess"], ["cli", "tui", "engine", "turn"]) == []


def test_each_preprocess_stage_imports_no_later_stage():
    stages = ["preprocess.correction", "preprocess.entities", "preprocess.context", "preprocess.retrieval",
              "preprocess.assembly"]
    backwards = [crossing for i, stage in enumerate(stages) for crossing in _crossings([stage], stages[i + 1 :])]
    assert backwards == []


def test_only_the_cli_imports_the_cli():
    # `python -m chatapp` (chatapp/__main__.py) is the command line's other door.
    outside = [module for module in MODULES if not _in(module, "cli") and module != f"{PACKAGE}.__main__"]
    offenders = [f"{module} -> {target}" for module in outside for target in GRAPH[module] if _in(target, "cli")]
    assert offenders == []


def test_importing_the_package_loads_no_pipeline_and_no_heavy_library():
    # `import chatapp` runs before every chatapp module and every test; it must stay cheap.
    assert GRAPH[PACKAGE] == {f"{PACKAGE}.environment", f"{PACKAGE}.engine"}
    assert GRAPH[f"{PACKAGE}.environment"] == set()
    probe = (
        "import sys, chatapp\n"
        "heavy = ('litellm', 'chromadb', 'spacy', 'tiktoken', 'onnxruntime', 'textual', 'typer')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy "
        "or (m.startswith('chatapp.') and m != 'chatapp.environment'))\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=PACKAGE_DIR.parent, capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""


def test_the_live_correction_loads_neither_spacy_nor_the_answer_checks(tmp_path):
    # The chat's diff works after the first paint as soon as tiers 1–2 are loaded: spaCy (seconds) and
    # the answer checks wait for a message. Run in a fresh process: the test run has loaded both.
    probe = (
        "import sys, chatapp\n"
        "from chatapp.engine import ChatEngine\n"
        f"engine = ChatEngine.open({str(tmp_path / 'data')!r}, load_sample_kb=False)\n"
        "print(engine.live_correct('can u hlep me').corrected_input)\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'spacy' or m == 'chatapp.postprocess')))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=PACKAGE_DIR.parent, capture_output=True, text=True,
                            check=True)
    corrected, loaded = result.stdout.split("\n")[:2]
    assert "help" in corrected
    assert loaded == ""
