"""The Olivetti faces reader on the shipped file and on small files in the same layout that the test writes."""
import hashlib
import re

import numpy as np
import pytest
import scipy.io as sio

from simverify.datasets import olivetti as ol


@pytest.fixture(scope="module")
def faces():
    return ol.load_faces()


def save_faces(path, upright_images):
    """Write images (n, side, side) uint8 in the published layout: one column per image, column-major pixels."""
    sio.savemat(path, {"faces": np.stack([img.ravel(order="F") for img in upright_images], axis=1)})
    return path


def test_shipped_file_sha256_equals_FACES_SHA256():
    assert hashlib.sha256(ol.default_path().read_bytes()).hexdigest() == ol.FACES_SHA256
    assert ol.file_sha256(ol.default_path()) == ol.FACES_SHA256


def test_load_faces_returns_400_float64_images_of_4096_pixels_in_0_1(faces):
    assert faces.shape == (400, 4096)
    assert faces.dtype == np.float64
    assert faces.min() >= 0.0 and faces.max() <= 1.0


def test_image_shape_of_the_shipped_faces_is_64_by_64(faces):
    assert ol.image_shape(faces) == (64, 64)


def test_load_faces_row_j_is_the_readme_recipe_for_image_j_divided_by_255(faces):
    raw = sio.loadmat(ol.default_path())["faces"]
    assert raw.shape == (4096, 400) and raw.dtype == np.uint8
    for j in (0, 1, 217, 399):
        np.testing.assert_array_equal(faces[j], raw[:, j].reshape(64, 64).T.ravel() / 255.0)


def test_shipped_mean_face_is_left_right_symmetric_and_brighter_in_its_top_half(faces):
    # A transposed (sideways) face would be symmetric top-bottom instead; an upside-down one darker on top.
    mean = faces.mean(axis=0).reshape(64, 64)

    def corr(a, b):
        return np.corrcoef(a.ravel(), b.ravel())[0, 1]

    assert corr(mean, mean[:, ::-1]) > 0.8 > 0.3 > corr(mean, mean[::-1, :])
    assert mean[:32].mean() > mean[32:].mean() + 0.05


def test_a_user_file_of_5_images_of_8x8_loads_as_5_rows_of_64_upright_pixels(tmp_path):
    images = np.random.default_rng(0).integers(0, 256, size=(5, 8, 8), dtype=np.uint8)
    loaded = ol.load_faces(save_faces(tmp_path / "mine.mat", images))
    assert loaded.shape == (5, 64) and ol.image_shape(loaded) == (8, 8)
    np.testing.assert_array_equal(loaded, images.reshape(5, 64) / 255.0)


def _text(path):
    path.write_text("faces\n1 2 3\n", encoding="utf-8")


def _no_faces(path):
    sio.savemat(path, {"pixels": np.zeros((64, 3), np.uint8)})


def _not_square(path):
    sio.savemat(path, {"faces": np.zeros((63, 3), np.uint8)})


def _three_d(path):
    sio.savemat(path, {"faces": np.zeros((64, 3, 2), np.uint8)})


def _float(path):
    sio.savemat(path, {"faces": np.zeros((64, 3))})


@pytest.mark.parametrize("name, write, problem", [
    ("absent.mat", None, "no such file"),
    ("notes.txt", _text, "not a MATLAB file"),
    ("other.mat", _no_faces, "no variable 'faces' (variables: pixels)"),
    ("odd.mat", _not_square, "63 rows, not a square number"),
    ("cube.mat", _three_d, "must be 2-d (pixels, images), got shape (64, 3, 2)"),
    ("real.mat", _float, "must be uint8 pixels (0..255), got dtype float64"),
])
def test_malformed_file_is_refused_with_a_value_error_naming_the_file_and_the_problem(tmp_path, name, write, problem):
    path = tmp_path / name
    if write is not None:
        write(path)
    with pytest.raises(ValueError) as info:
        ol.load_faces(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message


def test_montage_of_6_images_3_per_row_places_each_image_in_its_tile_with_nan_padding_between():
    side, pad = 4, 2
    images = np.arange(6 * side * side, dtype=float).reshape(6, side * side)
    grid = ol.montage(images, (side, side), 3, pad=pad)
    assert grid.shape == (2 * side + pad, 3 * side + 2 * pad)
    for k in range(6):
        r, c = divmod(k, 3)
        tile = grid[r * (side + pad):r * (side + pad) + side, c * (side + pad):c * (side + pad) + side]
        np.testing.assert_array_equal(tile, images[k].reshape(side, side))
    assert np.isnan(grid[side:side + pad]).all()
    assert np.isnan(grid[:, side:side + pad]).all() and np.isnan(grid[:, 2 * side + pad:2 * side + 2 * pad]).all()
    assert np.isnan(grid).sum() == grid.size - 6 * side * side


def test_montage_fills_the_cells_after_the_last_image_with_nan():
    grid = ol.montage(np.ones((4, 9)), (3, 3), 3, pad=1)
    assert grid.shape == (7, 11)
    assert np.isnan(grid[4:, 4:]).all() and not np.isnan(grid[4:, :3]).any()


@pytest.mark.parametrize("kwargs, message", [
    ({"images": np.ones(16)}, "images must be a real 2-d array"),
    ({"images": np.ones((0, 16))}, "images must hold at least one image"),
    ({"shape": (4, 4, 1)}, "shape must be (height, width)"),
    ({"shape": (0, 16)}, "image height must be a positive integer"),
    ({"shape": (2, 4)}, "images have 16 pixels per row but shape (2, 4) has 8"),
    ({"n_cols": 0}, "n_cols must be a positive integer"),
    ({"n_cols": 2.0}, "n_cols must be a positive integer"),
    ({"pad": -1}, "pad must be a non-negative integer"),
    ({"pad": True}, "pad must be a non-negative integer"),
])
def test_montage_refuses_bad_arguments_with_a_value_error_naming_the_argument(kwargs, message):
    args = {"images": np.ones((3, 16)), "shape": (4, 4), "n_cols": 2, "pad": 1} | kwargs
    with pytest.raises(ValueError, match=re.escape(message)):
        ol.montage(**args)


def test_image_shape_refuses_a_non_square_pixel_count():
    with pytest.raises(ValueError, match="faces have 63 pixels per image, not a square number"):
        ol.image_shape(np.zeros((2, 63)))
