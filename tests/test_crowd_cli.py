"""``simverify crowd aggregate``: real files in, labels out; bad input refused in one line, exit 2, nothing
written."""
import csv
import json

import pytest

from .test_cli import ROOT, assert_refused, cli

DATA = ROOT / "simverify" / "datasets" / "data" / "crowd"


def test_aggregate_prints_the_json_summary_and_writes_labels_with_posteriors(tmp_path):
    out = tmp_path / "labels.csv"
    res = cli("crowd", "aggregate", "--answers", str(DATA / "rte.txt"), "--truth", str(DATA / "rte_truth.txt"),
              "--method", "mv", "--out", str(out), "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert {k: summary[k] for k in ("method", "n_items", "n_workers", "n_classes", "n_answers", "n_gold")} == \
        {"method": "mv", "n_items": 800, "n_workers": 164, "n_classes": 2, "n_answers": 8000, "n_gold": 800}
    assert summary["error_rate"] == pytest.approx(0.1031, abs=5e-5) and summary["elapsed_s"] >= 0
    lines = out.read_text().splitlines()
    assert lines[0] == "item,label,p_1,p_2" and len(lines) == 801


def test_out_quotes_ids_that_contain_the_separator(tmp_path):
    answers, out = tmp_path / "a.csv", tmp_path / "o.csv"
    answers.write_text('task,worker,label\n"q,1",ann,yes\n"q,1",bob,yes\nq2,ann,no\nq2,bob,no\n')
    res = cli("crowd", "aggregate", "--answers", str(answers), "--method", "mv", "--out", str(out))
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(out.read_text().splitlines()))
    assert rows[1][:2] == ["q,1", "yes"] and rows[2][:2] == ["q2", "no"]


def test_snow_format_is_sniffed_and_csv_frames_with_string_ids_work(tmp_path):
    res = cli("crowd", "aggregate", "--answers", str(DATA / "temp.standardized.tsv"), "--method", "mv-em", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["n_gold"] == 462
    answers, truth = tmp_path / "a.csv", tmp_path / "t.csv"
    answers.write_text("task,worker,label\nq1,ann,yes\nq1,bob,no\nq1,cy,yes\nq2,ann,no\nq2,bob,no\n")
    truth.write_text("task,true_label\nq1,yes\nq2,no\n")
    res = cli("crowd", "aggregate", "--answers", str(answers), "--truth", str(truth), "--method", "mv", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["error_rate"] == 0.0


@pytest.mark.parametrize("files, extra, needle", [
    ({"a.txt": "1\t1\t2\n1\t2\n"}, [], "a.txt:2: 2 fields, expected 3"),
    ({"a.txt": "1\t1\tx\n"}, [], "a.txt:1: label 'x' is not an integer"),
    ({"a.txt": ""}, [], "a.txt: no answers (the file is empty)"),
    ({"a.txt": "1\t1\t1\n1\t1\t2\n"}, [], "a.txt:2: worker 1 answered item 1 again (first on line 1)"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n", "t.txt": "1\t1\n9\t2\n"}, ["--truth", "{dir}/t.txt"],
     "t.txt:2: gold label for item 9, which has no answers"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n", "t.txt": "1\t3\n"}, ["--truth", "{dir}/t.txt"],
     "t.txt:1: gold label 3 of item 1 is not among the answered classes"),
    ({"a.txt": "task,worker\nq,a\n"}, ["--format", "csv"], "a.txt:1: header ['task', 'worker'], expected"),
    ({"a.txt": "task,worker,label\nq,a,1\nq,b\n"}, [], "a.txt:3: 2 fields, expected 3"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n"}, ["--method", "nope"], "unknown method 'nope'"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n3\t1\t3\n"}, ["--method", "kos"],
     "method kos is for binary labels; the answers have 3"),
    ({"a.txt": "1\t1\t1\n", "file": "x"}, ["--out", "{dir}/file/o.tsv"], "is not writable"),
    ({"a.txt": "1\t1\t1\n"}, ["--out", "{dir}"], "is a directory"),
    ({"a.txt": "1\t1\t1\n"}, ["--seed", "-1"], "--seed must be >= 0"),
    ({"a.txt": "1\t1\t2\n2\t2\t2\n"}, [], "every answer is 2; nothing to aggregate"),
])
def test_bad_input_is_refused_in_one_line_with_exit_2_and_nothing_written(tmp_path, files, extra, needle):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    args = {"--answers": str(tmp_path / "a.txt"), "--method": "mv", "--out": str(tmp_path / "o.tsv")}
    for flag, value in zip(extra[::2], extra[1::2]):
        args[flag] = value.replace("{dir}", str(tmp_path))
    res = cli("crowd", "aggregate", *[x for kv in args.items() for x in kv])
    assert_refused(res, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


def test_an_unknown_format_is_refused_by_the_argument_parser(tmp_path):
    res = cli("crowd", "aggregate", "--answers", str(DATA / "rte.txt"), "--method", "mv", "--format", "xml")
    assert res.returncode == 2 and "invalid choice: 'xml'" in res.stderr


def test_a_truth_file_with_the_snow_format_is_refused():
    res = cli("crowd", "aggregate", "--answers", str(DATA / "temp.standardized.tsv"), "--truth",
              str(DATA / "rte_truth.txt"), "--method", "mv")
    assert_refused(res, "format snow carries its gold labels")
