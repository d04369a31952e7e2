"""Provenance: what ran and where. ``software()`` (package versions, commit, machine) goes into every Dataset's
attrs (``dataset_attrs``); ``provenance()`` adds the date and the numerics of this host (CPU flags, BLAS, Numba
threads: ``hostinfo.numerics``) for a run's verdict records."""
from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from .keys import normalize

if TYPE_CHECKING:
    from .sweep import Plan


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True,
                             timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit this code comes from: HEAD of the source checkout it runs from (an editable
    install), else the commit recorded when the package was built, else "unknown"."""
    if _git("ls-files", "--error-unmatch", "__init__.py") is not None:  # the package is tracked here
        head = _git("rev-parse", "HEAD")
        if head:
            return head
    try:
        from ._build_info import COMMIT
    except ImportError:
        return "unknown"
    return COMMIT


@functools.lru_cache(maxsize=1)
def software() -> dict:
    """What ran, independent of the run: package versions, the commit and the machine."""
    import numba
    import scipy

    from . import __version__
    return {"simverify_version": __version__, "git_commit": git_commit(), "numba_version": numba.__version__,
            "numpy_version": np.__version__, "scipy_version": scipy.__version__, "xarray_version": xr.__version__,
            "python_version": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}, {cpu_model()}, {os.cpu_count()} cores"}


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux), else platform.processor(), else "unknown CPU":
    speed ratios differ between CPUs, so results name the one they were measured on."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def dataset_attrs(p: Plan) -> dict:
    """A sweep Dataset's attrs: the claim, the run (tier, root seed, replicates, overrides) and software()."""
    return {"claim_id": p.claim.id, "paper": p.claim.paper, "item": p.claim.item, "tier": p.tier,
            "root_seed": p.root_seed, "replicates": p.replicates, **software(),
            "code_hash": p.code_hash, "sweep": p.claim.sweep.name,
            "overrides": json.dumps(normalize(p.overrides, "overrides"), sort_keys=True)}


def provenance() -> dict:
    """What ran and when, for a run's verdict records: the date (ISO UTC), software() (commit, versions, machine)
    and hostinfo.numerics() (CPU flags, BLAS libraries with version, core type and threads, Numba's threads)."""
    from .hostinfo import numerics
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), **software(), **numerics()}
