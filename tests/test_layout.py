"""The code's layout: the modules of revenue/ and server/ (installed as revenue.server) import one way, with
no cycle, function-level imports included; no module is too long; a package's __init__.py only re-exports.

The import graph is read from the source (ast), not from what Python has imported, so an import inside a
function counts as much as one at the top. An import of a package counts as importing its __init__.py;
`from pkg import name` counts as importing the submodule pkg.name when there is one, else pkg's __init__.py.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
# folder -> the package name it installs as (pyproject.toml's [tool.setuptools.package-dir])
PACKAGES = {"revenue": "revenue", "server": "revenue.server"}
# Modules that may be long: the Numba kernels (one kernel's loop nest is hard to split) and generated code.
LONG_ALLOWED = ("revenue/core/", "revenue/v1/")
MAX_LINES = 650
CHECKED_FOR_LENGTH = ("revenue", "server", "benchmarks", "scripts")
MAX_GETATTR_LINES = 12


def modules(root: Path, packages: dict[str, str]) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package's __init__.py) for every .py file under the folders."""
    found = {}
    for folder, package in packages.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            found[".".join([package, *parts])] = (path, is_package)
    return found


def imported(name: str, is_package: bool, node: ast.Import | ast.ImportFrom, known) -> list[str]:
    """The modules among `known` that an import statement in module `name` loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in known]
    if node.level:
        base = name.split(".") if is_package else name.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        base = ".".join(base + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        target = submodule if submodule in known else base
        if target in known:
            out.append(target)
    return out


def import_graph(root: Path = ROOT, packages: dict[str, str] = PACKAGES) -> nx.DiGraph:
    """Module -> module it imports, each edge with where the (first) import is: `file:line`."""
    known = modules(root, packages)
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for name, (path, is_package) in known.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in imported(name, is_package, node, known):
                    if not graph.has_edge(name, target):
                        graph.add_edge(name, target, where=f"{path.relative_to(root)}:{node.lineno}")
    return graph


def cycles(graph: nx.DiGraph) -> list[str]:
    """One cycle of each group of modules that import each other, written `a -> b (file:line) -> a ...`."""
    out = []
    for group in sorted(nx.strongly_connected_components(graph), key=min):
        if len(group) == 1 and not graph.has_edge(next(iter(group)), next(iter(group))):
            continue
        edges = nx.find_cycle(graph.subgraph(group), source=min(group))
        steps = " -> ".join(f"{b} ({graph.edges[a, b]['where']})" for a, b in edges)
        out.append(f"{edges[0][0]} -> {steps}" + (f"   [{len(group)} modules in this knot: "
                                                   f"{', '.join(sorted(group))}]" if len(group) > len(edges) else ""))
    return out


def test_the_modules_import_one_way():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(found)


def test_no_module_is_too_long():
    long = []
    for folder in CHECKED_FOR_LENGTH:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            lines = len(path.read_text().splitlines())
            if lines > MAX_LINES and not rel.startswith(LONG_ALLOWED):
                long.append(f"{rel}: {lines} lines")
    assert not long, f"modules over {MAX_LINES} lines (split them by job):\n" + "\n".join(long)


def _reexport_only(statement: ast.stmt, first: bool) -> bool:
    """Whether a top-level statement of an __init__.py is a docstring, an import, __all__ (or a literal
    table a lazy __getattr__ reads), or a small lazy __getattr__ / __dir__."""
    if first and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return isinstance(statement.value.value, str)
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return True
        try:
            ast.literal_eval(statement.value)
        except ValueError:
            return False
        return True
    if isinstance(statement, ast.FunctionDef) and statement.name in ("__getattr__", "__dir__"):
        return statement.end_lineno - statement.lineno + 1 <= MAX_GETATTR_LINES
    return False


def test_package_inits_only_reexport():
    found = []
    for name, (path, is_package) in modules(ROOT, PACKAGES).items():
        if not is_package:
            continue
        body = ast.parse(path.read_text()).body
        for i, statement in enumerate(body):
            if not _reexport_only(statement, i == 0):
                found.append(f"{path.relative_to(ROOT)}:{statement.lineno}: {ast.unparse(statement).splitlines()[0]}")
    assert not found, ("__init__.py holds only a docstring, imports, __all__ and a small lazy __getattr__; "
                       "move these to a module of their own:\n" + "\n".join(found))


# ---- the checks themselves, on a made-up package --------------------------------------------------------------

def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_graph_reads_every_kind_of_import(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": '"""Doc."""\nfrom .a import thing\n',
        "pkg/a.py": "import os\nthing = 1\n",
        "pkg/b.py": "from . import a\nfrom pkg import sub\n",
        "pkg/c.py": "def late():\n    from .sub.d import x\n    import pkg.b\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.py": "from .. import thing\nfrom ..sub import d\n",
        "srv/e.py": "from pkg.srv import f\nfrom . import f as g\n",
        "srv/f.py": "",
    })
    graph = import_graph(root, {"pkg": "pkg", "srv": "pkg.srv"})
    assert set(graph.edges) == {("pkg", "pkg.a"), ("pkg.b", "pkg.a"), ("pkg.b", "pkg.sub"), ("pkg.c", "pkg.sub.d"),
                                ("pkg.c", "pkg.b"), ("pkg.sub.d", "pkg"), ("pkg.sub.d", "pkg.sub.d"),
                                ("pkg.srv.e", "pkg.srv.f")}
    assert graph.edges["pkg.c", "pkg.sub.d"]["where"] == "pkg/c.py:2"
    assert cycles(graph) == ["pkg.sub.d -> pkg.sub.d (pkg/sub/d.py:2)"]


def test_a_cycle_through_a_function_level_import_is_named(tmp_path):
    root = _package(tmp_path, {
        "pkg/a.py": "from .b import x\n",
        "pkg/b.py": "x = 1\ndef f():\n    from pkg import c\n",
        "pkg/c.py": "import pkg.a\n",
    })
    assert cycles(import_graph(root, {"pkg": "pkg"})) == [
        "pkg.a -> pkg.b (pkg/a.py:1) -> pkg.c (pkg/b.py:3) -> pkg.a (pkg/c.py:1)"]


def test_an_init_with_code_is_found():
    body = ast.parse('"""Doc."""\nfrom .a import b\n__all__ = ["b"]\n_LAZY = {"c": "d"}\n'
                     'def __getattr__(name):\n    return name\nTABLE = {n: 1 for n in "ab"}\n'
                     'def helper():\n    pass\n').body
    assert [_reexport_only(s, i == 0) for i, s in enumerate(body)] == [True, True, True, True, True, False, False]
