"""Aggregators with crowd-kit's shape: ``fit(data)`` on a pandas DataFrame with columns ``task, worker, label``;
``labels_`` (Series indexed by task, named 'agg_label'), ``probas_`` (DataFrame, tasks x labels), and for the
Dawid-Skene methods ``priors_`` (Series indexed by label, named 'prior') and ``errors_`` (DataFrame indexed by
(worker, label) observed, columns the true labels). ``fit_predict`` and ``fit_predict_proba`` return labels_ and
probas_. A crowd-kit user switches with one import: ``from simverify.solvers.crowd.estimators import
DawidSkene``. ``get_params`` and ``set_params`` follow scikit-learn (``sklearn.base.clone`` copies an
estimator). Ties in ``labels_`` go to the first label in sorted order.

A shipped data set as such a frame: ``datasets.crowd.to_frame(datasets.crowd.shipped("bluebird"))``; the examples'
six tasks: ``example_answers()``. One method per module (crowd-kit's convention), on ``_base._Aggregator``.

Recommended: ``DawidSkene`` (the CLI's ``mv-em``): on the seven shipped sets it is never more than 0.92 point
behind ``RobSymNMF(em=True, smoothing=0.01)`` (``robsymnmf-em-smoothed``; 0.01 is ``model.START_SMOOTHING``), and
17.8 and 16.5 points ahead of it on the sparse many-class sets web and LabelMe, where the SymNMF family fails
(docs/findings/crowd.md). Each estimator's defaults are the method of its name in the paper and in
``methods.METHODS`` (``RobSymNMF()`` is ``robsymnmf``: MAP, no EM), and ``RobSymNMF(weighted=False)``, which has no EM
variant, stays valid."""
from ._base import _Aggregator
from .auto import AutoAggregator
from .cnmf import CNMF
from .dawid_skene import DawidSkene
from .des_sym_nmf import DesSymNMF
from .eigen_ratio import EigenRatio
from .examples import example_answers
from .ghosh_svd import GhoshSVD
from .kos import KOS
from .majority_vote import MajorityVote
from .minimax_entropy import MinimaxEntropy, MinimaxEntropyCV
from .multispa import MultiSPA
from .rob_sym_nmf import RobSymNMF
from .spectral_ds import SpectralDS
from .sym_nmf import SymNMF
from .tensor_admm import TensorADMM

ESTIMATORS: dict[str, type[_Aggregator]] = {
    cls.__name__: cls for cls in (MajorityVote, DawidSkene, SymNMF, DesSymNMF, RobSymNMF, MultiSPA, CNMF, SpectralDS,
                                  TensorADMM, MinimaxEntropy, MinimaxEntropyCV, KOS, GhoshSVD, EigenRatio,
                                  AutoAggregator)}
__all__ = [*ESTIMATORS, "ESTIMATORS", "example_answers"]
