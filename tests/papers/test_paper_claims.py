"""Every registered claim of every paper and each of its controls, quick tier, one paper's claims run
together (its suite-wide Bonferroni budget) exactly as `simverify check --paper <key>` does (minutes: the
fast per-paper checks are in test_<key>_claims.py, the package layout in test_paper_contract.py)."""
import json
from importlib.metadata import entry_points

import pytest

from simverify import record, registry, runner
from simverify.executors import ProcessExecutor
from simverify.store import Store

try:
    import fcntl
except ImportError:  # not POSIX: no lock (``--dist loadfile`` keeps this module on one worker anyway)
    fcntl = None

PAPERS = sorted(ep.name for ep in entry_points(group="simverify.claims"))  # the project's papers, not test toys
_RECORDS: dict[str, dict] = {}


def _run_directory(tmp_path_factory, config):
    """A directory of this pytest run that every xdist worker shares (a worker's basetemp is a child of the run's);
    without xdist, the run's own basetemp."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


def paper_records(paper: str, tmp_path_factory, config) -> dict:
    """The quick-tier records of one paper's claims and controls, run once per pytest run: the first worker to ask
    runs them under a file lock and leaves them as JSON; another that asks waits for the lock and reads them
    (``--dist loadfile`` keeps this module on one worker; the lock holds under any other distribution: xdist's
    loadgroup, used before, dealt one paper's tests to both workers, and each ran the paper)."""
    if paper not in _RECORDS:
        shared = _run_directory(tmp_path_factory, config)
        run = getattr(config, "workerinput", {}).get("testrunuid", "run")
        done = shared / f"quick-tier-{paper}-{run}.json"
        with open(shared / f"quick-tier-{paper}-{run}.lock", "w") as lock:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            if done.exists():
                recs = [record.loads(r) for r in json.loads(done.read_text())]
            else:
                ex = ProcessExecutor(2)
                try:
                    recs = runner.check(registry.all_claims(paper), "quick",
                                        Store(tmp_path_factory.mktemp(paper)), ex, root_seed=0)
                finally:
                    ex.close()
                partial = done.with_suffix(".partial")
                partial.write_text("[" + ",".join(record.dumps(r, indent=None) for r in recs) + "]")
                partial.replace(done)
        _RECORDS[paper] = {r["id"]: r for r in recs}
    return _RECORDS[paper]


@pytest.mark.parametrize("paper", PAPERS)
def test_every_claim_has_a_control_and_errata_have_positive_controls(paper):
    for c in registry.all_claims(paper, controls=False):
        assert c.controls, c.id
        if c.expected == "REFUTED":
            assert c.finding and any(ctrl.expected == "CONFIRMED" for ctrl in c.controls), c.id
        else:
            assert any(ctrl.expected == "REFUTED" for ctrl in c.controls), c.id


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", [c.id for paper in PAPERS for c in registry.all_claims(paper)])
def test_quick_tier_verdict_as_expected(tmp_path_factory, request, claim_id):
    rec = paper_records(registry.get(claim_id).paper, tmp_path_factory, request.config)[claim_id]
    assert rec["verdict"] == rec["expected"], rec
