"""Kernels of crowdsourced label aggregation (Ibrahim & Fu 2021 and its baselines).

Answers are three int64 arrays of length n: item, worker, label (0-based codes). ``item_ptr`` (n_items + 1,) and
``order`` (n,) list the answers item by item (answers of item i are order[item_ptr[i]:item_ptr[i+1]]). Every
kernel is serial and loops in a fixed order, so results do not depend on the thread count.

Modules: ``counts`` (Eq. 3), ``dawid_skene`` (E- and M-steps, evidence), ``imputation`` (Eq. 7-8, criterion 9),
``factorization`` (Eq. 13, CNMF), ``minimax`` (minimax conditional entropy), ``kos``, ``spectral`` (Spectral-D&S's
tensor power method), ``tensor`` (TensorADMM), ``draws`` (answers drawn from the streams). The names below are the
package's public kernels.
"""
from .counts import cooccurrence_counts, two_workers_share_an_item
from .dawid_skene import (
    CLIP,
    confusion_from_posteriors,
    evidence_lower_bound,
    log_evidence,
    map_posteriors,
    posteriors_and_bound,
    rows_from_log,
)
from .draws import draw_answers, draw_observed
from .factorization import coupled_kl_sweeps, shifted_relu_symnmf
from .imputation import TRIANGLE_TRIES, TRIANGLE_WIDTH, designated_imputation, robust_imputation
from .kos import kos_messages
from .minimax import expected_log_likelihood, marginal_log_likelihood

__all__ = ["CLIP", "TRIANGLE_TRIES", "TRIANGLE_WIDTH", "confusion_from_posteriors", "cooccurrence_counts",
           "coupled_kl_sweeps", "designated_imputation", "draw_answers", "draw_observed", "evidence_lower_bound",
           "expected_log_likelihood", "kos_messages", "log_evidence", "map_posteriors", "marginal_log_likelihood",
           "posteriors_and_bound", "robust_imputation", "rows_from_log", "shifted_relu_symnmf",
           "two_workers_share_an_item"]
