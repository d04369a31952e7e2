"""Machine annotators (Ibrahim & Fu 2021, Section 4 and Appendix C.2, Table 8): ten classifiers trained on a small
random part of a labelled data set label the rest; each of them is one annotator.

Table 8's MATLAB classifiers, by their Classification Learner presets, and the scikit-learn estimators standing in
for them (features standardised, as MATLAB's presets do for k-NN and SVMs):

- coarse / medium / fine k-NN: 100 / 10 / 1 neighbours (at most the training size), Euclidean; cosine k-NN: 10;
- coarse / medium / fine decision tree: at most 4 / 20 / 100 splits (5 / 21 / 101 leaves);
- linear SVM; quadratic SVM: kernel (1 + x^T y)^2; coarse Gaussian SVM: kernel scale 4 sqrt(d), i.e.
  gamma = 1 / (16 d) for d features.

Shapes: X (n, d), y (n,) int64 codes; the labels (n_test, 10) int64 codes, annotator m's label of test item i."""
from __future__ import annotations

import numpy as np

from ..kernels.rng import generator
from ..validation import real_number, require

TABLE8 = ("coarse k-NN", "medium k-NN", "fine k-NN", "cosine k-NN", "coarse tree", "medium tree", "fine tree",
          "linear SVM", "quadratic SVM", "coarse Gaussian SVM")
TRAIN_FRACTION = 0.2  # Section 4: 'a training to testing ratio being 1/4'


def table8_classifiers(n_train: int, n_features: int) -> list:
    """The ten unfitted scikit-learn estimators of Table 8, in ``TABLE8``'s order."""
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    def scaled(estimator):
        return make_pipeline(StandardScaler(), estimator)

    def knn(k: int, metric: str = "euclidean"):
        return scaled(KNeighborsClassifier(min(k, n_train), metric=metric))

    def tree(splits: int):
        return DecisionTreeClassifier(max_leaf_nodes=splits + 1, random_state=0)

    return [knn(100), knn(10), knn(1), knn(10, "cosine"), tree(4), tree(20), tree(100),
            scaled(SVC(kernel="linear")), scaled(SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0)),
            scaled(SVC(kernel="rbf", gamma=1.0 / (16 * n_features)))]


def classifier_labels(X: np.ndarray, y: np.ndarray, seed,
                      train_fraction: float = TRAIN_FRACTION) -> tuple[np.ndarray, np.ndarray]:
    """A random split (stratified by class: every class is seen in training), the ten classifiers fitted on the
    training part, one thread each; returns (labels (n_test, 10) int64, truth (n_test,) int64) on the test part."""
    require(X.ndim == 2 and y.shape == (X.shape[0],), f"X {X.shape} and y {y.shape} disagree")
    train_fraction = real_number("train_fraction", train_fraction, 0.0, 1.0)
    g = generator(seed)
    train = np.zeros(y.size, dtype=bool)
    for k in np.unique(y):
        members = np.flatnonzero(y == k)
        n_k = max(1, int(round(train_fraction * members.size)))
        train[g.choice(members, size=n_k, replace=False)] = True
    from threadpoolctl import threadpool_limits
    models = table8_classifiers(int(train.sum()), X.shape[1])
    with threadpool_limits(limits=1):  # OpenMP threads of k-NN would oversubscribe parallel trials (5x slower)
        labels = np.column_stack([m.fit(X[train], y[train]).predict(X[~train]) for m in models])
    return labels.astype(np.int64), y[~train].astype(np.int64)
