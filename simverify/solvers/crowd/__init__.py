"""Label aggregation of crowdsourced answers: Ibrahim & Fu (2021)'s SymNMF family and its baselines.

Layers: ``cooccurrence`` (Eq. 3, 6), ``symnmf`` (Eq. 13), ``pipeline`` (imputations and model learning; MultiSPA, CNMF),
``votes`` (answer-level baselines: MV, EM, minimax entropy, KOS, GhoshSVD, EigenRatio), ``spectral``
(Spectral-D&S's third-order moments), ``model`` (the Dawid-Skene model, extraction, alignment, start smoothing),
``methods`` (every method by name), ``estimators`` (crowd-kit-shaped classes on pandas frames)."""
from .cooccurrence import cooccurrences, observed_blocks, square_root
from .methods import METHODS, Aggregation, aggregate
from .model import DawidSkeneModel, align_to_diagonal, from_symnmf_factor
from .symnmf import ALPHA_SCHEDULES, alpha_schedule, symnmf
from .votes import dawid_skene, majority_vote, vote_counts

__all__ = ["ALPHA_SCHEDULES", "Aggregation", "DawidSkeneModel", "METHODS", "aggregate", "align_to_diagonal",
           "alpha_schedule", "cooccurrences", "dawid_skene", "from_symnmf_factor", "majority_vote",
           "observed_blocks", "square_root", "symnmf", "vote_counts"]
