"""Crowd answer files (formats A and B), their refusals, and majority vote with the fractional tie rule."""
import dataclasses

import numpy as np
import pytest

from simverify import metrics
from simverify.datasets import crowd
from simverify.solvers.crowd import majority_vote


@pytest.mark.parametrize("name, items, workers, answers, classes, gold, mv_error", [
    ("bluebird", 108, 39, 4212, 2, 108, 24.07),
    ("rte", 800, 164, 8000, 2, 800, 10.31),
    ("web", 2665, 177, 15567, 5, 2653, 26.93),
    ("temp", 462, 76, 4620, 2, 462, 6.39),
    ("dog", 807, 109, 8070, 4, 807, 17.78),
    ("trec", 19033, 762, 88385, 2, 2275, 34.86),
    ("labelme", 1000, 59, 2547, 8, 1000, 23.40),
])
def test_shipped_sets_have_their_published_sizes_and_majority_vote_error(name, items, workers, answers, classes,
                                                                         gold, mv_error):
    a = crowd.shipped(name)
    assert (a.n_items, a.n_workers, len(a.item), a.n_classes, int((a.gold >= 0).sum())) == \
        (items, workers, answers, classes, gold)
    error = metrics.label_error(majority_vote(a.item, a.label, a.n_items, a.n_classes), a.gold)
    assert round(100 * error, 2) == mv_error


def test_majority_vote_splits_a_tie_and_the_error_counts_it_fractionally():
    item, label = np.array([0, 0, 1, 1, 1]), np.array([0, 1, 1, 1, 0])
    P = majority_vote(item, label, 2, 2)
    assert np.array_equal(P, [[0.5, 0.5], [0.0, 1.0]])
    assert metrics.label_error(P, np.array([0, 1])) == 0.25  # item 0 half right, item 1 right
    with pytest.raises(ValueError, match="no item has a gold label"):
        metrics.label_error(P, np.array([-1, -1]))


@pytest.mark.parametrize("answers, truth, needle", [
    ("1\t1\t2\n1\t2\n", None, "a.txt:2: 2 fields, expected 3"),
    ("1\t1\tx\n", None, "a.txt:1: label 'x' is not an integer"),
    ("0\t1\t1\n", None, "a.txt:1: ids and labels are 1-based"),
    ("1\t1\t1\n2\t1\t2\n1\t1\t2\n", None, "a.txt:3: worker 1 answered item 1 again (first on line 1)"),
    ("", None, "no answers (the file is empty)"),
    ("1\t1\t1\n2\t1\t2\n", "1\t1\n3\t2\n", "t.txt:2: gold label for item 3, which has no answers"),
    ("1\t1\t1\n2\t1\t2\n", "1\t7\n", "t.txt:1: gold label 7 of item 1 is not among the answered classes"),
    ("1\t1\t1\n", "1\t1\n1\t1\n", "t.txt:2: a second gold label for item 1"),
])
def test_malformed_format_a_is_refused_with_file_and_line(tmp_path, answers, truth, needle):
    a = tmp_path / "a.txt"
    a.write_text(answers)
    t = None
    if truth is not None:
        t = tmp_path / "t.txt"
        t.write_text(truth)
    with pytest.raises(ValueError) as err:
        crowd.load_format_a(a, t)
    assert needle in str(err.value)


def test_non_utf8_bytes_are_refused_with_their_line(tmp_path):
    a = tmp_path / "a.txt"
    a.write_bytes(b"1\t1\t1\n2\t\xff\t1\n")
    with pytest.raises(ValueError, match="a.txt:2: not UTF-8 text"):
        crowd.load_format_a(a)


def test_format_b_reads_string_ids_and_refuses_a_wrong_header_or_inconsistent_gold(tmp_path):
    head = "\t".join(crowd.FORMAT_B_HEADER)
    good = tmp_path / "b.tsv"
    good.write_text(f"{head}\nx1\twA\titem_7\t1\t2\nx2\twB\titem_7\t2\t2\nx3\twA\titem_9\t2\t1\n")
    a = crowd.load_format_b(good)
    assert list(a.item_ids) == ["item_7", "item_9"] and list(a.worker_ids) == ["wA", "wB"]
    assert list(a.gold) == [1, 0] and list(a.classes) == [1, 2]
    bad = tmp_path / "c.tsv"
    bad.write_text("id\tworker\titem\tresponse\tgold\nx\tw\ti\t1\t1\n")
    with pytest.raises(ValueError, match="c.tsv:1: header"):
        crowd.load_format_b(bad)
    bad.write_text(f"{head}\nx1\twA\ti\t1\t2\nx2\twB\ti\t2\t1\n")
    with pytest.raises(ValueError, match="c.tsv:3: gold 1 of item i differs from 2"):
        crowd.load_format_b(bad)


ANSWERS_FIELDS = tuple(f.name for f in dataclasses.fields(crowd.Answers))


def _same_answers(x, y) -> bool:
    return all(np.array_equal(getattr(x, f), getattr(y, f)) for f in ANSWERS_FIELDS)


@pytest.mark.parametrize("name", [n for n in crowd.SHIPPED if n != "temp"])
def test_reading_a_canonical_file_at_once_gives_what_the_line_reader_gives(name, monkeypatch):
    from pathlib import Path
    folder = Path(crowd.__file__).parent / "data" / "crowd"
    files = (folder / f"{name}.txt", folder / f"{name}_truth.txt")
    assert crowd._canonical_rows(files[0], 3) is not None and crowd._canonical_rows(files[1], 2) is not None
    at_once = crowd.load_format_a(*files)
    monkeypatch.setattr(crowd, "FAST_READ_BYTES", -1)  # every file through the line reader
    assert crowd._canonical_rows(files[0], 3) is None
    assert _same_answers(at_once, crowd.load_format_a(*files))


@pytest.mark.parametrize("text", ["1\t1\t1\n\n2\t1\t2\n", "\ufeff1\t1\t1\n2\t1\t2\n", "01\t1\t1\n2\t1\t2\n",
                                  "1 \t1\t1\n2\t1\t2\n", "1\t1\t1\r\r\n2\t1\t2\n", "1234567890123456789\t1\t1\n"])
def test_a_file_with_any_line_not_canonical_goes_to_the_line_reader(tmp_path, text):
    path = tmp_path / "a.txt"
    path.write_bytes(text.encode("utf-8"))
    assert crowd._canonical_rows(path, 3) is None  # a blank line, a BOM, a leading 0, a space, a stray CR, 19 digits


@pytest.mark.parametrize("text", ["1\t1\t1\r\n2\t1\t2", "1\t1\t1\n2\t1\t2\n", "1\t1\t1\r\n2\t1\t2\r\n"])
def test_crlf_and_a_missing_last_newline_are_canonical_and_read_as_the_line_reader_reads_them(tmp_path, monkeypatch,
                                                                                              text):
    path = tmp_path / "a.txt"
    path.write_bytes(text.encode("utf-8"))
    assert crowd._canonical_rows(path, 3) == [(1, 1, 1, 1), (2, 2, 1, 2)]
    at_once = crowd.load_format_a(path)
    monkeypatch.setattr(crowd, "FAST_READ_BYTES", -1)
    assert _same_answers(at_once, crowd.load_format_a(path))


def test_an_id_past_pythons_digit_limit_is_refused_with_its_line(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("1\t1\t1\n" + "9" * 5000 + "\t1\t2\n")
    with pytest.raises(ValueError, match=r"a.txt:2: item has 5000 digits, too many for an id or label"):
        crowd.load_format_a(path)


def test_a_duplicate_answer_in_a_canonical_file_is_refused_with_both_lines(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("1\t1\t1\n2\t1\t2\n1\t1\t2\n")
    assert crowd._canonical_rows(path, 3) is not None
    with pytest.raises(ValueError, match=r"a.txt:3: worker 1 answered item 1 again \(first on line 1\)"):
        crowd.load_format_a(path)


def test_shipped_hands_out_copies_of_a_set_parsed_once(monkeypatch):
    crowd.shipped("bluebird")  # parsed, if no test did before
    calls = []
    monkeypatch.setattr(crowd, "load_format_a", lambda *a, **k: calls.append(a))  # a second parse would show here
    first = crowd.shipped("bluebird")
    fields = ANSWERS_FIELDS
    kept = {f: getattr(first, f).copy() for f in fields}
    for f in fields:
        getattr(first, f)[:] = kept[f][::-1] if f != "classes" else kept[f][0]
    again = crowd.shipped("bluebird")
    assert calls == []
    for f in fields:
        assert np.array_equal(getattr(again, f), kept[f]) and getattr(again, f) is not getattr(first, f), f
