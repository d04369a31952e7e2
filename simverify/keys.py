"""Seeds and cache keys: the JSON-normal form of parameters, their digest, and the hash of the code a measure runs
(its module and every project module it imports, transitively, found by a static import graph) and of the data
files a cell reads, so an edit invalidates exactly the cells it could change."""
from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import math
import os
from dataclasses import dataclass
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any

import numpy as np

from .footprint import check_int32

PROJECT_PACKAGE = "simverify"


def normalize(value: Any, name: str = "value") -> Any:
    """JSON-normal form of a parameter; rejects non-finite numbers."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        check_int32(name, int(value))
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"parameter {name!r} is not finite: {value}")
        return float(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return [normalize(v, name) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize(v, f"{name}.{k}") for k, v in value.items()}
    raise ValueError(f"parameter {name!r} has unsupported type {type(value).__name__}")


def digest(obj: Any, size: int = 20) -> str:
    return hashlib.blake2b(json.dumps(obj, sort_keys=True).encode(), digest_size=size).hexdigest()


def _module_file(name: str) -> Path | None:
    """The source file of module ``name``, found without importing it (None if not a .py file)."""
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name: nothing is imported
        for i in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                return None
            spec = PathFinder.find_spec(".".join(parts[: i + 1]), spec.submodule_search_locations)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None)
    return Path(origin) if origin and origin.endswith(".py") else None


def _imported(name: str, is_package: bool, tree: ast.AST) -> set[str]:
    """Modules named by the import statements of module ``name`` (relative imports resolved);
    ``from m import x`` names ``m.x`` when that is a module, else ``m``."""
    here = name if is_package else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = ".".join(p for p in ((base if node.level else ""), node.module or "") if p)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                out.add(sub if alias.name != "*" and _module_file(sub) is not None else source)
    return out


@dataclass(frozen=True)
class ModuleSource:
    """One module's source hash and the modules it imports."""
    name: str
    hash: str
    imports: frozenset


@functools.cache
def module_source(name: str) -> ModuleSource | None:
    """Read and parse module ``name`` once per process (None when it has no .py source)."""
    path = _module_file(name)
    if path is None:
        return None
    source = path.read_bytes()
    tree = ast.parse(source, filename=str(path))
    return ModuleSource(name, hashlib.blake2b(source, digest_size=16).hexdigest(),
                        frozenset(_imported(name, path.name == "__init__.py", tree)))


def code_closure(module_name: str) -> list[ModuleSource]:
    """``module_name`` and every module it imports, transitively, within the project: modules
    of the ``simverify`` package or of the measure's own top-level package (sorted by name)."""
    packages = {PROJECT_PACKAGE, module_name.partition(".")[0]}
    seen: dict[str, ModuleSource | None] = {}
    todo = [module_name]
    while todo:
        name = todo.pop()
        if name in seen or name.partition(".")[0] not in packages:
            continue
        seen[name] = module_source(name)
        if seen[name] is not None:
            todo.extend(seen[name].imports)
    return sorted((m for m in seen.values() if m is not None), key=lambda m: m.name)


def code_hash(module_name: str) -> str:
    """Hash of the source of the code a measure defined in ``module_name`` runs."""
    return digest([[m.name, m.hash] for m in code_closure(module_name)], 16)


def file_hash(path: str | os.PathLike) -> str:
    """blake2b of a data file's bytes."""
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
