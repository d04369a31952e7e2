"""The speed goals of Ibrahim & Fu (2021)'s aggregators.

Goals (ratios within one run, each timing the best of several calls, warm JIT):
- on 20,000 items x 10 annotators x 3 classes (every annotator answers every item: 200,000 answers; Appendix
  C.1.1's model with two class specialists), the RobSymNMF pipeline (co-occurrences, imputation, SymNMF, MAP)
  at least 10x faster than crowd-kit's DawidSkene (n_iter = 100, tol = 1e-5) at equal or better accuracy
  (track_speedup_*; track_error_* in %). RobSymNMF-EM as printed (EM from the SymNMF model) stalls at the
  model's exact zeros; the -em-smoothed method starts EM from the model mixed with 1 % of the uniform confusion.
  crowd-kit is an optional benchmark dependency (``pip install ".[crowdkit]"``); without it the crowd-kit
  benchmarks are skipped;
- a problem the size of TREC (19,033 items, 762 annotators, about 88,400 answers, 2 classes) end to end in a few
  seconds (time_ours_*_trec);
- every shipped set (RealSets): error and warm time of our methods beside crowd-kit's DawidSkene,
  OneCoinDawidSkene, GLAD, MMSR and Wawa (when installed);
- cost model of the co-occurrence kernel (Eq. 3): one scattered add per ordered pair of answers to an item, at the
  rate of the same adds into the same array with the pairs' addresses precomputed
  (track_fraction_of_limit_cooccurrence_20000x10x3);
- TensorADMM's two corrections on the shipped TREC under 3 s warm (time_ours_tensor_admm_*_trec), and its sweep's
  cost model: per sweep, each annotator's cell stream and the prior's cells read once with their multiply-adds,
  as many sweeps as the fit ran, without the blocks' structure, the Gram products or the ADMM steps
  (track_fraction_of_limit_tensor_admm_euclidean_trec);
- MinimaxEntropy and its cross-validation (minimax-entropy-cv, 25 fold fits and the final one) on the shipped TREC
  under 3 s warm (time_ours_minimax_*_trec), and its likelihood's cost model: one evaluation against the
  exponentials and logarithms it must take, alone (K - 1 exponentials per answer and class, one logarithm per
  item and class, K - 1 exponentials and one logarithm per item; track_fraction_of_limit_minimax_evaluation_trec).
"""
import numpy as np
from numba import njit

from simverify import metrics
from simverify.datasets.crowd import to_frame
from simverify.generators import crowd as gen
from simverify.kernels.jit import JIT
from simverify.solvers.crowd import aggregate, cooccurrences
from simverify.solvers.crowd.methods import EM_ITERATIONS, EM_TOL
from simverify.solvers.crowd.tensor_admm import tensor_admm

from ._costmodel import _best

N, M, K = 20_000, 10, 3
TREC = (19_033, 762, 88_385)


def dense_problem(model_seed: int = 0, answer_seed: int = 1):
    """N items x M annotators x K classes, every annotator answering every item, two class specialists."""
    model = gen.dawid_skene_model(M, K, model_seed, n_specialists=2)
    return gen.answers(model, np.ones((N, M)), answer_seed)


def trec_problem():
    n, m, answers = TREC
    model = gen.dawid_skene_model(m, 2, 3, n_specialists=5)
    return gen.answers(model, np.full((n, m), answers / (n * m)), 4)


def crowdkit_dawid_skene():
    try:
        from crowdkit.aggregation import DawidSkene
    except ImportError:
        raise NotImplementedError("crowd-kit is not installed (pip install '.[crowdkit]')") from None
    return DawidSkene


def crowdkit_error(labels, answers) -> float:
    """crowd-kit's labels (Series by task) against the gold labels, in %, over the items with a gold label."""
    has = answers.gold >= 0
    predicted = labels.reindex(answers.item_ids[has]).to_numpy()
    return 100 * float(np.mean(predicted != answers.classes[answers.gold[has]]))


@njit(**JIT)
def _scatter_adds(flat, target):
    for a in range(flat.size):
        target[flat[a]] += 1.0


TIMED = ("robsymnmf", "robsymnmf-em", "robsymnmf-em-smoothed")


class DenseTenAnnotators:
    timeout = 600
    number, repeat, rounds = 1, 3, 1

    def setup_cache(self):
        answers = dense_problem()
        for name in (*TIMED, "mv-em"):
            aggregate(answers, name)  # compile
        ours = {name: _best(lambda name=name: aggregate(answers, name)) for name in TIMED}
        errors = {name: 100 * metrics.label_error(aggregate(answers, name).posteriors, answers.gold)
                  for name in (*TIMED, "mv-em")}
        out = {"ours": ours, "errors": errors, "crowdkit": None}
        try:
            DawidSkene = crowdkit_dawid_skene()
        except NotImplementedError:
            return out
        frame = to_frame(answers)
        fitted = []
        t = _best(lambda: fitted.append(DawidSkene(n_iter=EM_ITERATIONS, tol=EM_TOL).fit(frame)))
        out["crowdkit"] = {"time": t, "error": crowdkit_error(fitted[-1].labels_, answers)}
        return out

    def _crowdkit(self, r):
        if r["crowdkit"] is None:
            raise NotImplementedError("crowd-kit is not installed")
        return r["crowdkit"]

    def track_time_robsymnmf(self, r):
        return r["ours"]["robsymnmf"]

    def track_time_robsymnmf_em(self, r):
        return r["ours"]["robsymnmf-em"]

    def track_time_robsymnmf_em_smoothed(self, r):
        return r["ours"]["robsymnmf-em-smoothed"]

    def track_time_crowdkit_dawidskene(self, r):
        return self._crowdkit(r)["time"]

    def track_speedup_robsymnmf_over_crowdkit(self, r):
        """crowd-kit DawidSkene's time / the RobSymNMF pipeline's (MAP) time."""
        return self._crowdkit(r)["time"] / r["ours"]["robsymnmf"]

    def track_speedup_robsymnmf_em_over_crowdkit(self, r):
        """crowd-kit DawidSkene's time / RobSymNMF-EM's time."""
        return self._crowdkit(r)["time"] / r["ours"]["robsymnmf-em"]

    def track_speedup_robsymnmf_em_smoothed_over_crowdkit(self, r):
        """crowd-kit DawidSkene's time / RobSymNMF-EM's time from the smoothed start (methods.START_SMOOTHING)."""
        return self._crowdkit(r)["time"] / r["ours"]["robsymnmf-em-smoothed"]

    def track_error_robsymnmf(self, r):
        return r["errors"]["robsymnmf"]

    def track_error_robsymnmf_em(self, r):
        return r["errors"]["robsymnmf-em"]

    def track_error_robsymnmf_em_smoothed(self, r):
        return r["errors"]["robsymnmf-em-smoothed"]

    def track_error_mv_em(self, r):
        return r["errors"]["mv-em"]

    def track_error_crowdkit_dawidskene(self, r):
        return self._crowdkit(r)["error"]

    for _f in (track_time_robsymnmf, track_time_robsymnmf_em, track_time_robsymnmf_em_smoothed,
               track_time_crowdkit_dawidskene):
        _f.unit = "seconds"
    for _f in (track_speedup_robsymnmf_over_crowdkit, track_speedup_robsymnmf_em_over_crowdkit,
               track_speedup_robsymnmf_em_smoothed_over_crowdkit):
        _f.unit = "ratio"
    for _f in (track_error_robsymnmf, track_error_robsymnmf_em, track_error_robsymnmf_em_smoothed, track_error_mv_em,
               track_error_crowdkit_dawidskene):
        _f.unit = "%"


PROBLEMS = 12  # accuracy over several problems, so that "equal or better" is not one problem's luck
COMPARED = ("robsymnmf-em", "robsymnmf-em-smoothed", "mv-em")


class TwelveDenseProblems:
    """Label error (%) over PROBLEMS dense problems (20,000 x 10 x 3, model seeds 0..11): the mean, and how many
    problems each method loses to crowd-kit's DawidSkene by more than 0.1 point (20 items)."""
    timeout = 900
    number, repeat, rounds = 1, 1, 1

    def setup_cache(self):
        errors = {name: [] for name in (*COMPARED, "crowdkit")}
        try:
            DawidSkene = crowdkit_dawid_skene()
        except NotImplementedError:
            DawidSkene = None
        for seed in range(PROBLEMS):
            answers = dense_problem(seed, 1000 + seed)
            for name in COMPARED:
                errors[name].append(100 * metrics.label_error(aggregate(answers, name).posteriors, answers.gold))
            if DawidSkene is not None:
                fitted = DawidSkene(n_iter=EM_ITERATIONS, tol=EM_TOL).fit(to_frame(answers))
                errors["crowdkit"].append(crowdkit_error(fitted.labels_, answers))
        return {name: np.array(v) for name, v in errors.items()}

    def _losses(self, r, name):
        if not r["crowdkit"].size:
            raise NotImplementedError("crowd-kit is not installed")
        return int(np.sum(r[name] > r["crowdkit"] + 0.1))

    def track_mean_error_robsymnmf_em(self, r):
        return float(r["robsymnmf-em"].mean())

    def track_mean_error_robsymnmf_em_smoothed(self, r):
        return float(r["robsymnmf-em-smoothed"].mean())

    def track_mean_error_mv_em(self, r):
        return float(r["mv-em"].mean())

    def track_mean_error_crowdkit_dawidskene(self, r):
        if not r["crowdkit"].size:
            raise NotImplementedError("crowd-kit is not installed")
        return float(r["crowdkit"].mean())

    def track_losses_to_crowdkit_robsymnmf_em(self, r):
        return self._losses(r, "robsymnmf-em")

    def track_losses_to_crowdkit_robsymnmf_em_smoothed(self, r):
        return self._losses(r, "robsymnmf-em-smoothed")

    for _f in (track_mean_error_robsymnmf_em, track_mean_error_robsymnmf_em_smoothed, track_mean_error_mv_em,
               track_mean_error_crowdkit_dawidskene):
        _f.unit = "%"
    for _f in (track_losses_to_crowdkit_robsymnmf_em, track_losses_to_crowdkit_robsymnmf_em_smoothed):
        _f.unit = "problems"


class Cooccurrence:
    number, repeat, rounds = 1, 5, 1

    def setup(self):
        a = dense_problem()
        self.answers = a
        cooccurrences(a.item, a.worker, a.label, a.n_items, M, K)
        by_item = np.argsort(a.item, kind="stable")
        w, lab = a.worker[by_item].reshape(N, M), a.label[by_item].reshape(N, M)
        pairs = [(w[:, i] * M + w[:, j]) * K * K + lab[:, i] * K + lab[:, j]
                 for i in range(M) for j in range(M) if i != j]
        self.flat = np.concatenate(pairs).astype(np.int64)  # the addresses of every ordered pair's add
        self.target = np.zeros(M * M * K * K)
        _scatter_adds(self.flat[:10], self.target)

    def time_ours_cooccurrence_20000x10x3(self):
        a = self.answers
        cooccurrences(a.item, a.worker, a.label, a.n_items, M, K)

    def track_fraction_of_limit_cooccurrence_20000x10x3(self):
        a = self.answers
        limit = _best(lambda: _scatter_adds(self.flat, self.target), 5)
        return limit / _best(lambda: cooccurrences(a.item, a.worker, a.label, a.n_items, M, K), 5)

    track_fraction_of_limit_cooccurrence_20000x10x3.unit = "fraction"


class TrecSize:
    timeout = 900
    number, repeat, rounds = 1, 3, 1

    def setup(self):
        self.answers = trec_problem()
        for name in ("mv-em", "robsymnmf", "dessymnmf"):
            aggregate(self.answers, name)  # compile

    def time_ours_mv_em_trec(self):
        aggregate(self.answers, "mv-em")

    def time_ours_robsymnmf_trec(self):
        aggregate(self.answers, "robsymnmf")

    def time_ours_dessymnmf_trec(self):
        aggregate(self.answers, "dessymnmf")


@njit(**JIT)
def _tensor_sweep_streams(rows, streams, sweeps):
    """The cell reads and multiply-adds of ``sweeps`` TensorADMM sweeps: (own, theirs, values) of the pairs' and
    the triples' member streams into (K, K) sums, then the pairs' and triples' cells (rows, values) into (K,)."""
    pair_own, pair_theirs, pair_values, tri_own, tri_theirs, tri_values, pair_rows, pv, tri_rows, tv = streams
    K = rows.shape[1]
    by_answer, rhs = np.zeros((K, K)), np.zeros(K)
    for _ in range(sweeps):
        for s in range(pair_own.size):
            for f in range(K):
                by_answer[pair_own[s], f] += pair_values[s] * rows[pair_theirs[s, 0], f]
        for s in range(tri_own.size):
            for f in range(K):
                by_answer[tri_own[s], f] += tri_values[s] * rows[tri_theirs[s, 0], f] * rows[tri_theirs[s, 1], f]
        for s in range(pv.size):
            for f in range(K):
                rhs[f] += pv[s] * rows[pair_rows[s, 0], f] * rows[pair_rows[s, 1], f]
        for s in range(tv.size):
            for f in range(K):
                rhs[f] += tv[s] * rows[tri_rows[s, 0], f] * rows[tri_rows[s, 1], f] * rows[tri_rows[s, 2], f]
    return by_answer.sum() + rhs.sum()


def shipped_trec_codes():
    """The shipped TREC set and its codes (item, worker, label, n_items, n_workers, n_classes)."""
    from simverify.datasets.crowd import shipped
    a = shipped("trec")
    return a, (a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes)


class TensorAdmmTrec:
    """TensorADMM on the shipped TREC (762 annotators, 2 classes; 12,861 observed pairs, 49,184 triples)."""
    timeout = 900
    number, repeat, rounds = 1, 3, 1

    def setup(self):
        from simverify.solvers.crowd import tensor_admm as tensor
        from simverify.solvers.crowd.cooccurrence import cooccurrences as counts
        a, self.codes = shipped_trec_codes()
        M, K = a.n_workers, a.n_classes
        pairs, R2 = tensor._observed_pairs(*counts(*self.codes))
        triples, T3, _ = tensor.triple_moments(*self.codes)
        pair, triple = tensor._moment_bundle(pairs, R2, M), tensor._moment_bundle(triples, T3, M)
        self.streams = (pair[8], pair[9], pair[10], triple[8], triple[9], triple[10], pair[2], pair[3], triple[2],
                        triple[3])
        self.rows = np.full((M * K, K), 1.0 / K)
        self.sweeps = tensor_admm(*self.codes, projection="euclidean").sweeps  # compiles
        tensor_admm(*self.codes, moments="observed")
        _tensor_sweep_streams(self.rows, self.streams, 1)

    def time_ours_tensor_admm_euclidean_trec(self):
        tensor_admm(*self.codes, projection="euclidean")

    def time_ours_tensor_admm_observed_trec(self):
        tensor_admm(*self.codes, moments="observed")

    def track_fraction_of_limit_tensor_admm_euclidean_trec(self):
        limit = _best(lambda: _tensor_sweep_streams(self.rows, self.streams, self.sweeps), 3)
        return limit / _best(lambda: tensor_admm(*self.codes, projection="euclidean"), 3)

    track_fraction_of_limit_tensor_admm_euclidean_trec.unit = "fraction"


@njit(**JIT)
def _transcendentals(n_exp, n_log):
    """n_exp exponentials of arguments in [-8, 0] and n_log logarithms of arguments in [1, 2], summed (so that
    none is dropped): the floor of the minimax likelihood's evaluation."""
    total = 0.0
    for i in range(n_exp):
        total += np.exp(-8.0 * ((i * 0.6180339887498949) % 1.0))
    for i in range(n_log):
        total += np.log(1.0 + ((i * 0.6180339887498949) % 1.0))
    return total


class MinimaxTrec:
    """MinimaxEntropy on the shipped TREC (19,033 items, 762 annotators, 2 classes) at the authors' penalties."""
    timeout = 900
    number, repeat, rounds = 1, 3, 1

    def setup(self):
        from simverify.solvers.crowd import minimax_entropy as me
        a, self.codes = shipped_trec_codes()
        self.me = me
        self.alpha, self.beta = me.default_penalties(a.n_items, a.n_workers, a.n_classes)
        fit = me.fit_minimax(*self.codes, self.alpha, self.beta)  # compiles
        self.terms = (fit.sigma, fit.tau)
        self.scorer = me._ByItem(a.item, a.worker, a.label, a.n_items, a.n_classes)
        K, n = a.n_classes, a.item.size
        self.counts = (n * K * (K - 1) + a.n_items * (K - 1), a.n_items * (K + 1))
        me.minimax_entropy_cv(*self.codes)
        _transcendentals(10, 10)

    def _evaluate(self):
        sigma, tau = self.terms
        self.scorer.evaluate(sigma, tau, self.alpha, self.beta, np.empty((tau.shape[0], tau.shape[1])),
                             np.empty_like(sigma), np.empty_like(tau))

    def time_ours_minimax_entropy_trec(self):
        self.me.minimax_entropy(*self.codes)

    def time_ours_minimax_entropy_cv_trec(self):
        self.me.minimax_entropy_cv(*self.codes)

    def track_fraction_of_limit_minimax_evaluation_trec(self):
        limit = _best(lambda: _transcendentals(*self.counts), 5)
        return limit / _best(self._evaluate, 5)

    track_fraction_of_limit_minimax_evaluation_trec.unit = "fraction"


REAL_SETS = ("bluebird", "rte", "web", "temp", "dog", "trec", "labelme")
OURS_REAL = ("mv", "mv-em", "robsymnmf-em-smoothed", "robsymnmf-per-annotator-em", "spectral-ds", "auto")
CROWDKIT_REAL = ("DawidSkene", "OneCoinDawidSkene", "GLAD", "MMSR", "Wawa")  # crowd-kit's classes by name


def crowdkit_aggregators(n_classes: int) -> dict:
    """crowd-kit's aggregators by name, each with its defaults ({} when crowd-kit is not installed)."""
    try:
        import crowdkit.aggregation as ck
    except ImportError:
        return {}
    made = {}
    for name in CROWDKIT_REAL:
        cls = getattr(ck, name, None)
        if cls is not None:
            made[name] = cls(n_labels=n_classes) if name == "MMSR" else cls()
    return made


class RealSets:
    """Every shipped set: label error (%) and warm wall time of our methods and of crowd-kit's aggregators (when
    installed), so that a crowd-kit user sees where each method stands; time the best of two calls."""
    timeout = 1800
    number, repeat, rounds = 1, 1, 1
    params = [list(REAL_SETS)]
    param_names = ["data"]

    def setup_cache(self):
        from simverify.datasets.crowd import shipped
        return {data: self._row(shipped(data)) for data in REAL_SETS}

    @staticmethod
    def _row(answers) -> dict:
        """{method: (best time of 2 warm calls, error %)} on one set; a crowd-kit aggregator that cannot take the
        data gets NaNs and its reason."""
        row = {}
        for name in OURS_REAL:
            aggregate(answers, name)  # compile, and warm
            t = _best(lambda name=name: aggregate(answers, name), repeat=2)
            row[name] = (t, 100 * metrics.label_error(aggregate(answers, name).posteriors, answers.gold))
        frame = to_frame(answers)
        for name, agg in crowdkit_aggregators(answers.n_classes).items():
            fitted = []
            try:
                t = _best(lambda agg=agg, fitted=fitted: fitted.append(agg.fit_predict(frame)), repeat=2)
            except Exception as exc:  # noqa: BLE001 (any crowd-kit failure: recorded, not raised)
                row[f"crowdkit:{name}"] = (float("nan"), float("nan"), str(exc)[:80])
                continue
            row[f"crowdkit:{name}"] = (t, crowdkit_error(fitted[-1], answers))
        return row

    def _get(self, r, data, name, field):
        row = r[data]
        if name not in row:
            raise NotImplementedError(f"{name} not run on {data} (crowd-kit not installed?)")
        return row[name][field]

    def track_error_mv_em(self, r, data):
        return self._get(r, data, "mv-em", 1)

    def track_error_robsymnmf_em_smoothed(self, r, data):
        return self._get(r, data, "robsymnmf-em-smoothed", 1)

    def track_error_robsymnmf_per_annotator_em(self, r, data):
        return self._get(r, data, "robsymnmf-per-annotator-em", 1)

    def track_error_auto(self, r, data):
        return self._get(r, data, "auto", 1)

    def track_error_best_crowdkit(self, r, data):
        errors = [v[1] for k, v in r[data].items() if k.startswith("crowdkit:") and np.isfinite(v[1])]
        if not errors:
            raise NotImplementedError("crowd-kit is not installed")
        return min(errors)

    def track_time_mv_em(self, r, data):
        return self._get(r, data, "mv-em", 0)

    def track_time_auto(self, r, data):
        return self._get(r, data, "auto", 0)

    def track_time_crowdkit_dawidskene(self, r, data):
        return self._get(r, data, "crowdkit:DawidSkene", 0)

    for _f in (track_error_mv_em, track_error_robsymnmf_em_smoothed, track_error_robsymnmf_per_annotator_em,
               track_error_auto, track_error_best_crowdkit):
        _f.unit = "%"
    for _f in (track_time_mv_em, track_time_auto, track_time_crowdkit_dawidskene):
        _f.unit = "seconds"
