"""``simverify crowd aggregate`` and the crowd claims' files: real files in, labels out; bad input refused in one
line, exit 2, nothing written; an --out that names an input is refused, --out is written through a temporary file
renamed into place (a failed write leaves nothing), input files are streamed and refused at their first bad line
(binary junk included), and a UTF-8 byte-order mark is accepted in every format."""
import csv
import dataclasses
import errno
import json
import os
import resource
import shutil
import signal
import stat
import tracemalloc
from pathlib import Path

import pytest

from simverify.cli import crowd as crowd_cli
from simverify.cli import main as cli_main
from simverify.datasets import crowd
from tests.support import SHIPPED_CROWD

DATA = SHIPPED_CROWD


def test_aggregate_prints_the_json_summary_and_writes_labels_with_posteriors(cli, tmp_path):
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


def test_out_quotes_ids_that_contain_the_separator(cli, tmp_path):
    answers, out = tmp_path / "a.csv", tmp_path / "o.csv"
    answers.write_text('task,worker,label\n"q,1",ann,yes\n"q,1",bob,yes\nq2,ann,no\nq2,bob,no\n')
    res = cli("crowd", "aggregate", "--answers", str(answers), "--method", "mv", "--out", str(out))
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(out.read_text().splitlines()))
    assert rows[1][:2] == ["q,1", "yes"] and rows[2][:2] == ["q2", "no"]


@pytest.mark.slow
def test_snow_format_is_sniffed_and_csv_frames_with_string_ids_work(cli, tmp_path):
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
    ({"a.txt": "1\t1\t1\n2\t1\t2\n", "t.txt": "1\t3\n"}, ["--truth", "{dir}/t.txt"],
     "(a class nobody answered: declare the number of classes, --classes)"),
    ({"a.txt": "1\t1\t1\n2\t1\t4\n"}, ["--classes", "3"], "a.txt:2: label 4 is outside the 3 declared classes 1..3"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n", "t.txt": "1\t4\n"}, ["--truth", "{dir}/t.txt", "--classes", "3"],
     "t.txt:1: gold label 4 of item 1 is not among the declared classes [1, 2, 3]"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n"}, ["--classes", "1"],
     "n_classes (--classes) must be an integer in [2, 10000], got 1"),
    ({"a.txt": "task,worker,label\nq,a,yes\nr,a,no\n"}, ["--classes", "3"],
     "declared classes need integer labels, got 'yes'"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n"}, ["--classes", "9223372036854775808"],
     "n_classes (--classes) must be an integer in [2, 10000], got 9223372036854775808"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n", "t.txt": "1\t0\n"}, ["--truth", "{dir}/t.txt", "--classes", "3"],
     "t.txt:1: items and gold labels are 1-based"),
    ({"a.txt": "1\t1\t1\n2\t1\t2\n3\t2\t1\n"}, ["--method", "auto"], "--method auto holds out 5 folds of items"),
    ({"a.txt": "1\t1\t1\n1\t2\t2\n"}, ["--method", "robsymnmf", "--classes", "10000"],
     "robsymnmf: 1 item, 2 annotators and 10000 classes need about 14.9 GiB of co-occurrences (M^2 K^2 blocks)"),
    ({"a.txt": "1\t1\t1\n1\t2\t2\n"}, ["--method", "mv-em", "--classes", "10000"],
     "mv-em: 1 item, 2 annotators and 10000 classes need about 5.96 GiB of posteriors and confusions"),
])
def test_bad_input_is_refused_in_one_line_with_exit_2_and_nothing_written(
        cli, assert_refused, tmp_path, files, extra, needle):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    args = {"--answers": str(tmp_path / "a.txt"), "--method": "mv", "--out": str(tmp_path / "o.tsv")}
    for flag, value in zip(extra[::2], extra[1::2]):
        args[flag] = value.replace("{dir}", str(tmp_path))
    res = cli("crowd", "aggregate", *[x for kv in args.items() for x in kv])
    assert_refused(res, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


def test_an_unknown_format_is_refused_by_the_argument_parser(cli, tmp_path):
    res = cli("crowd", "aggregate", "--answers", str(DATA / "rte.txt"), "--method", "mv", "--format", "xml")
    assert res.returncode == 2 and "invalid choice: 'xml'" in res.stderr


def test_a_truth_file_with_the_snow_format_is_refused(cli, assert_refused):
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
@pytest.mark.slow
def test_bad_crowd_claim_parameters_are_refused_in_one_line_with_exit_2_and_no_store(
        check_refused_at_plan, tmp_path, claim, assignment, needle):
    check_refused_at_plan([claim, "--set", assignment.replace("{dir}", str(tmp_path))], needle)


@pytest.mark.parametrize("claim, files, needle", [
    ("crowd.table4.bluebird.mv", {"a.txt": "1\t1\t2\n1\t2\n"}, "a.txt:2: 2 fields, expected 3"),
    ("crowd.table9.restart_spread", {"a.txt": "1\t1\tx\n"}, "a.txt:1: label 'x' is not an integer"),
    ("crowd.section4.rte_missing", {"a.txt": "1\t1\t1\n1\t1\t2\n"},
     "a.txt:2: worker 1 answered item 1 again (first on line 1)"),
    ("crowd.table5.rte.mv", {"a.txt": "1\t1\t1\n2\t1\t2\n2\t2\t2\n", "a_truth.txt": "1\t1\n9\t2\n"},
     "a_truth.txt:2: gold label for item 9, which has no answers"),
])
def test_a_malformed_answers_file_is_refused_with_its_file_and_line_exit_2_and_nothing_written(
        cli, assert_refused, tmp_path, claim, files, needle):
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
def test_an_answers_file_unfit_for_the_error_table_is_refused_naming_it_exit_2_and_nothing_written(
        cli, assert_refused, tmp_path, files, needle):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    store = tmp_path / "s"
    res = cli("check", "crowd.table4.bluebird.mv", "--set", f"answers={tmp_path / 'a.txt'}", "--scheduler", "serial",
              "--store", str(store))
    assert_refused(res, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


# --- --out and the input files, in this process
ANSWERS = "1\t1\t1\n1\t2\t1\n2\t1\t2\n2\t2\t2\n3\t1\t1\n3\t2\t2\n3\t3\t2\n"
TRUTH = "1\t1\n2\t2\n"
BOM = b"\xef\xbb\xbf"


def run(capsys, *args: str) -> tuple[int, str, str]:
    """``simverify crowd aggregate ARGS`` in this process: (exit status, stdout, stderr)."""
    code = cli_main(["crowd", "aggregate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line(result: tuple[int, str, str], status: int, message: str) -> None:
    """Exit ``status``, nothing on stdout, exactly the line ``simverify: error: MESSAGE`` on stderr."""
    assert result == (status, "", f"simverify: error: {message}\n")


def listing(folder: Path) -> dict[str, object]:
    """Every entry under ``folder``: a file's bytes, a symlink's target, a special file's kind."""
    found: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = ("link", os.readlink(path))
        elif path.is_file():
            found[name] = path.read_bytes()
        else:
            found[name] = stat.S_IFMT(path.lstat().st_mode)
    return found


def inputs(tmp_path: Path) -> tuple[Path, Path]:
    """A small format-A answers file and its truth file in ``tmp_path``."""
    answers, truth = tmp_path / "a.txt", tmp_path / "t.txt"
    answers.write_text(ANSWERS)
    truth.write_text(TRUTH)
    return answers, truth


# --- 1. an --out that names an input ------------------------------------------------------------------------------

@pytest.mark.parametrize("out, flag, name", [
    ("a.txt", "--answers", "a.txt"),
    ("t.txt", "--truth", "t.txt"),
    ("link.txt", "--answers", "a.txt"),              # a symlink to the answers
    ("hard.txt", "--answers", "a.txt"),              # a hard link to the answers
    ("alias/t.txt", "--truth", "t.txt"),             # through a symlinked directory
    ("sub/../a.txt", "--answers", "a.txt"),
], ids=["answers", "truth", "symlink", "hard-link", "symlinked-dir", "dot-dot"])
def test_an_out_naming_an_input_by_any_path_is_refused_at_plan_exit_2_and_the_inputs_stay_intact(tmp_path, capsys,
                                                                                                  out, flag, name):
    answers, truth = inputs(tmp_path)
    (tmp_path / "link.txt").symlink_to("a.txt")
    os.link(answers, tmp_path / "hard.txt")
    (tmp_path / "alias").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "sub").mkdir()
    before = listing(tmp_path)
    result = run(capsys, "--answers", str(answers), "--truth", str(truth), "--method", "mv",
                 "--out", str(tmp_path / out))
    assert_one_line(result, 2, f"--out {tmp_path / out} is the {flag} file {tmp_path / name}; "
                               "refusing to overwrite an input")
    assert listing(tmp_path) == before and answers.read_text() == ANSWERS and truth.read_text() == TRUTH


# --- 2. --out written through a temporary file ----------------------------------------------------------------------

def _fifo(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "pipe")
    return tmp_path / "pipe"


@pytest.mark.parametrize("special, kind", [
    (lambda tmp_path: Path("/dev/full"), "a character device"),
    (lambda tmp_path: Path("/dev/null"), "a character device"),
    (_fifo, "a named pipe"),
], ids=["dev-full", "dev-null", "fifo"])
def test_a_special_file_as_out_is_refused_at_plan_exit_2_and_left_as_it_is(tmp_path, capsys, special, kind):
    out = special(tmp_path)
    if not out.exists():
        pytest.skip(f"no {out} here")
    answers, _ = inputs(tmp_path)
    mode, before = out.stat().st_mode, listing(tmp_path)
    result = run(capsys, "--answers", str(answers), "--method", "mv", "--out", str(out))
    assert_one_line(result, 2, f"cannot write --out {out}: {kind}, not a regular file")
    assert out.stat().st_mode == mode and listing(tmp_path) == before


def _limit_file_size() -> None:
    """In the child: files may not grow past 4 KiB, and passing that is an error (EFBIG), not a signal."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs SIGXFSZ")
def test_a_write_failing_after_the_work_exits_1_in_one_line_keeps_the_previous_out_and_leaves_no_temporary_file(cli,
        tmp_path):
    answers, out = tmp_path / "rte.txt", tmp_path / "labels.tsv"
    shutil.copyfile(DATA / "rte.txt", answers)  # 800 items: the labels take more than 4 KiB
    out.write_text("previous labels\n")
    before = listing(tmp_path)
    res = cli("crowd", "aggregate", "--answers", str(answers), "--method", "mv", "--out", str(out),
              preexec_fn=_limit_file_size)
    assert (res.returncode, res.stdout) == (1, "")
    assert res.stderr == f"simverify: error: cannot write --out {out}: File too large\n"
    assert listing(tmp_path) == before


def test_a_full_disk_while_writing_exits_1_in_one_line_and_removes_the_temporary_file_and_new_directories(
        tmp_path, capsys, monkeypatch):
    answers, _ = inputs(tmp_path)
    rows = crowd_cli._rows

    def rows_then_full(*args):
        yield from rows(*args)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(crowd_cli, "_rows", rows_then_full)
    out = tmp_path / "new" / "deeper" / "labels.csv"
    before = listing(tmp_path)
    result = run(capsys, "--answers", str(answers), "--method", "mv", "--out", str(out))
    assert_one_line(result, 1, f"cannot write --out {out}: {os.strerror(errno.ENOSPC)}")
    assert listing(tmp_path) == before


def test_out_replaces_a_previous_file_whole_keeping_its_mode_and_writes_through_a_symlink(tmp_path, capsys):
    answers, _ = inputs(tmp_path)
    real, link = tmp_path / "labels.tsv", tmp_path / "link.tsv"
    real.write_text("previous labels\n")
    real.chmod(0o640)
    link.symlink_to("labels.tsv")
    code, out, err = run(capsys, "--answers", str(answers), "--method", "mv", "--out", str(link))
    assert (code, err) == (0, "") and out.endswith(f"; wrote {link}\n")
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert real.read_text().splitlines() == ["item\tlabel\tp_1\tp_2", "1\t1\t1\t0", "2\t2\t0\t1", "3\t2\t0\t1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "labels.tsv", "link.tsv", "t.txt"]


# --- 3. input streamed, refused at its first bad line ---------------------------------------------------------------

def test_a_4_gib_binary_file_is_refused_at_its_first_bad_line_without_being_read_into_memory(tmp_path, capsys):
    answers = tmp_path / "a.txt"
    answers.write_bytes(b"1\t1\t1\n")
    os.truncate(answers, 4 << 30)  # sparse: NUL bytes after line 1
    tracemalloc.start()
    try:
        result = run(capsys, "--answers", str(answers), "--method", "mv", "--out", str(tmp_path / "o.tsv"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_one_line(result, 2, f"{answers}:2: binary data (a NUL byte), not text")
    assert peak < 16 << 20, f"{peak} bytes allocated"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"] and answers.stat().st_size == 4 << 30


@pytest.mark.parametrize("answers, truth, message", [
    (b"1\t1\t1\n2\t1\t2\n3\t\x001\t1\n", None, "a.txt:3: binary data (a NUL byte), not text"),
    (b"task,worker,label\nq1,\xc3(,yes\n", None, "a.txt:2: not UTF-8 text (byte 0xc3 at byte 4 of the line)"),
    ("task,worker,label\nq1,ann,yes\n".encode("utf-16"), None, "a.txt:1: UTF-16 text; save the file as UTF-8"),
    (b"1" * (crowd.MAX_LINE + 1), None, f"a.txt:1: a line longer than {crowd.MAX_LINE} bytes"),
    (ANSWERS.encode(), b"1\t1\n\xff\xfe\n", "t.txt:2: not UTF-8 text (byte 0xff at byte 1 of the line)"),
    (b"task,worker,label\nq1,a\rb,yes\n", None, "a.txt:2: not a CSV line (new-line character seen in unquoted field)"),
    (b"task,worker,label\nq1,ann," + b"y" * 200_000 + b"\n", None,
     "a.txt:2: not a CSV line (field larger than field limit (131072))"),
], ids=["nul-byte", "not-utf8", "utf16", "line-too-long", "truth-not-utf8", "csv-bare-cr", "csv-field-too-large"])
def test_binary_junk_is_refused_at_its_line_in_one_line_exit_2_and_nothing_written(tmp_path, capsys, answers, truth,
                                                                                     message):
    (tmp_path / "a.txt").write_bytes(answers)
    extra = []
    if truth is not None:
        (tmp_path / "t.txt").write_bytes(truth)
        extra = ["--truth", str(tmp_path / "t.txt")]
    before = listing(tmp_path)
    result = run(capsys, "--answers", str(tmp_path / "a.txt"), *extra, "--method", "mv",
                 "--out", str(tmp_path / "o.tsv"))
    assert_one_line(result, 2, f"{tmp_path}/{message}")
    assert listing(tmp_path) == before


@pytest.mark.parametrize("make, message", [
    (lambda tmp_path: _fifo(tmp_path), "not a regular file"),
    (lambda tmp_path: tmp_path, "a directory, not a file"),
    (lambda tmp_path: tmp_path / "none.txt", "no such file"),
], ids=["fifo", "directory", "missing"])
def test_an_answers_path_that_is_no_regular_file_is_refused_saying_what_it_is(tmp_path, capsys, make, message):
    answers = make(tmp_path)
    before = listing(tmp_path)
    result = run(capsys, "--answers", str(answers), "--method", "mv", "--out", str(tmp_path / "o.tsv"))
    assert_one_line(result, 2, f"{answers}: {message}")
    assert listing(tmp_path) == before


# --- 4. a UTF-8 byte-order mark -------------------------------------------------------------------------------------

HEAD_B = "\t".join(crowd.FORMAT_B_HEADER)
FILES = {
    "tsv": {"a.txt": ANSWERS, "t.txt": TRUTH},
    "csv": {"a.csv": "task,worker,label\r\nq1,ann,yes\r\nq1,bob,no\r\nq1,cy,yes\r\nq2,ann,no\r\nq2,bob,no\r\n",
            "t.csv": "task,true_label\r\nq1,yes\r\nq2,no\r\n"},
    "snow": {"a.tsv": f"{HEAD_B}\nx1\twA\titem_7\t1\t2\nx2\twB\titem_7\t2\t2\nx3\twA\titem_9\t2\t1\n"},
}


def _aggregate(capsys, folder: Path, names: dict) -> tuple[dict, bytes]:
    """The --json summary (without its timing and --out) and the --out bytes of one run over the files in folder."""
    answers, *truth = sorted(names, key=lambda n: n.startswith("t."))
    extra = ["--truth", str(folder / truth[0])] if truth else []
    code, out, err = run(capsys, "--answers", str(folder / answers), *extra, "--method", "mv-em", "--json",
                         "--out", str(folder / "labels.csv"))
    assert (code, err) == (0, "")
    summary = json.loads(out)
    return {k: v for k, v in summary.items() if k not in ("elapsed_s", "out")}, (folder / "labels.csv").read_bytes()


@pytest.mark.parametrize("fmt", list(FILES))
def test_a_utf8_byte_order_mark_is_accepted_in_answers_and_truth_files_of_every_format_with_the_same_result(
        tmp_path, capsys, fmt):
    plain, marked = tmp_path / "plain", tmp_path / "bom"
    for folder, prefix in ((plain, b""), (marked, BOM)):
        folder.mkdir()
        for name, text in FILES[fmt].items():
            (folder / name).write_bytes(prefix + text.encode())
    answers = next(iter(FILES[fmt]))
    assert crowd.sniff_format(marked / answers) == fmt
    loaded = [crowd.load(folder / answers, *[folder / n for n in FILES[fmt] if n != answers]) for folder in
              (plain, marked)]
    for field in (f.name for f in dataclasses.fields(crowd.Answers)):
        assert getattr(loaded[0], field).tolist() == getattr(loaded[1], field).tolist()
    assert _aggregate(capsys, marked, FILES[fmt]) == _aggregate(capsys, plain, FILES[fmt])
    assert all((marked / n).read_bytes() == BOM + t.encode() for n, t in FILES[fmt].items())


@pytest.mark.parametrize("method", ["robsymnmf", "symnmf", "kos", "robsymnmf-em"])
def test_one_annotator_is_refused_at_plan_for_co_occurrence_methods_and_majority_vote_still_runs(tmp_path, capsys,
                                                                                                  method):
    answers = tmp_path / "one.tsv"
    answers.write_text("1\t1\t1\n2\t1\t2\n3\t1\t1\n")
    out = tmp_path / "labels.tsv"
    code, stdout, err = run(capsys, "--answers", str(answers), "--method", method, "--out", str(out))
    assert (code, stdout) == (2, "") and len(err.splitlines()) == 1, err
    assert f"{method}: no two of the 1 annotator(s) answered a common item" in err and not out.exists()
    assert run(capsys, "--answers", str(answers), "--method", "mv")[0] == 0


def test_declared_classes_keep_a_class_nobody_answered_for_the_truth_and_the_posteriors(tmp_path, capsys):
    answers, truth, out = tmp_path / "a.tsv", tmp_path / "t.tsv", tmp_path / "o.tsv"
    answers.write_text("1\t1\t1\n1\t2\t1\n2\t1\t2\n2\t2\t2\n")
    truth.write_text("1\t1\n2\t3\n")  # class 3: in the truth, never answered
    code, stdout, err = run(capsys, "--answers", str(answers), "--truth", str(truth), "--method", "mv-em",
                            "--classes", "3", "--json", "--out", str(out))
    summary = json.loads(stdout)
    assert code == 0 and (summary["n_classes"], summary["classes_declared"], summary["n_gold"]) == (3, True, 2)
    assert summary["error_rate"] == 0.5  # item 2's gold class was never answered: it cannot be right
    assert out.read_text().splitlines()[0] == "item\tlabel\tp_1\tp_2\tp_3"



def test_declared_classes_start_at_0_when_a_label_is_0_in_the_python_api_too():
    import pandas as pd
    frame = pd.DataFrame({"task": [1, 1, 2], "worker": [1, 2, 1], "label": [0, 0, 1]})
    assert list(crowd.from_frame(frame, n_classes=4).classes) == [0, 1, 2, 3]
    assert list(crowd.from_frame(frame).classes) == [0, 1]


SPLIT = "".join(f"{i}\t{w}\t{1 + (i + w) % 2}\n" for i in range(1, 5) for w in (1, 2, 3)) + "".join(
    f"{i}\t{w}\t{1 + i % 2}\n" for i in range(5, 9) for w in (4, 5, 6))  # annotators {1, 2, 3} and {4, 5, 6}


@pytest.mark.parametrize("method, warned", [("robsymnmf", True), ("dessymnmf-em", True),
                                            ("robsymnmf-per-annotator-em", True), ("robsymnmf-components", False),
                                            ("mv-em", False)])
def test_annotator_groups_that_never_share_an_item_are_named_once_for_one_model_methods(tmp_path, capsys, method,
                                                                                         warned):
    answers = tmp_path / "split.tsv"
    answers.write_text(SPLIT)
    code, stdout, err = run(capsys, "--answers", str(answers), "--method", method)
    assert code == 0 and stdout.startswith(f"{method}: 8 items, 6 workers")
    lines = [line for line in err.splitlines() if line.strip()]
    if warned:
        assert len(lines) == 1 and "the 6 annotators fall into 2 groups of 3 or more that never share an item" in \
            lines[0]
        assert "robsymnmf-components" in lines[0] and "Warning" not in err
    else:
        assert lines == []


def test_annotator_groups_are_numbered_by_their_first_annotator_and_join_through_shared_items():
    import numpy as np

    from simverify.solvers.crowd.codes import annotator_groups
    item, worker = np.array([0, 0, 1, 1, 2, 3, 3]), np.array([3, 1, 0, 2, 4, 2, 5])
    assert annotator_groups(item, worker, 4, 6).tolist() == [0, 1, 0, 1, 2, 0]


def test_auto_says_which_method_it_chose_and_why_in_text_and_json(tmp_path, capsys):
    code, stdout, err = run(capsys, "--answers", str(DATA / "bluebird.txt"), "--method", "auto")
    lines = stdout.splitlines()
    assert code == 0 and lines[0].startswith("auto: 108 items") and lines[1].startswith("auto: chose mv-em")
    assert "held-out log-likelihood per answer" in lines[1]
    code, stdout, err = run(capsys, "--answers", str(DATA / "bluebird.txt"), "--method", "auto", "--json")
    summary = json.loads(stdout)
    assert summary["chosen"] == "mv-em" and summary["method"] == "auto"
    assert set(summary["heldout_loglik"]) == {"mv-em", "robsymnmf-em-smoothed", "spectral-ds"}


def test_a_killed_run_s_temporary_out_file_is_swept_by_the_next_write_and_a_live_run_s_is_left(tmp_path, capsys):
    import subprocess
    import sys
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()  # the id of a process that has exited
    host = crowd_cli._host_tag()
    stale, live = (tmp_path / f".simverify-out-{host}-{gone}-abc.tmp",
                   tmp_path / f".simverify-out-{host}-{os.getppid()}-def.tmp")
    stale.write_text("item\tlabel\n1\t")
    live.write_text("")
    code, _, _ = run(capsys, "--answers", str(DATA / "bluebird.txt"), "--method", "mv", "--out",
                     str(tmp_path / "labels.tsv"))
    assert code == 0 and not stale.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, "labels.tsv"])


def test_an_annotator_who_shares_no_item_beside_one_group_is_not_warned_about(tmp_path, capsys):
    answers = tmp_path / "lone.tsv"  # annotators {1, 2, 3} share items; annotator 4 answers item 9 alone (as TREC's)
    answers.write_text("".join(f"{i}\t{w}\t{1 + (i + w) % 2}\n" for i in range(1, 9) for w in (1, 2, 3)) + "9\t4\t1\n")
    code, stdout, err = run(capsys, "--answers", str(answers), "--method", "robsymnmf")
    assert code == 0 and err == ""


def test_an_interrupted_aggregate_says_so_in_one_line_without_speaking_of_cells(tmp_path, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(crowd_cli, "aggregate", interrupted)
    out = tmp_path / "labels.tsv"
    code, stdout, err = run(capsys, "--answers", str(DATA / "bluebird.txt"), "--method", "mv", "--out", str(out))
    assert (code, stdout, err) == (130, "", "simverify: interrupted\n") and not out.exists()


def test_minimax_entropy_says_in_one_line_when_its_penalties_flatten_the_posteriors(capsys):
    code, stdout, err = run(capsys, "--answers", str(DATA / "labelme.txt"), "--truth",
                            str(DATA / "labelme_truth.txt"), "--method", "minimax-entropy")
    assert code == 0 and stdout.startswith("minimax-entropy: 1000 items, 59 workers, 8 classes")
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("simverify: warning: ") and \
        "every one of the 1000 answered items' posteriors lie within 0.001 of uniform" in lines[0] and \
        "Warning" not in err
    code, stdout, err = run(capsys, "--answers", str(DATA / "bluebird.txt"), "--method", "minimax-entropy")
    assert code == 0 and err == ""


def test_minimax_entropy_cv_reports_the_penalties_it_chose_in_json(capsys):
    code, stdout, err = run(capsys, "--answers", str(DATA / "bluebird.txt"), "--truth",
                            str(DATA / "bluebird_truth.txt"), "--method", "minimax-entropy-cv", "--json")
    summary = json.loads(stdout)
    assert code == 0 and err == ""
    assert (round(summary["alpha"], 4), summary["beta"]) == (round(108 / 39, 4), 1.0)  # the rule: e = -2
    assert [set(point) for point in summary["heldout_loglik"]] == [{"alpha", "beta", "loglik"}] * 5
    assert max(summary["heldout_loglik"], key=lambda p: p["loglik"])["beta"] == 1.0 and summary["error_rate"] == 9 / 108


def test_minimax_entropy_cv_on_annotators_of_one_answer_each_is_refused_at_plan_naming_the_folds(tmp_path, capsys):
    answers = tmp_path / "once.csv"
    answers.write_text("task,worker,label\na,w1,x\na,w2,y\na,w3,x\nb,w4,y\nb,w5,y\n")
    out = tmp_path / "labels.csv"
    assert_one_line(run(capsys, "--answers", str(answers), "--method", "minimax-entropy-cv", "--out", str(out)), 2,
                    f"{answers}: minimax-entropy-cv: 5 folds of each annotator's answers need an annotator with at "
                    "least 5 answers; the most active gave 1: choose fewer folds, or minimax-entropy")
    assert not out.exists()
