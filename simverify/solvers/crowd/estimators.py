"""Aggregators with crowd-kit's shape: ``fit(data)`` on a pandas DataFrame with columns ``task, worker, label``;
``labels_`` (Series indexed by task, named 'agg_label'), ``probas_`` (DataFrame, tasks x labels), and for the
Dawid-Skene methods ``priors_`` (Series indexed by label, named 'prior') and ``errors_`` (DataFrame indexed by
(worker, label) observed, columns the true labels). ``fit_predict`` and ``fit_predict_proba`` return labels_ and
probas_. A crowd-kit user switches with one import: ``from simverify.solvers.crowd.estimators import
DawidSkene``. Ties in ``labels_`` go to the first label in sorted order.

A shipped data set as such a frame: ``datasets.crowd.to_frame(datasets.crowd.shipped("bluebird"))``.

Recommended: ``RobSymNMF(em=True, smoothing=0.01)`` (the CLI's ``robsymnmf-em-smoothed``; 0.01 is
``model.START_SMOOTHING``): never worse than the printed RobSymNMF-EM on the four shipped sets and on twelve synthetic
problems. It is not the default: each estimator's defaults are the method of its name in the paper and in
``methods.METHODS`` (``RobSymNMF()`` is ``robsymnmf``: MAP, no EM), and ``RobSymNMF(weighted=False)``, which has no EM
variant, stays valid. On the 5-class web set MV-EM (``DawidSkene``) is the better choice."""
from __future__ import annotations

import pandas as pd

from ...datasets.crowd import from_frame
from ...validation import Boolean, Integer, Real, Seed, validate_params
from .codes import answers_problem
from .methods import (
    EM_ITERATIONS,
    EM_TOL,
    Aggregation,
    aggregate,
    check_method,
    em_from_cooccurrence_model,
    em_from_vote_fractions,
)
from .votes import ITEM_PENALTY, WORKER_PENALTY, minimax_entropy

EM_CONSTRAINTS = {"n_iter": Integer(0), "tol": Real(0.0)}  # n_iter = 0 is crowd-kit's iteration 0 (no EM step)
SEED_CONSTRAINT = [Seed(), None]


class _Aggregator:
    """Base: ``method`` names the entry of ``methods.METHODS``. Subclasses' __init__ stores parameters only; each
    class declares ``_parameter_constraints`` and ``fit`` checks them first (``validation.validate_params``)."""
    method = ""
    _parameter_constraints: dict = {}

    def _method(self) -> str:
        return self.method

    def _aggregate(self, answers) -> Aggregation:
        return aggregate(answers, self._method(), seed=getattr(self, "random_state", 0) or 0)

    def _answers(self, data: pd.DataFrame):
        """``data`` as coded answers; refused, naming the estimator, when malformed or when the method cannot
        learn from them (``codes.answers_problem``)."""
        owner = type(self).__name__
        try:
            answers = from_frame(data)
            check_method(self._method(), answers.n_classes)
        except ValueError as exc:
            raise ValueError(f"{owner}: {exc}") from None
        problem = answers_problem(self._method(), answers)
        if problem:
            raise ValueError(f"{owner}: {problem}")
        return answers

    def fit(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> _Aggregator:
        """Aggregate ``data`` (task, worker, label). ``true_labels`` is not used (crowd-kit's signature)."""
        validate_params(self)
        self._method()  # the parameters' combination, before the data are read
        answers = self._answers(data)
        result = self._aggregate(answers)
        tasks = pd.Index(answers.item_ids, name="task")
        labels = pd.Index(answers.classes, name="label")
        self.probas_ = pd.DataFrame(result.posteriors, index=tasks, columns=labels)
        self.labels_ = pd.Series(answers.classes[result.posteriors.argmax(axis=1)], index=tasks, name="agg_label")
        if result.model is not None:
            self.priors_ = pd.Series(result.model.priors, index=labels, name="prior")
            M, K = answers.n_workers, answers.n_classes
            rows = pd.MultiIndex.from_product([answers.worker_ids, answers.classes], names=["worker", "label"])
            self.errors_ = pd.DataFrame(result.model.confusion.reshape(M * K, K), index=rows, columns=labels)
        return self

    def fit_predict(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> pd.Series:
        return self.fit(data, true_labels).labels_

    def fit_predict_proba(self, data: pd.DataFrame, true_labels: pd.Series | None = None) -> pd.DataFrame:
        return self.fit(data, true_labels).probas_


class MajorityVote(_Aggregator):
    """Majority vote. Unlike crowd-kit's (vote fractions), probas_ is the decision: 1/(number tied) on each
    most-voted label, 0 elsewhere (the tie rule of Ibrahim & Fu's code).

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): 1/(number tied) on each most-voted label, 0 elsewhere.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import MajorityVote
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnyy")})  # F: a 2-2 tie
    >>> mv = MajorityVote().fit(frame)
    >>> mv.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> mv.probas_.loc["F"].tolist()
    [0.5, 0.5]
    """
    method = "mv"


class DawidSkene(_Aggregator):
    """Dawid-Skene EM from majority-vote fractions (MV-EM), stopped as crowd-kit's: after n_iter iterations or when
    the evidence lower bound per answer gains less than tol.

    Parameters
    ----------
    n_iter : int, default=100
        The most EM iterations, an integer >= 0 (crowd-kit's default). 0 is crowd-kit's iteration 0: probas_ are
        the vote fractions and the model one M-step from them.
    tol : float, default=1e-5
        A finite number >= 0: EM stops early when the evidence lower bound per answer gains less than tol in an
        iteration (crowd-kit's default).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors of the last E-step.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior' (the M-step from probas_, as crowd-kit).
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Dawid, Skene (1979), Maximum likelihood estimation of observer error-rates using the EM algorithm, JRSS C.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import DawidSkene
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> ds = DawidSkene().fit(frame)
    >>> ds.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> ds.priors_.round(2).to_dict()
    {'n': 0.5, 'y': 0.5}
    >>> ds.errors_.loc["w4"].round(2).values.tolist()  # rows: w4 said n, y; columns: the truth was n, y
    [[0.67, 0.33], [0.33, 0.67]]
    """
    method = "mv-em"
    _parameter_constraints = EM_CONSTRAINTS

    def __init__(self, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL):
        self.n_iter = n_iter
        self.tol = tol

    def _aggregate(self, answers) -> Aggregation:
        return em_from_vote_fractions(answers, self.n_iter, self.tol)


class SymNMF(_Aggregator):
    """Shifted-ReLU SymNMF of the observed co-occurrences, without imputation.

    The missing and diagonal co-occurrence blocks are left at zero (the paper's 'SymNMF (w/o imput.)' baseline);
    probas_ are the learned model's posteriors (MAP predictor).

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors under the learned model.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Ibrahim, Fu (2021), Crowdsourcing via Annotator Co-occurrence Imputation and Provable Symmetric
       Nonnegative Matrix Factorization, ICML (arXiv:2106.07193).

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import SymNMF
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> model = SymNMF().fit(frame)
    >>> model.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> model.priors_.round(2).to_dict()
    {'n': 0.53, 'y': 0.47}
    """
    method = "symnmf"


class _EMRefined(_Aggregator):
    """A co-occurrence method whose em=True variant refines by EM for at most n_iter iterations, until the
    evidence lower bound per answer gains less than tol (crowd-kit's rule), from the learned model mixed with
    the share ``smoothing`` of the uniform confusion (0: the paper's start; model.START_SMOOTHING is the
    -em-smoothed methods' share, which lets EM leave the start's exact zeros). smoothing needs em=True."""
    start = ""
    _parameter_constraints = {"em": Boolean(), **EM_CONSTRAINTS, "smoothing": Real(0.0, 1.0, closed="left")}

    def _method(self) -> str:
        if self.smoothing and not self.em:
            raise ValueError(f"{type(self).__name__}: smoothing={self.smoothing!r} applies to EM's start: set em=True")
        return f"{self.start}-em" if self.em else self.start

    def _aggregate(self, answers) -> Aggregation:
        if self.em:
            return em_from_cooccurrence_model(answers, self.start, self.n_iter, self.tol, self.smoothing)
        return super()._aggregate(answers)


class DesSymNMF(_EMRefined):
    """Designated-annotator imputation (Eq. 7-8), SymNMF, MAP; em=True refines by EM (DesSymNMF-EM).

    Parameters
    ----------
    em : bool, default=False
        False: the paper's DesSymNMF, the learned model's posteriors (MAP). True: Dawid-Skene EM from that model.
    n_iter : int, default=100
        The most EM iterations, an integer >= 0 (0: the start's posteriors); used only with em=True.
    tol : float, default=1e-5
        A finite number >= 0: EM stops early when the evidence lower bound per answer gains less than tol in an
        iteration; used only with em=True.
    smoothing : float, default=0.0
        A number in [0, 1): EM starts from the learned model with each confusion column mixed as
        (1 - smoothing) A + smoothing / K (0: the paper's start; 0.01: the ``-em-smoothed`` method). A nonzero
        value needs em=True (fit refuses it otherwise).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors under the model (em=True: of the last E-step).
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Ibrahim, Fu (2021), Crowdsourcing via Annotator Co-occurrence Imputation and Provable Symmetric
       Nonnegative Matrix Factorization, ICML (arXiv:2106.07193).

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import DesSymNMF
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> DesSymNMF().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> DesSymNMF(em=True).fit(frame).errors_.loc["w4"].round(2).values.tolist()
    [[0.67, 0.33], [0.33, 0.67]]
    """
    start = "dessymnmf"

    def __init__(self, em: bool = False, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL, smoothing: float = 0.0):
        self.em = em
        self.n_iter = n_iter
        self.tol = tol
        self.smoothing = smoothing


class RobSymNMF(_EMRefined):
    """Robust imputation (criterion 9, Algorithm 11), SymNMF, MAP; weighted=False is the w = 1 version; em=True
    refines by EM (RobSymNMF-EM). Recommended: em=True, smoothing=0.01 (``robsymnmf-em-smoothed``); the defaults are
    the paper's RobSymNMF (see the module docstring).

    Parameters
    ----------
    weighted : bool, default=True
        True: criterion (9) with its weights w_(m,j); False: with w_(m,j) = 1 (``robsymnmf-unweighted``), which has
        no EM variant (fit refuses it with em=True or a nonzero smoothing).
    em : bool, default=False
        False: the paper's RobSymNMF, the learned model's posteriors (MAP). True: Dawid-Skene EM from that model.
    n_iter : int, default=100
        The most EM iterations, an integer >= 0 (0: the start's posteriors); used only with em=True.
    tol : float, default=1e-5
        A finite number >= 0: EM stops early when the evidence lower bound per answer gains less than tol in an
        iteration; used only with em=True.
    smoothing : float, default=0.0
        A number in [0, 1): EM starts from the learned model with each confusion column mixed as
        (1 - smoothing) A + smoothing / K (0: the paper's start; 0.01: the ``-em-smoothed`` method). A nonzero
        value needs em=True (fit refuses it otherwise).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors under the model (em=True: of the last E-step).
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Ibrahim, Fu (2021), Crowdsourcing via Annotator Co-occurrence Imputation and Provable Symmetric
       Nonnegative Matrix Factorization, ICML (arXiv:2106.07193).

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import RobSymNMF
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> RobSymNMF().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> model = RobSymNMF(em=True, smoothing=0.01).fit(frame)  # recommended: robsymnmf-em-smoothed
    >>> model.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> model.errors_.loc["w4"].round(2).values.tolist()  # rows: w4 said n, y; columns: the truth was n, y
    [[0.67, 0.33], [0.33, 0.67]]
    """
    start = "robsymnmf"
    _parameter_constraints = {"weighted": Boolean(), **_EMRefined._parameter_constraints}

    def __init__(self, weighted: bool = True, em: bool = False, n_iter: int = EM_ITERATIONS, tol: float = EM_TOL,
                 smoothing: float = 0.0):
        self.weighted = weighted
        self.em = em
        self.n_iter = n_iter
        self.tol = tol
        self.smoothing = smoothing

    def _method(self) -> str:
        if self.weighted:
            return super()._method()
        if self.em or self.smoothing:
            raise ValueError("RobSymNMF: the unweighted RobSymNMF (weighted=False) has no EM variant: set em=False "
                             "and smoothing=0")
        return "robsymnmf-unweighted"


class MultiSPA(_Aggregator):
    """MultiSPA (Ibrahim, Fu, Kargas & Huang 2019).

    For each annotator, the successive projection algorithm picks K of the (l1-normalised) columns of its
    co-occurrence blocks with the others as its confusion columns, the prior follows by least squares; probas_ are
    the learned model's posteriors (MAP predictor).

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors under the learned model.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Ibrahim, Fu, Kargas, Huang (2019), Crowdsourcing via Pairwise Co-occurrences: Identifiability and
       Algorithms, NeurIPS.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import MultiSPA
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> MultiSPA().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "multispa"


class CNMF(_Aggregator):
    """CNMF (Ibrahim, Fu, Kargas & Huang 2019): criterion (4) in KL form, from MultiSPA's model.

    The start is MultiSPA's model mixed with 1 % of the uniform confusion; probas_ are the learned model's
    posteriors (MAP predictor).

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors under the learned model.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Ibrahim, Fu, Kargas, Huang (2019), Crowdsourcing via Pairwise Co-occurrences: Identifiability and
       Algorithms, NeurIPS.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import CNMF
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> CNMF().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "cnmf"


class SpectralDS(_Aggregator):
    """Spectral-D&S (Zhang, Chen, Zhou & Jordan 2014): third-order moments, then Dawid-Skene EM.

    The annotators are dealt into three groups (so at least three are needed: fit refuses fewer); EM (at most 100
    iterations, tol 1e-5) starts from the moment model mixed with 1 % of the uniform confusion.

    Parameters
    ----------
    random_state : int, numpy.random.SeedSequence, list of int or None, default=0
        The root seed of the random starts of the tensor power method: an integer >= 0, a SeedSequence or a
        non-empty list of integers >= 0. None is taken as 0 (the same draws, not fresh entropy as in scikit-learn).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the posteriors of the last E-step.
    priors_ : pandas.Series
        The learned prior of each true label, named 'prior'.
    errors_ : pandas.DataFrame
        The learned P(observed | true): rows (worker, observed label), columns the true labels.

    References
    ----------
    .. [1] Zhang, Chen, Zhou, Jordan (2014), Spectral Methods Meet EM: A Provably Optimal Algorithm for
       Crowdsourcing, NeurIPS.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import SpectralDS
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> SpectralDS().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "spectral-ds"
    _parameter_constraints = {"random_state": SEED_CONSTRAINT}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state


class MinimaxEntropy(_Aggregator):
    """Regularised minimax conditional entropy (Zhou et al. 2012, 2015); alpha penalises the item terms, beta the
    worker terms.

    P(answer k | true c) = softmax_k(sigma_worker(c, k) + tau_task(c, k)); from the vote fractions, the terms and
    the task distributions are refitted in turn (at most 50 times) until no probability moves by 1e-4.

    Parameters
    ----------
    alpha : float, default=10.0
        A finite number >= 0: the l2 penalty on the task terms tau.
    beta : float, default=1.0
        A finite number >= 0: the l2 penalty on the worker terms sigma. Neither paper fixes alpha and beta; these
        defaults were picked by the error on the four shipped sets' gold labels, so errors there are optimistic.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x labels (the labels given, sorted): the fitted distribution of each task's true label.

    References
    ----------
    .. [1] Zhou, Basu, Mao, Platt (2012), Learning from the Wisdom of Crowds by Minimax Entropy, NeurIPS.
    .. [2] Zhou, Liu, Platt, Meek (2015), Regularized Minimax Conditional Entropy for Crowdsourcing, arXiv:1503.07240.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import MinimaxEntropy
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> model = MinimaxEntropy().fit(frame)
    >>> model.labels_.tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    >>> model.probas_.round(2).values.tolist()
    [[0.04, 0.96], [0.96, 0.04], [0.02, 0.98], [0.98, 0.02], [0.02, 0.98], [0.98, 0.02]]
    """
    method = "minimax-entropy"
    _parameter_constraints = {"alpha": Real(0.0), "beta": Real(0.0)}

    def __init__(self, alpha: float = ITEM_PENALTY, beta: float = WORKER_PENALTY):
        self.alpha = alpha
        self.beta = beta

    def _aggregate(self, answers) -> Aggregation:
        a = answers
        return Aggregation(minimax_entropy(a.item, a.worker, a.label, a.n_items, a.n_workers, a.n_classes,
                                           alpha=self.alpha, beta=self.beta))


class KOS(_Aggregator):
    """Karger, Oh & Shah (2011) message passing (binary labels).

    20 rounds of messages on the task-worker graph, started from draws of N(1, 1); the answers are read as -1 (the
    first label in sorted order) and +1 (the second). Fit refuses answers without exactly two labels. A weak
    implementation: at chance on the shipped RTE set and behind majority vote on Bluebird (docs/findings/crowd.md
    counts both as failures of this implementation); on small dense designs its messages may not settle.

    Parameters
    ----------
    random_state : int, numpy.random.SeedSequence, list of int or None, default=0
        The root seed of the starting messages: an integer >= 0, a SeedSequence or a non-empty list of
        integers >= 0. None is taken as 0 (the same draws, not fresh entropy as in scikit-learn).

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x the two labels (sorted): one-hot, the sign of the task's score (a score of 0 gives 0.5, 0.5).

    References
    ----------
    .. [1] Karger, Oh, Shah (2011), Iterative Learning for Reliable Crowdsourcing Systems, NeurIPS.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import KOS
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> KOS().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "kos"
    _parameter_constraints = {"random_state": SEED_CONSTRAINT}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state


class GhoshSVD(_Aggregator):
    """Ghosh, Kale & McAfee (2011) (binary labels).

    The task score is the leading left singular vector of the tasks x workers matrix of answers read as -1 (the
    first label in sorted order), +1 (the second) and 0 (no answer), its sign chosen so that the workers' singular
    vector has a sum >= 0. Fit refuses answers without exactly two labels.

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x the two labels (sorted): one-hot, the sign of the task's score (a score of 0 gives 0.5, 0.5).

    References
    ----------
    .. [1] Ghosh, Kale, McAfee (2011), Who Moderates the Moderators? Crowdsourcing Abuse Detection in User-Generated
       Content, ACM EC.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import GhoshSVD
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> GhoshSVD().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "ghosh-svd"


class EigenRatio(_Aggregator):
    """Dalvi et al. (2013) EigenRatio (binary labels).

    Worker weights are the ratio of the leading eigenvectors of the agreement matrix and of the co-labelling count
    matrix; the task score is the weighted vote of the answers read as -1 (the first label in sorted order) and +1
    (the second). Fit refuses answers without exactly two labels. A weak implementation: at chance on the shipped
    RTE set, where more than half of its worker weights come out negative (docs/findings/crowd.md).

    Parameters
    ----------
    This aggregator takes no parameters.

    Attributes
    ----------
    labels_ : pandas.Series
        The aggregated label of each task (index 'task', in order of first appearance), named 'agg_label'.
    probas_ : pandas.DataFrame
        Tasks x the two labels (sorted): one-hot, the sign of the task's score (a score of 0 gives 0.5, 0.5).

    References
    ----------
    .. [1] Dalvi, Dasgupta, Kumar, Rastogi (2013), Aggregating Crowdsourced Binary Ratings, WWW.

    Examples
    --------
    >>> import pandas as pd
    >>> from simverify.solvers.crowd.estimators import EigenRatio
    >>> frame = pd.DataFrame({"task": list("AAAABBBBCCCCDDDDEEEEFFFF"), "worker": ["w1", "w2", "w3", "w4"] * 6,
    ...                       "label": list("yyyn" "nnny" "yyyy" "nnnn" "yyyy" "nnnn")})
    >>> EigenRatio().fit_predict(frame).tolist()
    ['y', 'n', 'y', 'n', 'y', 'n']
    """
    method = "eigen-ratio"


ESTIMATORS = {cls.__name__: cls for cls in (MajorityVote, DawidSkene, SymNMF, DesSymNMF, RobSymNMF, MultiSPA, CNMF,
                                             SpectralDS, MinimaxEntropy, KOS, GhoshSVD, EigenRatio)}
__all__ = list(ESTIMATORS)
