"""scikit-learn's NMF (solvers "cd" and "mu") and online LDA as competitors, with the same interface as
:mod:`simverify.solvers.nmf`: ``fit(X)`` on X (N, W), ``iterate(X)`` yielding ``(t, A)`` with A (W, D) the
feature matrix after t epochs.

scikit-learn's iterations carry no state beyond (W, H) (NMF, tol = 0) or the variational parameters (online
LDA's ``partial_fit``), so continuing epoch by epoch gives the iterates of one long run."""
from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np

from simverify.validation import ArrayLike, Integer, Options, Real, validate_params

from .nmf import _Alternating, last_iterate, non_negative_data


class SklearnNMF(_Alternating):
    """sklearn.decomposition.NMF (Frobenius loss) with ``solver`` "cd" or "mu", started like the competitors
    (H = max(A0, 0)^T, W = NNLS(A0, Y)^T; init="custom", tol=0, no regularisation)."""
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


class OnlineLDA:
    """sklearn.decomposition.LatentDirichletAllocation, learning_method="online" (Hoffman et al. 2010), one
    ``partial_fit`` pass over the N documents per epoch; A = components_^T (topic-word pseudo-counts).
    ``doc_topic_prior`` defaults to s/D with s = 5 (DIR's Dirichlet parameter, as the paper's code)."""
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
