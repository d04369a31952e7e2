"""Assembly: a plan's cell outputs -> one ``xarray.Dataset`` (grid dims x replicate x each output's declared
dims; scalar parameters as scalar coordinates; provenance in attrs)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from .provenance import dataset_attrs
from .sweep import coordinate_name_clash

if TYPE_CHECKING:
    from .sweep import Plan


def _output_dims(p: Plan, name: str, value: np.ndarray) -> tuple[str, ...]:
    """The dims of one output beyond grid x replicate (declared in Sweep.outputs)."""
    if value.ndim == 0:
        return ()
    dims = tuple(p.claim.sweep.outputs.get(name, ()))
    if not dims:
        raise ValueError(f"{p.claim.id}: output {name!r} is an array of shape {value.shape} "
                         "but Sweep.outputs does not declare its dims")
    if len(dims) != value.ndim:
        raise ValueError(f"{p.claim.id}: output {name!r} has shape {value.shape} but is declared with dims {dims}")
    return dims


def _output_coord(params: dict, dim: str, size: int) -> np.ndarray:
    """params[dim] when it is a list of ``size`` values (numbers or strings), else 0..size-1."""
    given = params.get(dim)
    return np.asarray(given) if isinstance(given, list) and len(given) == size else np.arange(size)


def assemble(p: Plan, results: dict) -> xr.Dataset:
    """One Dataset: each output has dims grid dims x replicate (x its declared output dims);
    scalar parameters (measure defaults included) are scalar coordinates; provenance in attrs."""
    grid_dims = [d for d, _ in p.dims] + ["replicate"]
    shape = [len(v) for _, v in p.dims] + [p.replicates]
    params = p.tasks[0].params
    coords: dict[str, Any] = {d: v for d, v in p.dims}
    coords["replicate"] = np.arange(p.replicates)
    data = {}
    for name, value in results[p.tasks[0].key].items():
        if name in coords or name in params:
            raise coordinate_name_clash(p.claim.id, name)
        dims = _output_dims(p, name, value)
        arr = np.full(shape + list(value.shape), np.nan)
        for t in p.tasks:
            arr[t.index + (t.replicate,)] = results[t.key][name]
        data[name] = (grid_dims + list(dims), arr)
        for dim, size in zip(dims, value.shape):
            coords.setdefault(dim, _output_coord(params, dim, size))
    for dim, group in p.zipped.items():
        for param, values in group.items():
            coords[param] = (dim, list(values))
    for name, value in params.items():  # fixed parameters and defaults as scalar coordinates
        if name not in coords and value is not None and not isinstance(value, (list, dict)):
            coords[name] = value
    ds = xr.Dataset(data, coords=coords, attrs=dataset_attrs(p))
    ds["replicate"].attrs["description"] = "independent Monte Carlo replicate (own seed)"
    return ds
