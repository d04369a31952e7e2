"""``simverify crowd aggregate``: label aggregation of a real answers file (Ibrahim & Fu 2021's methods and
baselines). Everything is checked before any work: an unknown method or format, a malformed file (file:line), a
binary-only method on multi-class answers, an unwritable --out; each refused in one line with exit status 2 and
nothing written."""
from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import numpy as np

from ..datasets import crowd as crowd_data
from ..metrics import label_error
from ..solvers.crowd.methods import METHODS, aggregate, check_method
from ..store import check_writable
from ..usage import UsageError


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
    ap.add_argument("--method", required=True, metavar="NAME", help="one of: " + ", ".join(METHODS))
    ap.add_argument("--out", metavar="PATH", help="write item labels and posteriors here (.csv: comma-separated, "
                    "else tab-separated)")
    ap.add_argument("--seed", type=int, default=0, help="seed of randomised methods (kos)")
    ap.add_argument("--json", action="store_true", help="print one JSON object with the run's summary")
    ap.set_defaults(fn=cmd_aggregate)


def _check_out(path: str | None) -> None:
    """--out must name a file whose directory can be written (created on the write when missing)."""
    if path is None:
        return
    out = Path(path)
    if out.is_dir():
        raise ValueError(f"--out {path} is a directory")
    check_writable(out.parent, "--out directory")
    if out.exists() and not os.access(out, os.W_OK):
        raise ValueError(f"--out {path} is not writable")


def _write(path: str, answers, posteriors: np.ndarray) -> None:
    """One row per item: item, label (the decision), p_<class>... (comma- or tab-separated, quoted as needed)."""
    decision = answers.classes[posteriors.argmax(axis=1)]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="," if path.endswith(".csv") else "\t", lineterminator="\n")
        writer.writerow(["item", "label"] + [f"p_{c}" for c in answers.classes])
        for i, d, row in zip(answers.item_ids, decision, posteriors):
            writer.writerow([i, d] + [f"{v:.6g}" for v in row])


def cmd_aggregate(args) -> int:
    try:
        check_method(args.method)
        _check_out(args.out)
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        answers = crowd_data.load(args.answers, args.truth, args.format)
        if answers.n_classes < 2:
            raise ValueError(f"{args.answers}: every answer is {answers.classes[0]}; nothing to aggregate")
        check_method(args.method, answers.n_classes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    start = time.perf_counter()
    result = aggregate(answers, args.method, seed=args.seed)
    elapsed = time.perf_counter() - start
    n_gold = int((answers.gold >= 0).sum())
    error = label_error(result.posteriors, answers.gold) if n_gold else None
    if args.out:
        _write(args.out, answers, result.posteriors)
    summary = {"method": args.method, "n_items": answers.n_items, "n_workers": answers.n_workers,
               "n_classes": answers.n_classes, "n_answers": int(answers.item.size), "n_gold": n_gold,
               "error_rate": error, "elapsed_s": round(elapsed, 4), "out": args.out}
    if args.json:
        print(json.dumps(summary))
    else:
        err = "n/a (no gold labels)" if error is None else f"{100 * error:.2f}% on {n_gold} gold items"
        wrote = f"; wrote {args.out}" if args.out else ""
        print(f"{args.method}: {answers.n_items} items, {answers.n_workers} workers, {answers.n_classes} classes, "
              f"{answers.item.size} answers; error {err}; {elapsed:.3f} s{wrote}")
    return 0
