"""The iteration protocol: record() samples metrics of a solver's states at checkpoints."""
import numpy as np
import pytest

from simverify.iteration import record


def geometric(rho: float, stop: int | None = None):
    """Yields (t, rho**t) for t = 0, 1, ... (up to and including ``stop``)."""
    t = 0
    while stop is None or t <= stop:
        yield t, rho ** t
        t += 1


def test_record_samples_a_geometric_sequence_exactly_at_the_checkpoints():
    out = record(geometric(0.5), {"err": lambda s: s, "log_err": np.log}, [0, 3, 10])
    assert set(out) == {"err", "log_err"}
    np.testing.assert_array_equal(out["err"], [1.0, 0.125, 0.5 ** 10])
    np.testing.assert_allclose(out["log_err"], np.log(0.5) * np.array([0, 3, 10]))


def test_record_gives_nan_for_checkpoints_after_an_early_stop():
    out = record(geometric(0.5, stop=4), {"err": lambda s: s}, [0, 2, 4, 8, 16])
    np.testing.assert_array_equal(out["err"][:3], [1.0, 0.25, 0.0625])
    assert np.isnan(out["err"][3:]).all()


def test_record_gives_nan_for_a_checkpoint_the_counter_skips():
    streaming = iter([(0, 1.0), (5, 2.0), (10, 3.0)])
    np.testing.assert_array_equal(record(streaming, {"v": float}, [0, 4, 10])["v"], [1.0, np.nan, 3.0])


@pytest.mark.parametrize("checkpoints", [[0, 5, 3], [1, 1, 2], [-1, 2]])
def test_record_rejects_checkpoints_not_strictly_increasing_and_non_negative(checkpoints):
    with pytest.raises(ValueError, match="strictly increasing"):
        record(geometric(0.5), {"err": lambda s: s}, checkpoints)


def test_record_does_not_advance_the_solver_past_the_last_checkpoint():
    def solver():
        for t in range(4):
            yield t, float(t)
        raise AssertionError("advanced past the last checkpoint")

    gen = solver()
    out = record(gen, {"t": float}, [1, 3])
    np.testing.assert_array_equal(out["t"], [1.0, 3.0])
    assert gen.gi_frame is not None  # suspended at the last checkpoint's yield, not finished


def test_record_with_no_checkpoints_consumes_nothing():
    def solver():
        raise AssertionError("consumed")
        yield 0, 0.0

    assert record(solver(), {"v": float}, [])["v"].shape == (0,)
