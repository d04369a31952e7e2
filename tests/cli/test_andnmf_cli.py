"""Bad input to the andnmf claims is refused when the run is planned: one line, exit 2, nothing written."""
import numpy as np
import pytest


@pytest.mark.parametrize("claim, assignment, needle", [
    ("andnmf.figure1.and_linear", "D=300", "rank D=300 exceeds min(W, N) = 200"),
    ("andnmf.figure2.constant_stalls", "alpha=-0.1", "parameter alpha must be a finite number in [0, 1e+06]"),
    ("andnmf.theorem5.floor_linear", "gamma=[0.01,nan]", "--set gamma expects a number"),
    ("andnmf.theorem5.floor_linear", "gamma=nan", "parameter 'gamma' is not finite: nan"),
    ("andnmf.theorem1.linear_rate", "s=2.5", "binary weights need an integer sparsity s <= D"),
    ("andnmf.figure1.and_linear", "kind=gamma", "parameter kind must be one of"),
    ("andnmf.figure1.mu_sublinear", "matrix=neg", "solver mu needs non-negative data, but A* has negative entries"),
    ("andnmf.figure1.and_faster_than_hals", 'solver=["and","hals","anls","nmf"]',
     "parameter solver: unknown 'nmf' (one of and, hals, mu, anls, sklearn_cd, sklearn_mu, lda)"),
    ("andnmf.lemma10.update_bound", "warm_stages=-1", "parameter warm_stages must be an integer >= 0"),
    ("andnmf.theorem1.sigma", "stage=[0,2,1]", "parameter stage must be increasing checkpoints from 0"),
    ("andnmf.theorem1.sigma", "stage=[3,4,5]", "parameter stage must be increasing checkpoints from 0"),
    ("andnmf.lemma8.decoding_bound", "s=50", "decay weights are non-zero with probability s/D, so s <= D"),
    ("andnmf.lemma6.decoding_bound", "alpha=0.5", "Lemmas 6 and 8 assume a threshold alpha <= 1/4"),
    ("andnmf.figure5.faces", "n_components=500", "n_components=500 exceeds min(faces, pixels) = 400"),
    ("andnmf.lemma6.decoding_bound", "ell=1.0", "parameter ell must be a finite number in [0, 0.999]"),
    ("andnmf.lemma2.threshold_gain", "chunk=0", "chunk must be a positive integer"),
])
def test_bad_andnmf_parameters_are_refused_in_one_line_before_any_work(
        check_refused_at_plan, tmp_path, claim, assignment, needle):
    check_refused_at_plan([claim, "--set", assignment], needle)


@pytest.mark.parametrize("content, needle", [
    ("1 0\n0 1\nx 2\n", "A.txt:3: non-numeric entry"),
    ("1 0\n0 1 1\n", "A.txt:2: 3 columns, expected 2"),
    ("1 1\n2 2\n3 3\n", "does not have full column rank 2"),
    ("1 0\n0 inf\n1 1\n", "A.txt:2: non-finite entry"),
])
def test_a_malformed_topic_file_is_refused_with_its_line(check_refused_at_plan, tmp_path, content, needle):
    path = tmp_path / "A.txt"
    path.write_text(content)
    check_refused_at_plan(["andnmf.figure1.and_linear", "--set", f"topic_file={path}", "--set", "W=3", "--set",
                           "D=2"], needle)


def test_a_topic_file_of_another_shape_is_refused_naming_w_and_d(check_refused_at_plan, tmp_path):
    path = tmp_path / "A.txt"
    np.savetxt(path, np.abs(np.random.default_rng(0).standard_normal((30, 4))))
    check_refused_at_plan(["andnmf.figure1.and_linear", "--set", f"topic_file={path}"],
                          "A* is 30 x 4; set W=30 and D=4")


def test_a_topic_file_with_negative_entries_is_refused_for_multiplicative_updates(check_refused_at_plan, tmp_path):
    path = tmp_path / "A.txt"
    np.savetxt(path, np.random.default_rng(1).standard_normal((200, 20)))
    check_refused_at_plan(["andnmf.figure1.mu_sublinear", "--set", f"topic_file={path}"],
                          "solver mu needs non-negative data", "the topic file")
