"""Static checks and canonical forms for proposer-written Python (an allow-list, not a ban-list).

The same constants are printed into the proposer prompt (:func:`rules_text`), so the rules the
model is told are exactly the rules the gate applies.
"""

from __future__ import annotations

import ast
import builtins

from palaestra.core import content_hash

ALLOWED_IMPORTS = frozenset(
    {
        "math",
        "itertools",
        "functools",
        "collections",
        "heapq",
        "bisect",
        "string",
        "re",
        "operator",
        "fractions",
    }
)
ALLOWED_BUILTINS = frozenset(
    {
        "abs", "all", "any", "bool", "chr", "dict", "divmod", "enumerate", "filter", "int", "isinstance",
        "len", "list", "map", "max", "min", "ord", "pow", "range", "reversed", "round", "set", "sorted",
        "str", "sum", "tuple", "zip", "frozenset", "print", "ValueError", "KeyError", "IndexError",
        "Exception", "True", "False", "None",
    }
)  # fmt: skip
MAX_PROGRAM_CHARS = 2000
ENTRY_POINT = "f"


class StaticRejection(ValueError):
    """A program the gate refuses before running it; ``reason`` is the counted category."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def rules_text() -> str:
    """The rules as the proposer prompt states them (built from the gate's own constants)."""
    return (
        f"Rules: define a function `{ENTRY_POINT}` taking one argument; at most {MAX_PROGRAM_CHARS} characters; "
        f"imports only from {{{', '.join(sorted(ALLOWED_IMPORTS))}}}; builtins only from "
        f"{{{', '.join(sorted(ALLOWED_BUILTINS - {'True', 'False', 'None'}))}}}; no names or attributes "
        "starting with '_'; no randomness, time, files or I/O; the output must not depend on hash order; "
        "inputs and outputs are int/str/bool/None/list/tuple/dict literals."
    )


def _defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def check_program(source: str, *, entry_point: str = ENTRY_POINT) -> ast.Module:
    """Parse ``source`` and apply the allow-lists; raises :class:`StaticRejection`."""
    if len(source) > MAX_PROGRAM_CHARS:
        raise StaticRejection("too_long", f"{len(source)} > {MAX_PROGRAM_CHARS} characters")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise StaticRejection("syntax", str(exc)) from None
    defined = _defined_names(tree)
    shadowed = sorted(name for name in defined if hasattr(builtins, name))
    if shadowed:  # rebinding a builtin (repr, print, ...) could fake what the driver reports
        raise StaticRejection("forbidden_name", f"{shadowed[0]} shadows a builtin")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""] if node.level == 0 else ["<relative>"]
        else:
            modules = []
        for module in modules:
            if module.split(".")[0] not in ALLOWED_IMPORTS:
                raise StaticRejection("forbidden_import", module)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise StaticRejection("forbidden_name", node.attr)
        if isinstance(node, ast.Name):
            if node.id.startswith("_"):
                raise StaticRejection("forbidden_name", node.id)
            if node.id not in defined and node.id not in ALLOWED_BUILTINS:
                why = "builtin not allowed" if hasattr(builtins, node.id) else "undefined name"
                raise StaticRejection("forbidden_name", f"{node.id} ({why})")
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.AsyncFunctionDef, ast.Await)):
            raise StaticRejection("forbidden_syntax", type(node).__name__)
    if not any(isinstance(n, ast.FunctionDef) and n.name == entry_point for n in tree.body):
        raise StaticRejection("no_entry_point", f"no top-level def {entry_point}(...)")
    return tree


class _Canon(ast.NodeTransformer):
    """Rename every program-defined identifier to v0, v1, ... in order of first appearance;
    with ``shape=True`` also erase constants (AST-shape clusters for near-duplicates)."""

    def __init__(self, defined: set[str], shape: bool) -> None:
        self.defined, self.shape, self.names = defined, shape, {}

    def rename(self, name: str) -> str:
        if name not in self.defined or name == ENTRY_POINT:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id=self.rename(node.id), ctx=node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.arg(arg=self.rename(node.arg), annotation=None)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.rename(node.name)
        node.returns = None
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:] or [ast.Pass()]  # docstrings do not make a task new
        node.body = body
        self.generic_visit(node)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if self.shape:
            return ast.Constant(value=type(node.value).__name__)
        return node


def canonical_forms(tree: ast.Module) -> tuple[str, str]:
    """``(canonical, shape)``: the normalised AST dump and its constant-free shape."""
    defined = _defined_names(tree)
    exact = ast.dump(_Canon(defined, shape=False).visit(_copy(tree)), annotate_fields=False)
    shape = ast.dump(_Canon(defined, shape=True).visit(_copy(tree)), annotate_fields=False)
    return exact, shape


def _copy(tree: ast.Module) -> ast.Module:
    return ast.parse(ast.unparse(tree))


def canonical_hash(*parts: object) -> str:
    return content_hash([str(p) for p in parts])
