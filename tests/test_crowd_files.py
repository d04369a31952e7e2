"""``simverify crowd aggregate`` and its files: an --out that names an input is refused, --out is written through a
temporary file renamed into place (a failed write leaves nothing), input files are streamed and refused at their
first bad line (binary junk included), and a UTF-8 byte-order mark is accepted in every format."""
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

from .test_cli import ROOT, cli

DATA = ROOT / "simverify" / "datasets" / "data" / "crowd"
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
def test_a_write_failing_after_the_work_exits_1_in_one_line_keeps_the_previous_out_and_leaves_no_temporary_file(
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
    for field in ("item", "worker", "label", "item_ids", "worker_ids", "classes", "gold"):
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
