"""The pinned OpenBLAS kernels (simverify.hostinfo): set where they run, never over a user's choice."""
import pytest

from simverify import hostinfo


@pytest.fixture
def x86_with(monkeypatch):
    def host(machine: str, flags: set[str]):
        monkeypatch.setattr(hostinfo.platform, "machine", lambda: machine)
        monkeypatch.setattr(hostinfo, "_cpu_flag_set", lambda: flags)
    return host


def test_an_x86_64_host_with_avx2_and_fma_gets_the_haswell_kernels(x86_with):
    x86_with("x86_64", {"avx2", "fma", "avx512f"})
    env = {}
    hostinfo.pin_blas_kernels(env)
    assert env == {"OPENBLAS_CORETYPE": "Haswell"}
    env = {"OPENBLAS_CORETYPE": "  "}  # empty counts as unset
    hostinfo.pin_blas_kernels(env)
    assert env == {"OPENBLAS_CORETYPE": "Haswell"}


def test_a_users_choice_and_hosts_that_cannot_run_the_kernels_are_left_alone(x86_with):
    x86_with("x86_64", {"avx2", "fma"})
    env = {"OPENBLAS_CORETYPE": "SkylakeX"}
    hostinfo.pin_blas_kernels(env)
    assert env == {"OPENBLAS_CORETYPE": "SkylakeX"}
    for machine, flags in (("x86_64", {"avx", "fma"}), ("x86_64", set()), ("aarch64", {"asimd", "avx2", "fma"})):
        x86_with(machine, flags)
        env = {}
        hostinfo.pin_blas_kernels(env)
        assert env == {}


def test_openblas_loaded_with_other_kernels_than_this_process_pinned_is_named(monkeypatch):
    import threadpoolctl
    libs = [{"internal_api": "openblas", "architecture": "SkylakeX"}, {"internal_api": "openblas",
            "architecture": "Haswell"}, {"internal_api": "openmp"}]
    monkeypatch.setattr(threadpoolctl, "threadpool_info", lambda: libs)
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    monkeypatch.setattr(hostinfo, "PINNED_HERE", True)
    assert hostinfo.unpinned_kernels() == ["SkylakeX"]
    monkeypatch.setattr(hostinfo, "PINNED_HERE", False)  # the user's choice (Zen runs as Haswell): no complaint
    assert hostinfo.unpinned_kernels() == []
