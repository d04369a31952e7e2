"""Each paper's algorithms and the baselines it compares against (use kernels)."""
