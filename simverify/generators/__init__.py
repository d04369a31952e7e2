"""Ground truth and data streams for each paper (use kernels, know nothing of sweeps)."""
