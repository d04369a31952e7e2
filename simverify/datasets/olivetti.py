"""The Olivetti faces (AT&T Laboratories Cambridge), shipped as ``data/olivettifaces.mat`` (see
``data/PROVENANCE.md``): Li & Liang (2017), Figure 5, decompose them into six components.

A user file in the same layout is accepted: a MATLAB (v4 to v7) file with a variable ``faces``, uint8 of shape
(side * side, n_images), one square image per column with its pixels in column-major (MATLAB) order.
Malformed files are refused with one line ``file: problem``."""
from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..validation import positive_int, require

FACES_SHA256 = "b1988d02c72fe5b8ee82b5ef3bb7982eafc74f1e1ff0ae0ade35061ad0af534d"
"""sha256 of the shipped ``olivettifaces.mat`` (the copy in data/PROVENANCE.md)."""


def default_path() -> Path:
    """The shipped file, ``simverify/datasets/data/olivettifaces.mat``."""
    return Path(__file__).resolve().parent / "data" / "olivettifaces.mat"


def file_sha256(path: str | os.PathLike) -> str:
    """Hex sha256 of the file at ``path``."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:80]}" if text else type(err).__name__


def load_faces(path: str | os.PathLike | None = None) -> np.ndarray:
    """Faces (n_images, side * side) float64 in [0, 1] (pixel / 255): row j is image j upright, flattened in
    row-major order, i.e. ``faces[:, j].reshape(side, side).T.ravel() / 255`` of the file's variable ``faces``
    (side * side, n_images). ``path`` None reads the shipped file: (400, 4096), 64 x 64 images."""
    from scipy.io import loadmat, whosmat

    path = default_path() if path is None else Path(path)
    require(path.is_file(), f"{path}: no such file")
    try:
        data = loadmat(path, variable_names=["faces"], appendmat=False)
    except OSError as err:
        raise ValueError(f"{path}: cannot be read ({err.strerror or err})") from None
    except NotImplementedError:  # scipy's refusal of v7.3 files
        raise ValueError(f"{path}: a MATLAB v7.3 (HDF5) file, which scipy.io.loadmat cannot read; "
                         "save it with -v7") from None
    except Exception as err:  # scipy raises ValueError, IndexError, MatReadError, ... on non-MATLAB bytes
        raise ValueError(f"{path}: not a MATLAB file ({_first_line(err)})") from None
    if "faces" not in data:
        names = ", ".join(name for name, _, _ in whosmat(path, appendmat=False)) or "none"
        raise ValueError(f"{path}: no variable 'faces' (variables: {names})")
    faces = data["faces"]
    require(isinstance(faces, np.ndarray) and faces.dtype == np.uint8,
            f"{path}: 'faces' must be uint8 pixels (0..255), got "
            f"{f'dtype {faces.dtype}' if isinstance(faces, np.ndarray) else type(faces).__name__}")
    require(faces.ndim == 2, f"{path}: 'faces' must be 2-d (pixels, images), got shape {faces.shape}")
    n_pixels, n_images = faces.shape
    side = _square_side(n_pixels)
    require(side > 0, f"{path}: 'faces' has {n_pixels} rows, not a square number side * side of pixels")
    require(n_images > 0, f"{path}: 'faces' has no images (0 columns)")
    upright = faces.T.reshape(n_images, side, side).transpose(0, 2, 1)  # each column-major image, transposed
    return upright.reshape(n_images, side * side) / 255.0


def _square_side(n_pixels: int) -> int:
    """side if n_pixels = side * side with side >= 1, else 0."""
    side = math.isqrt(n_pixels) if n_pixels > 0 else 0
    return side if side * side == n_pixels else 0


def image_shape(faces: npt.ArrayLike) -> tuple[int, int]:
    """(side, side) of faces (n_images, side * side), as returned by :func:`load_faces`."""
    shape = np.shape(faces)
    require(len(shape) == 2, f"faces must be a 2-d array (n_images, side * side), got shape {shape}")
    side = _square_side(shape[1])
    require(side > 0, f"faces have {shape[1]} pixels per image, not a square number side * side")
    return side, side


def montage(images: npt.ArrayLike, shape: tuple[int, int], n_cols: int, pad: int = 1) -> np.ndarray:
    """Tile images (n, height * width), each a row-major flattened image of ``shape`` (height, width), into a
    float64 grid of rows = ceil(n / n_cols) by n_cols tiles, filled row by row, for display (``imshow``).
    Tiles are separated by ``pad`` NaN pixels (none around the border) and cells past the last image are NaN:
    the result has shape (rows * height + (rows - 1) * pad, n_cols * width + (n_cols - 1) * pad)."""
    arr = np.asarray(images)
    if not (arr.ndim == 2 and arr.dtype.kind in "iuf"):  # message only on failure
        raise ValueError(f"images must be a real 2-d array (n_images, height * width), "
                         f"got dtype {arr.dtype} and shape {arr.shape}")
    require(arr.shape[0] > 0, "images must hold at least one image, got 0 rows")
    require(isinstance(shape, (tuple, list)) and len(shape) == 2, f"shape must be (height, width), got {shape!r}")
    h, w = positive_int("image height", shape[0]), positive_int("image width", shape[1])
    require(arr.shape[1] == h * w,
            f"images have {arr.shape[1]} pixels per row but shape ({h}, {w}) has {h * w}")
    n_cols = positive_int("n_cols", n_cols)
    require(isinstance(pad, (int, np.integer)) and not isinstance(pad, bool) and pad >= 0,
            f"pad must be a non-negative integer, got {pad!r}")
    pad = int(pad)
    rows = -(-arr.shape[0] // n_cols)
    out = np.full((rows * h + (rows - 1) * pad, n_cols * w + (n_cols - 1) * pad), np.nan)
    for k, img in enumerate(arr):
        r, c = divmod(k, n_cols)
        out[r * (h + pad):r * (h + pad) + h, c * (w + pad):c * (w + pad) + w] = img.reshape(h, w)
    return out
