"""scikit-learn's NMF (solvers "cd" and "mu") and online LDA as competitors, with the same interface as
:mod:`simverify.solvers.nmf`: ``fit(X)`` on X (N, W), ``iterate(X)`` yielding ``(t, A)`` with A (W, D) the
feature matrix after t epochs.

scikit-learn's iterations carry no state beyond (W, H) (NMF, tol = 0) or the variational parameters (online
LDA's ``partial_fit``), so continuing epoch by epoch gives the iterates of one long run."""
from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np

from ..validation import ArrayLike, Integer, Options, ParamsMixin, Real, validate_params
from .nmf import _Alternating, last_iterate, non_negative_data


class SklearnNMF(_Alternating):
    """sklearn.decomposition.NMF (Frobenius loss) with ``solver`` "cd" or "mu", started like the competitors
    (H = max(A0, 0)^T, W = NNLS(max(A0, 0), Y)^T; init="custom", tol=0, no regularisation).

    Each of the max_iter epochs is one ``fit_transform`` with max_iter=1 continuing from the previous (W, H), so
    the iterates are those of one long run. Fit refuses negative entries of X.

    Parameters
    ----------
    n_components : int
        D, the number of features learned: an integer >= 1, at most min(W, N).
    A0 : array-like of shape (W, D) or None, default=None
        The starting matrix: finite, of full column rank (condition number below 1e12). Required in practice: fit
        refuses None.
    max_iter : int, default=200
        The number of epochs, an integer >= 1 (all are run: tol=0).
    solver : {'cd', 'mu'}, default='cd'
        scikit-learn's solver: coordinate descent or multiplicative updates.

    Attributes
    ----------
    A_ : ndarray of shape (W, D)
        The feature matrix after the last epoch (scikit-learn's ``components_.T``, the paper's layout).
    components_ : ndarray of shape (D, W)
        ``A_.T`` (scikit-learn's layout).
    n_iter_ : int
        The number of epochs run (max_iter).

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.solvers.nmf_sklearn import SklearnNMF
    >>> from simverify.solvers.nmf_examples import example_factors
    >>> A, Z, X = example_factors()  # W = 4 features, D = 2 topics, X: N = 6 samples x W
    >>> est = SklearnNMF(2, A0=A + 0.2, max_iter=20).fit(X)
    >>> est.components_.shape, est.n_iter_
    ((2, 4), 20)
    >>> scaled = est.A_ / est.A_.max(axis=0)  # A is identified up to the scale of its columns
    >>> bool(np.allclose(scaled, A / A.max(axis=0), atol=0.01))
    True
    """
    _parameter_constraints = {"n_components": Integer(1), "A0": [ArrayLike(), None], "max_iter": Integer(1),
                              "solver": Options("cd", "mu")}

    def __init__(self, n_components: int, A0=None, max_iter: int = 200, solver: str = "cd"):
        super().__init__(n_components, A0, max_iter)
        self.solver = solver

    def iterate(self, X) -> Iterator[tuple[int, np.ndarray]]:
        from sklearn.decomposition import NMF
        from sklearn.exceptions import ConvergenceWarning

        Y, A, Z = self._start(X)  # validate_params(self) first
        Xs = np.ascontiguousarray(Y.T)
        weights, comps = np.ascontiguousarray(Z.T), np.ascontiguousarray(A.T)
        yield 0, A
        model = NMF(self.n_components, init="custom", solver=self.solver, tol=0.0, max_iter=1)
        for t in range(1, self.max_iter + 1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                weights = model.fit_transform(Xs, W=weights, H=comps)
            comps = model.components_
            yield t, np.ascontiguousarray(comps.T)


class OnlineLDA(ParamsMixin):
    """sklearn.decomposition.LatentDirichletAllocation, learning_method="online" (Hoffman et al. 2010), one
    ``partial_fit`` pass over the N documents per epoch; A = components_^T (topic-word pseudo-counts).
    ``doc_topic_prior`` defaults to s/D with s = 5 (DIR's Dirichlet parameter, as the paper's code).

    scikit-learn's other defaults stand (``topic_word_prior`` 1/D, ``learning_decay`` 0.7, ``learning_offset``
    10), with ``total_samples`` = N. Fit refuses negative entries of X (N documents x W words, e.g. counts).

    Parameters
    ----------
    n_components : int
        D, the number of topics: an integer >= 1.
    max_iter : int, default=20
        The number of epochs (``partial_fit`` passes over the N documents), an integer >= 1.
    doc_topic_prior : float or None, default=None
        The Dirichlet parameter of the document-topic distributions, a finite number >= 0; None: 5 / D. fit passes
        it to scikit-learn, which (1.9) refuses values above 1: the default then needs D >= 5.
    batch_size : int, default=128
        Documents per mini-batch of ``partial_fit``, an integer >= 1.
    random_state : int, numpy.random.RandomState or None, default=0
        Passed to scikit-learn: an integer in [0, 2^32 - 1], a RandomState, or None (fresh entropy: not
        reproducible).

    Attributes
    ----------
    A_ : ndarray of shape (W, D)
        The topic-word pseudo-counts after the last epoch (scikit-learn's ``components_.T``).
    components_ : ndarray of shape (D, W)
        ``A_.T`` (scikit-learn's layout).
    n_iter_ : int
        The number of epochs run (max_iter).

    References
    ----------
    .. [1] Hoffman, Blei, Bach (2010), Online Learning for Latent Dirichlet Allocation, NIPS.

    Examples
    --------
    >>> import numpy as np
    >>> from simverify.solvers.nmf_sklearn import OnlineLDA
    >>> X = np.array([[3, 2, 0, 0, 1], [2, 4, 1, 0, 0], [0, 0, 3, 4, 1], [0, 1, 2, 3, 0], [4, 3, 0, 1, 0],
    ...               [0, 0, 4, 2, 2]])  # 6 documents x 5 words, counts
    >>> lda = OnlineLDA(2, max_iter=5, doc_topic_prior=0.5, batch_size=3).fit(X)  # the default 5 / 2 > 1
    >>> lda.components_.shape, lda.n_iter_
    ((2, 5), 5)
    >>> top = np.argsort(-lda.components_, axis=1)[:, :2]  # each topic's two heaviest words
    >>> sorted(sorted(t) for t in top.tolist())
    [[0, 1], [2, 3]]
    """
    _parameter_constraints = {"n_components": Integer(1), "max_iter": Integer(1), "doc_topic_prior": [Real(0.0), None],
                              "batch_size": Integer(1), "random_state": [Integer(0, 2**32 - 1), np.random.RandomState,
                                                                         None]}

    def __init__(self, n_components: int, max_iter: int = 20, doc_topic_prior: float | None = None,
                 batch_size: int = 128, random_state: int = 0):
        self.n_components = n_components
        self.max_iter = max_iter
        self.doc_topic_prior = doc_topic_prior
        self.batch_size = batch_size
        self.random_state = random_state

    def iterate(self, X) -> Iterator[tuple[int, np.ndarray]]:
        from sklearn.decomposition import LatentDirichletAllocation

        validate_params(self)
        Y = non_negative_data(X)
        D = self.n_components
        prior = 5.0 / D if self.doc_topic_prior is None else self.doc_topic_prior
        model = LatentDirichletAllocation(D, doc_topic_prior=prior, learning_method="online",
                                          batch_size=self.batch_size, total_samples=Y.shape[1],
                                          random_state=self.random_state)
        Xs = np.ascontiguousarray(Y.T)
        for t in range(1, self.max_iter + 1):
            model.partial_fit(Xs)
            yield t, np.ascontiguousarray(model.components_.T)

    def fit(self, X, y=None) -> OnlineLDA:
        self.n_iter_, self.A_ = last_iterate(self.iterate(X))
        self.components_ = self.A_.T
        return self
