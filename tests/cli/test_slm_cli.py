"""Bad input to the slm claims is refused when the run is planned: one line, exit 2, nothing written."""
import pytest


@pytest.mark.parametrize("claim, assignment, needle", [
    ("slm.theorem2.linear_rate", "k=50", "rank k=50 exceeds the dimension d=20"),
    ("slm.theorem2.linear_rate", "n=1", "parameter n (instances; Algorithm 1 line 2 estimates their variance) must be "
     "an integer >= 2 or a non-empty list of them, got [1]"),
    ("slm.theorem2.linear_rate", "dist=bernoulli", "bernoulli's q must lie in (0, 1), got 0.0"),
    ("slm.theorem2.any_start", "param=0.1", "gaussian's parameter must be a finite number in [0, 0], got 0.1"),
    ("slm.theorem2.linear_rate", "dist=cauchy", "parameter dist must be one of"),
    ("slm.theorem3.noisy_floor", "noise=nan", "'noise' is not finite"),
    ("slm.lemma7.tau", "tau=[0.1,2.5]", "tau (two-point MIP constant)"),
    ("slm.figure1.mip", 'solver=["slm","svm"]', "parameter solver: unknown 'svm' (one of slm, fm, fm_standardised)"),
    ("slm.section2_1.gradient_descent_skewed", "step=-0.1", "parameter step must be a finite number in"),
])
@pytest.mark.slow
def test_bad_slm_parameters_are_refused_in_one_line_before_any_work(
        check_refused_at_plan, tmp_path, claim, assignment, needle):
    check_refused_at_plan([claim, "--set", assignment], needle)


def test_a_non_mip_distribution_with_the_mip_algorithm_is_refused_naming_the_diagonal_free_construction(
        check_refused_at_plan, tmp_path):
    check_refused_at_plan(["slm.theorem2.linear_rate", "--set", "dist=bernoulli", "--set", "param=0.1"],
                          "bernoulli(0.1) is not tau-MIP", "diag_free=true")
