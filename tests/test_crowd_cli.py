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
    ({"a.txt": "1\t1\t1\n"}, ["--seed", "-1"], "--seed must lie in [0, 2147483647]"),
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


@pytest.mark.parametrize("claim, assignment, needle", [
    ("crowd.table5.rte.mv", "answers={dir}/none.txt", "none.txt: no such file"),
    ("crowd.table5.rte.mv", "answers=", "parameter answers must be a shipped set"),
    ("crowd.theorem3.linear_rate", "start=bogus", "parameter start must be one of ['identity', 'near'], got 'bogus'"),
    ("crowd.table9.restart_spread", "start=near", "parameter start must be one of ['symnmf', 'random'], got 'near'"),
    ("crowd.prop1.exact_recovery", "K=1", "parameter K (classes) must be an integer >= 2, got 1"),
    ("crowd.table4.bluebird.mv", "answers=web", "aggregator kos is for binary labels; web has 5 classes"),
    ("crowd.table4.bluebird.mv", 'aggregator=["mv","nope"]', "parameter aggregator: unknown 'nope' (one of mv, "),
    ("crowd.table1.robsymnmf_beats_mv", "data=iris", "parameter data must be one of ['breast_cancer'"),
    ("crowd.table3.dessymnmf_missing_70", 'setting=["miss=70%","miss=90%"]',
     "parameter setting: unknown 'miss=90%' (one of p=0.3, "),
    ("crowd.table1.robsymnmf_beats_mv", 'aggregator=["mv","robsymnmf","kos"]',
     "aggregator kos is for binary labels; digits358 has 3 classes"),
    ("crowd.table1.robsymnmf_beats_mv", 'setting=["miss=70%"]', "setting ['p=0.3'] not in the planned setting"),
    ("crowd.table1.robsymnmf_beats_mv", 'aggregator=["mv"]', "aggregator ['robsymnmf'] not in the planned aggregator"),
    ("crowd.figure3.shifted_relu_faster_noisy", "snr_db=nan", "parameter 'snr_db' is not finite: nan"),
    ("crowd.figure3.shifted_relu_faster_noisy", "snr_db=1000", "parameter snr_db must be"),
])
def test_bad_crowd_claim_parameters_are_refused_in_one_line_with_exit_2_and_no_store(tmp_path, claim, assignment,
                                                                                       needle):
    store = tmp_path / "s"
    res = cli("check", claim, "--set", assignment.replace("{dir}", str(tmp_path)), "--scheduler", "serial",
              "--store", str(store))
    assert_refused(res, needle)
    assert not store.exists()


@pytest.mark.parametrize("claim, files, needle", [
    ("crowd.table4.bluebird.mv", {"a.txt": "1\t1\t2\n1\t2\n"}, "a.txt:2: 2 fields, expected 3"),
    ("crowd.table9.restart_spread", {"a.txt": "1\t1\tx\n"}, "a.txt:1: label 'x' is not an integer"),
    ("crowd.section4.rte_missing", {"a.txt": "1\t1\t1\n1\t1\t2\n"},
     "a.txt:2: worker 1 answered item 1 again (first on line 1)"),
    ("crowd.table5.rte.mv", {"a.txt": "1\t1\t1\n2\t1\t2\n2\t2\t2\n", "a_truth.txt": "1\t1\n9\t2\n"},
     "a_truth.txt:2: gold label for item 9, which has no answers"),
])
def test_a_malformed_answers_file_is_refused_with_its_file_and_line_exit_2_and_nothing_written(tmp_path, claim,
                                                                                                 files, needle):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    store = tmp_path / "s"
    res = cli("check", claim, "--set", f"answers={tmp_path / 'a.txt'}", "--scheduler", "serial", "--store",
              str(store))
    assert_refused(res, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


@pytest.mark.parametrize("files, needle", [
    ({"a.txt": "1\t1\t1\n2\t1\t2\n3\t1\t3\n", "a_truth.txt": "1\t1\n"}, "a.txt has 3 classes"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n1\t2\t2\n"}, "a.txt: no gold labels, so no error rate can be measured"),
])
def test_an_answers_file_unfit_for_the_error_table_is_refused_naming_it_exit_2_and_nothing_written(tmp_path, files,
                                                                                                    needle):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    store = tmp_path / "s"
    res = cli("check", "crowd.table4.bluebird.mv", "--set", f"answers={tmp_path / 'a.txt'}", "--scheduler", "serial",
              "--store", str(store))
    assert_refused(res, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)
