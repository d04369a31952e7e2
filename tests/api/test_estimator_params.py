"""scikit-learn's parameter protocol on every estimator (``validation.ParamsMixin``): get_params returns the
constructor's arguments, set_params sets them and refuses unknown names, and sklearn.base.clone copies them."""
import inspect

import pytest
from sklearn.base import clone

from simverify.solvers import factorization_machine, nmf, nmf_sklearn
from simverify.solvers.crowd.estimators import ESTIMATORS

CLASSES = [nmf.AND, nmf.MultiplicativeUpdate, nmf.HALS, nmf.ANLS, nmf_sklearn.SklearnNMF, nmf_sklearn.OnlineLDA,
           factorization_machine.FactorizationMachine, *ESTIMATORS.values()]


def _arguments(cls) -> dict:
    """The constructor's named arguments (a class without its own __init__ has none)."""
    return {n: p for n, p in inspect.signature(cls.__init__).parameters.items()
            if n != "self" and p.kind == p.POSITIONAL_OR_KEYWORD}


def _made(cls):
    required = [n for n, p in _arguments(cls).items() if p.default is inspect.Parameter.empty]
    return cls(**{name: 3 for name in required})  # n_components, the only required argument


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_get_params_set_params_and_clone_follow_the_constructor(cls):
    est = _made(cls)
    names = list(_arguments(cls))
    params = est.get_params()
    assert list(params) == names
    copy = clone(est)
    assert type(copy) is cls and copy is not est and copy.get_params() == params
    if names:
        assert est.set_params(**{names[0]: params[names[0]]}) is est
    with pytest.raises(ValueError, match=rf"^{cls.__name__}: no parameter 'bogus'; parameters: "):
        est.set_params(bogus=1)


def test_set_params_changes_what_fit_uses():
    from simverify.datasets import crowd
    frame = crowd.to_frame(crowd.shipped("bluebird"))
    model = ESTIMATORS["MinimaxEntropy"]().set_params(alpha=0.5, beta=2.0).fit(frame)
    assert (model.alpha_, model.beta_) == (0.5, 2.0)
