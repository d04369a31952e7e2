"""The MovieLens-100k reader on files in the published u.data layout that the test writes."""
import numpy as np
import pytest

from simverify.datasets import movielens as ml


def write_u_data(path, rows):
    path.write_text("".join("\t".join(str(v) for v in row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def u_data(tmp_path):
    rng = np.random.default_rng(0)
    rows = [(int(rng.integers(1, 6)), int(rng.integers(1, 9)), int(rng.integers(1, 6)), 874965758 + i)
            for i in range(40)]
    return write_u_data(tmp_path / "u.data", rows), rows


def test_read_ratings_returns_zero_based_ids_and_the_ratings_in_file_order(u_data):
    path, rows = u_data
    r = ml.read_ratings(path)
    np.testing.assert_array_equal(r.user, [row[0] - 1 for row in rows])
    np.testing.assert_array_equal(r.item, [row[1] - 1 for row in rows])
    np.testing.assert_array_equal(r.rating, [float(row[2]) for row in rows])
    assert (r.n_users, r.n_items) == (max(row[0] for row in rows), max(row[1] for row in rows))


def test_one_hot_features_have_one_user_and_one_item_column_per_row(u_data):
    r = ml.read_ratings(u_data[0])
    X = ml.one_hot_features(r).toarray()
    assert X.shape == (40, r.n_users + r.n_items)
    np.testing.assert_array_equal(X.sum(axis=1), 2.0)
    np.testing.assert_array_equal(X[np.arange(40), r.user], 1.0)
    np.testing.assert_array_equal(X[np.arange(40), r.n_users + r.item], 1.0)


def test_train_test_split_partitions_the_ratings_and_keeps_the_id_ranges(u_data):
    r = ml.read_ratings(u_data[0])
    train, test = ml.train_test_split(r, 0.2, 3)
    assert (len(train), len(test)) == (32, 8)
    assert (test.n_users, test.n_items) == (r.n_users, r.n_items)
    pairs = sorted(zip(*[np.concatenate([a, b]) for a, b in
                         [(train.user, test.user), (train.item, test.item), (train.rating, test.rating)]]))
    assert pairs == sorted(zip(r.user, r.item, r.rating))


@pytest.mark.parametrize("line, message", [
    ("1\t2\t3\n", "u.data:2: expected 4 tab-separated fields"),
    ("1\tx\t3\t5\n", "u.data:2: item id 'x' is not an integer"),
    ("0\t2\t3\t5\n", "u.data:2: user id 0 must be a positive id"),
    ("1\t2\tnan\t5\n", "u.data:2: rating 'nan' is not finite"),
])
def test_malformed_lines_are_refused_with_file_and_line(tmp_path, line, message):
    path = tmp_path / "u.data"
    path.write_text("1\t1\t4\t874965758\n" + line, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        ml.read_ratings(path)
