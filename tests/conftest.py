import os

import pytest
from hypothesis import settings

import simverify  # noqa: F401  importing it pins the OpenBLAS kernels, as the command line does

# derandomized, so no example database (it would be a .hypothesis/ directory wherever pytest is started)
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=25, database=None)
settings.load_profile("ci")
os.environ.setdefault("SIMVERIFY_PLUGINS", "tests.toy_claims")


@pytest.fixture
def check_with_controls(tmp_path):
    """check_with_controls(claim_id): run the claim and its controls at the quick tier, serially, in a fresh
    store, and assert each reaches its expected verdict."""
    from simverify import registry, runner
    from simverify.executors import SerialExecutor
    from simverify.store import Store

    def check(claim_id: str) -> list[dict]:
        claim = registry.get(claim_id)
        claims = [claim, *(registry.get(f"{claim_id}~{ctrl.name}") for ctrl in claim.controls)]
        records = runner.check(claims, "quick", Store(tmp_path / "store"), SerialExecutor(), root_seed=0)
        assert [(r["id"], r["verdict"]) for r in records] == [(c.id, c.expected) for c in claims], records
        return records
    return check


@pytest.fixture(scope="session")
def cli():
    """cli(*args, cwd=..., timeout=...): ``simverify ARGS`` in a subprocess (toy claims registered), output captured."""
    from .support import run_cli
    return run_cli


@pytest.fixture(scope="session")
def assert_refused():
    """assert_refused(result, *needles): exit 2, one line on stderr naming the problem, no traceback."""
    from .support import assert_refused as check
    return check


@pytest.fixture(scope="session")
def wait_for_cell():
    """wait_for_cell(store, proc, count=1): return once the running ``proc`` stored ``count`` cells under ``store``."""
    from .support import wait_for_cell as wait
    return wait


@pytest.fixture
def check_refused_at_plan(cli, assert_refused, tmp_path):
    """check_refused_at_plan(args, *needles): ``simverify check ARGS --scheduler serial --store S`` is refused in one
    line naming each needle, exit 2, and the store S is never created (nothing was run or written)."""
    def check(args: list[str], *needles: str):
        store = tmp_path / "refused-store"
        res = cli("check", *args, "--scheduler", "serial", "--store", str(store))
        assert_refused(res, *needles)
        assert not store.exists()
        return res
    return check
