"""``simverify crowd aggregate``: label aggregation of a real answers file (Ibrahim & Fu 2021's methods and
baselines). Everything is checked before any work: an unknown method or format, a malformed file (file:line), a
binary-only method on multi-class answers, an unwritable --out or one that names an input (by any path: a symlink, a
hard link), a special file as --out (/dev/null, /dev/full, a pipe); each refused in one line with exit status 2 and
nothing written. Input files are streamed line by line and refused at their first bad line (binary data included).
--out is written to a temporary file beside it and renamed into place, so a write that fails after the work (a full
disk) leaves any previous file untouched: one line ``cannot write --out PATH: reason``, exit status 1."""
from __future__ import annotations

import contextlib
import csv
import json
import os
import secrets
import stat
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..datasets import crowd as crowd_data
from ..exceptions import UsageError
from ..metrics import label_error
from ..solvers.crowd.codes import (
    AnnotatorGroupsWarning,
    FlatPosteriorsWarning,
    answers_problem,
    folds_problem,
    groups_problem,
)
from ..solvers.crowd.methods import METHODS, aggregate, check_method
from ..solvers.crowd.minimax_entropy import FOLDS
from ..solvers.crowd.selection import check_auto
from ..store import check_writable_file


def add_parser(sub, fmt) -> None:
    """Register ``crowd aggregate`` on the top-level subparsers."""
    cp = sub.add_parser("crowd", help="aggregate crowdsourced labels (Ibrahim & Fu 2021's methods)",
                        formatter_class=fmt)
    csub = cp.add_subparsers(dest="crowd_command", required=True, help="what to do with the answers")
    ap = csub.add_parser("aggregate", help="aggregate an answers file into item labels", formatter_class=fmt,
                         description="Formats: tsv (item<TAB>worker<TAB>label, 1-based integers; truth item<TAB>gold), "
                                     "snow (Snow et al. 2008 TSV with gold labels), csv (task,worker,label header; "
                                     "truth task,true_label).")
    ap.add_argument("--answers", required=True, metavar="PATH", help="answers file")
    ap.add_argument("--truth", metavar="PATH", help="gold labels (tsv and csv formats)")
    ap.add_argument("--format", default="auto", choices=crowd_data.FORMATS, help="file format; auto sniffs line 1")
    ap.add_argument("--classes", type=int, metavar="K", help="the number of classes, declared (integer labels "
                    "1..K, or 0..K-1 when a 0 appears); default: the labels answered")
    ap.add_argument("--method", required=True, metavar="NAME", help="one of: " + ", ".join(METHODS))
    ap.add_argument("--out", metavar="PATH", help="write item labels and posteriors here (.csv: comma-separated, "
                    "else tab-separated)")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of randomised methods (kos, spectral-ds, auto, minimax-entropy-cv's folds)")
    ap.add_argument("--json", action="store_true", help="print one JSON object with the run's summary")
    ap.set_defaults(fn=cmd_aggregate)


def _names_input(given: str, inputs: list[tuple[str, str]]) -> None:
    """Refuse an --out that is one of the inputs (flag, path), by any path: itself, a symlink or a hard link (the
    same file when both exist, else the same resolved path)."""
    out = Path(given)
    for flag, name in inputs:
        path = Path(name)
        both = os.path.exists(out) and os.path.exists(path)
        same = os.path.samefile(out, path) if both else out.resolve() == path.resolve()
        if same:
            raise ValueError(f"--out {given} is the {flag} file {name}; refusing to overwrite an input")


def _check_out(path: str | None, inputs: list[tuple[str, str]]) -> None:
    """--out must not be an input; it must name a regular file (or none yet) whose directory can be written
    (created on the write when missing); an existing file must be writable."""
    if path is None:
        return
    if path.endswith(os.sep) or path in ("-", "."):
        raise ValueError(f"--out {path} names a directory or standard output; name a file")
    _names_input(path, inputs)
    target = Path(os.path.realpath(path))  # a symlink's target is written; the link stays
    check_writable_file(target, "--out")
    if target.exists() and not target.is_file():
        raise ValueError(f"cannot write --out {path}: {_kind(target)}, not a regular file")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"cannot write --out {path}: the file is not writable")


def _kind(path: Path) -> str:
    """What a path that is no regular file is, in words (a character device, a named pipe, ...)."""
    mode = path.stat().st_mode
    kinds = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
             (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a special file")


def _rows(answers, posteriors: np.ndarray) -> Iterator[list]:
    """The header, then one row per item: item, label (the decision), p_<class>..."""
    decision = answers.classes[posteriors.argmax(axis=1)]
    yield ["item", "label"] + [f"p_{c}" for c in answers.classes]
    for i, d, row in zip(answers.item_ids, decision, posteriors):
        yield [i, d] + [f"{v:.6g}" for v in row]


def _missing_dirs(directory: Path) -> list[Path]:
    """The directories from ``directory`` up that do not exist yet, deepest first."""
    return [d for d in [directory, *directory.parents] if not d.exists()]


TEMP_PREFIX = ".simverify-out-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _host_tag() -> str:
    """8 hex digits naming this host, so that a directory shared between machines is swept only of this host's files."""
    import hashlib
    import socket
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _sweep_stale(directory: Path) -> None:
    """Remove the temporary files of runs on this host killed before they could (``.simverify-out-<host>-<pid>-*.tmp``
    whose process is gone); a live run's files and other hosts' are left alone."""
    prefix = f"{TEMP_PREFIX}{_host_tag()}-"
    for tmp in directory.glob(f"{prefix}*-*.tmp"):
        pid = tmp.name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _open_temp(directory: Path) -> tuple[Path, int]:
    """A new hidden file in ``directory`` named with this process's id (its permissions as a plain open(path, "w")
    gives), and its descriptor; stale ones of killed runs are removed first."""
    _sweep_stale(directory)
    for _ in range(100):
        tmp = directory / f"{TEMP_PREFIX}{_host_tag()}-{os.getpid()}-{secrets.token_hex(6)}.tmp"
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def _write_temp(directory: Path, path: str, answers, posteriors: np.ndarray) -> Path:
    """The rows in a new temporary file in ``directory`` (comma-separated when ``path`` ends in .csv, else
    tab-separated; quoted as needed), flushed to disk; removed again when writing fails."""
    tmp, fd = _open_temp(directory)
    try:
        with open(fd, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, delimiter="," if path.endswith(".csv") else "\t",
                       lineterminator="\n").writerows(_rows(answers, posteriors))
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _write(path: str, answers, posteriors: np.ndarray) -> None:
    """Write --out through a temporary file beside its target (a symlink's target), renamed into place with the
    permissions of the file it replaces. On any error (OSError raised) the temporary file and any directory made
    for it are removed and a previous file at that path is left as it was."""
    target = Path(os.path.realpath(path))
    made = _missing_dirs(target.parent)
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = _write_temp(target.parent, path, answers, posteriors)
        if target.exists():
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        os.replace(tmp, target)
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        for directory in made:
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise


def cmd_aggregate(args) -> int:
    try:
        check_method(args.method)
        inputs = [("--answers", args.answers)] + ([("--truth", args.truth)] if args.truth else [])
        _check_out(args.out, inputs)
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        answers = crowd_data.load(args.answers, args.truth, args.format, args.classes)
        if answers.n_classes < 2:
            raise ValueError(f"{args.answers}: every answer is {answers.classes[0]}; nothing to aggregate")
        check_method(args.method, answers.n_classes)
        problem = answers_problem(args.method, answers)
        if problem:
            raise ValueError(f"{args.answers}: {args.method}: {problem}")
        if args.method == "auto":
            check_auto(answers)
        folds = folds_problem(answers.worker, answers.n_workers, FOLDS) if args.method == "minimax-entropy-cv" else None
        if folds:
            raise ValueError(f"{args.answers}: {args.method}: {folds}")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    groups = groups_problem(args.method, answers)
    if groups:
        sys.stderr.write(f"simverify: warning: {args.answers}: {args.method}: {groups}\n")
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # the groups warning was said once above
        warnings.simplefilter("ignore", AnnotatorGroupsWarning)
        warnings.simplefilter("always", FlatPosteriorsWarning)
        result = aggregate(answers, args.method, seed=args.seed)
    elapsed = time.perf_counter() - start
    for warning in caught:  # every warning of the run (minimax entropy's flat posteriors, ...): one line each
        sys.stderr.write(f"simverify: warning: {args.answers}: {warning.message}\n")
    n_gold = int((answers.gold >= 0).sum())
    error = label_error(result.posteriors, answers.gold) if n_gold else None
    if args.out:
        try:
            _write(args.out, answers, result.posteriors)
        except OSError as exc:  # found only now, after the work (a full disk): exit status 1, nothing written
            sys.stderr.write(f"simverify: error: cannot write --out {args.out}: {exc.strerror or exc}\n")
            return 1
    summary = {"method": args.method, "n_items": answers.n_items, "n_workers": answers.n_workers,
               "n_classes": answers.n_classes, "classes_declared": args.classes is not None,
               "n_answers": int(answers.item.size), "n_gold": n_gold,
               "error_rate": error, "elapsed_s": round(elapsed, 4), "out": args.out}
    if result.choice is not None:  # --method auto: which method, and the held-out scores behind the choice
        summary.update(chosen=result.choice.method, heldout_loglik=result.choice.scores,
                       skipped=result.choice.skipped)
    if result.penalties is not None:  # minimax-entropy-cv: the penalties chosen and their held-out scores
        summary.update(alpha=result.penalties.alpha, beta=result.penalties.beta,
                       heldout_loglik=[{"alpha": a, "beta": b, "loglik": score} for (a, b), score in
                                       zip(result.penalties.grid, result.penalties.heldout_log_likelihood)])
    if args.json:
        print(json.dumps(summary))
    else:
        err = "n/a (no gold labels)" if error is None else f"{100 * error:.2f}% on {n_gold} gold items"
        wrote = f"; wrote {args.out}" if args.out else ""
        print(f"{args.method}: {answers.n_items} items, {answers.n_workers} workers, {answers.n_classes} classes "
              f"({'declared' if args.classes else 'as answered'}), "
              f"{answers.item.size} answers; error {err}; {elapsed:.3f} s{wrote}")
        if result.choice is not None:
            print(f"auto: {result.choice.explain()}")
        if result.penalties is not None:
            print(f"penalties: alpha {result.penalties.alpha:.4g}, beta {result.penalties.beta:.4g} (largest "
                  f"held-out log-likelihood of the answers over {FOLDS} folds)")
    return 0
