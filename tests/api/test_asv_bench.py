"""The asv benchmark suite is well formed and every benchmark runs once at its size (nothing is timed)."""
from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

PREFIXES = ("time_", "timeraw_", "peakmem_", "track_", "mem_")
CHEAP_MODULES = ["bench_kernels", "bench_solvers"]  # the goal, tier and compile benchmarks run for minutes


@pytest.fixture(scope="module", autouse=True)
def _on_path():
    sys.path.insert(0, str(ROOT / "asv_bench"))
    yield
    sys.path.remove(str(ROOT / "asv_bench"))


def _benchmarks(module):
    for name, obj in vars(module).items():
        if inspect.isclass(obj) and obj.__module__ == module.__name__:
            for attr in vars(obj):
                if attr.startswith(PREFIXES):
                    yield obj, attr
        elif inspect.isfunction(obj) and name.startswith(PREFIXES) and obj.__module__ == module.__name__:
            yield None, name


def test_every_benchmark_module_imports_and_every_public_class_holds_benchmarks():
    modules = sorted(p.stem for p in (ROOT / "asv_bench" / "benchmarks").glob("bench_*.py"))
    assert {"bench_goals", "bench_kernels", "bench_solvers", "bench_tiers", "bench_onebit", "bench_slm"} <= set(modules)
    for name in modules:
        module = importlib.import_module(f"benchmarks.{name}")
        classes = [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]
        for cls in classes:
            assert any(a.startswith(PREFIXES) for a in vars(cls)), f"{name}.{cls.__name__} has no benchmark"


def test_every_goal_is_a_pair_of_ours_and_the_numpy_reference():
    module = importlib.import_module("benchmarks.bench_goals")
    names = {attr for _, attr in _benchmarks(module)}
    ours = {n[len("time_ours_"):] for n in names if n.startswith("time_ours_")}
    assert ours == {"standard_normal_1e7", "surrogate_n100_m1e6"}
    assert all(f"time_numpy_{x}" in names for x in ours)


def test_onebit_numpy_reference_is_algorithm1_it_recovers_w_star_like_ours():
    import numpy as np

    from simverify.generators import onebit as gen
    from simverify.solvers import onebit as sol
    module = importlib.import_module("benchmarks.bench_onebit")
    W_star = gen.gaussian_model_matrix(40, 10, 2, 0)
    ref = module.algorithm1_numpy_reference(W_star, 2, 20_000, 6, 1)
    *_, (_, ours) = sol.algorithm1(gen.SingleLabelModel(W_star), 2, 20_000, 6, 1)
    e_ref, e_ours = (np.linalg.norm(W - W_star, 2) for W in (ref, ours.W))
    assert e_ref < 0.3 and 0.5 < e_ref / e_ours < 2.0


@pytest.mark.parametrize("dense", [False, True])
def test_slm_numpy_references_agree_with_the_streamed_pass_in_expectation(dense):
    import numpy as np

    from simverify.generators import slm as gen
    module = importlib.import_module("benchmarks.bench_slm")
    model = gen.low_rank_model(15, 2, gen.FeatureDistribution("gaussian"), 0)
    w, U, V = module._state(15, 2)
    ours = module.one_pass(model, 200_000, w, U, V)
    ref = module.one_pass_numpy(model, 200_000, w, U, V, dense=dense)   # other normals: agreement within MC error
    for a, b in zip(ours, ref):
        assert np.max(np.abs(np.asarray(a) - np.asarray(b))) < 0.1
    exact = module.one_pass_numpy(model, 3000, w, U, V, seed=5, batch=1000, dense=dense)
    other = module.one_pass_numpy(model, 3000, w, U, V, seed=5, batch=1000, dense=not dense)
    for a, b in zip(exact, other):                                        # the two references: the same numbers
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_fastfm_loop_reference_takes_the_same_coordinate_steps_as_our_als_sweep():
    """The benchmark's stand-in for fastFM's V update and our sweep's V part reach the same V, residual and cache
    (to rounding) from the same state, and the reference lowers the loss (its residual update has fastFM's sign)."""
    import numpy as np
    from numba import njit

    from simverify.kernels.fm import als_sweep
    module = importlib.import_module("benchmarks.bench_slm")
    rng = np.random.default_rng(0)
    n, d, k = 300, 7, 2
    Xc = rng.standard_normal((d, n))
    V0, e0 = 0.3 * rng.standard_normal((d, k)), rng.standard_normal(n)
    indptr, indices = np.arange(0, n * d + 1, n, dtype=np.int64), np.tile(np.arange(n, dtype=np.int32), d)
    reference = njit(module.fastfm_loop_als_sweep)
    V, e, Qt = V0.copy(), e0.copy(), V0.T @ Xc
    for _ in range(2):
        reference(indptr, indices, Xc.reshape(-1), e, Qt, V, np.empty(n))
    assert e @ e < e0 @ e0
    V2, e2, Qt2, w = V0.copy(), e0.copy(), V0.T @ Xc, np.zeros(d)
    for _ in range(2):  # w0 and w held at zero by a penalty no residual can move: the V part alone
        als_sweep(Xc, e2, Qt2, 0.0, w, V2, 1e300, 1e300, 0.0)
    for a, b in ((V, V2), (e, e2), (Qt, Qt2)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("module_name", CHEAP_MODULES)
@pytest.mark.slow
def test_kernel_and_solver_benchmarks_run_once(module_name):
    module = importlib.import_module(f"benchmarks.{module_name}")
    ran = 0
    for cls, attr in _benchmarks(module):
        bench = cls()
        bench.setup()
        getattr(bench, attr)()
        ran += 1
    assert ran >= 6


def test_ratios_reads_an_asv_results_file_and_states_whether_goals_are_met(tmp_path):
    ratios = importlib.import_module("ratios")
    run = tmp_path / "machine" / "abcdef12-existing-py.json"
    run.parent.mkdir()
    run.write_text(json.dumps({"result_columns": ["result", "params"], "results": {
        "bench_goals.Surrogate.time_ours_surrogate_n100_m1e6": [[1.0], []],
        "bench_goals.Surrogate.time_numpy_surrogate_n100_m1e6": [[4.0], []],
        "bench_goals.RNG.time_ours_standard_normal_1e7": [[0.1], []],
        "bench_goals.RNG.time_numpy_standard_normal_1e7": [[0.35], []],
        "bench_goals.Surrogate.track_fraction_of_limit_surrogate_n100_m1e6": [[0.8], []]}}))
    lines = ratios.table(ratios.values(run))
    surrogate = next(line for line in lines if line.startswith("surrogate_n100_m1e6") and "x " in line)
    normals = next(line for line in lines if line.startswith("standard_normal_1e7"))
    assert "4.00x" in surrogate and surrogate.endswith("NOT MET")
    assert "3.50x" in normals and normals.endswith("  MET")
    assert any(line.startswith("surrogate_n100_m1e6") and line.endswith("0.80") for line in lines)
    assert ratios.main(["--results", str(tmp_path / "none")]) == 2


# --- the offline step for asv publish (asv_bench/offline.py) ------------------------------------------------

def _fake_tarball(package, content):
    """A gzipped npm-style tarball (files under package/) holding ``content`` {path: bytes}."""
    import io
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for rel, data in content.items():
            info = tarfile.TarInfo(f"package/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _fake_packages(offline, cache):
    """Fake tarballs of every pinned package in ``cache``, with the packages' integrities replaced by theirs;
    returns the {vendored path: bytes} the step should copy."""
    import dataclasses
    files, packages = {}, {}
    for name, package in offline.PACKAGES.items():
        content = {rel: f"/* {name} {rel} */\n".encode() for rel in (*package.files, package.license)}
        data = _fake_tarball(package, content)
        cache.mkdir(parents=True, exist_ok=True)
        (cache / package.tarball).write_bytes(data)
        packages[name] = dataclasses.replace(package, integrity=offline.sri(data, "sha512"))
        files.update({f"{package.dir}/{rel}": body for rel, body in content.items()})
    return packages, files


def _fake_page(offline, files):
    """asv's page head as asv 0.6.6 writes it: every CDN reference with integrity / crossorigin attributes."""
    lines = ['<!doctype html><html><head>', '<script>function js_load_failure() {}</script>']
    for asset in offline.ASSETS:
        body = files[f"{asset.package.dir}/{asset.path}"]
        attrs = f'integrity="{offline.sri(body, "sha256")}" crossorigin="anonymous" referrerpolicy="no-referrer"'
        if asset.path.endswith(".css"):
            lines.append(f'<link rel="stylesheet" href="{asset.cdn}" {attrs}>')
        else:
            lines.append(f'<script src="{asset.cdn}" {attrs} onerror="js_load_failure()"></script>')
    lines += ['<script src="asv.js"></script>', '</head><body>',
              '<a href="https://github.com/airspeed-velocity/asv/">airspeed velocity</a></body></html>']
    return "\n".join(lines) + "\n"


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """The offline module with fake packages in a temporary cache (no network)."""
    module = importlib.import_module("offline")
    packages, files = _fake_packages(module, tmp_path / "cache")
    monkeypatch.setattr(module, "PACKAGES", packages)
    return module, files


CDN_REFERENCE = r"<(?:script|link)\b[^>]*\s(?:src|href)=[\"']?(?:https?:)?//"


def test_offline_step_leaves_no_cdn_reference_and_every_local_copy_exists(offline, tmp_path):
    import re
    module, files = offline
    html = tmp_path / "html"
    (html / "graphs" / "summary").mkdir(parents=True)
    page = _fake_page(module, files)
    (html / "index.html").write_text(page)
    (html / "error.html").write_text("<html><body>error</body></html>\n")
    (html / "asv.js").write_text("/* asv */\n")
    (html / "info.json").write_text(json.dumps({"timestamp": 1}))
    (html / "graphs" / "summary" / "x.json").write_text(json.dumps([[1, 2.5], [2, None]]))
    assert len(re.findall(CDN_REFERENCE, page)) == len(module.ASSETS)

    assert module.main(["--html", str(html), "--cache", str(tmp_path / "cache"), "--no-download"]) == 0
    out = (html / "index.html").read_text()
    assert re.findall(CDN_REFERENCE, out) == [] and module.remote_references(html) == []
    assert "integrity=" not in out and "crossorigin=" not in out            # file:// refuses CORS-mode fetches
    assert "https://github.com/airspeed-velocity/asv/" in out               # a plain link is left alone
    local = re.findall(r"<(?:script|link)\b[^>]*\s(?:src|href)=\"([^\"]+)\"", out)
    assert len(local) == len(module.ASSETS) + 3                             # + asv.js, the data and the shim
    assert all((html / src).is_file() for src in local)
    for path, body in files.items():                                        # each file and each licence copied
        assert (html / path).read_bytes() == body
    # the data script and its shim come right after jQuery, before flot needs either
    assert re.search(r"jquery\.min\.js\"[^>]*></script>\s*<script src=\"offline-data\.js\"></script>\s*"
                     r"<script src=\"offline-ajax\.js\"></script>", out)
    data = (html / "offline-data.js").read_text()
    table = json.loads(data[data.index("{"):data.rindex("}") + 1])
    assert table["info.json"] == {"timestamp": 1} and table["graphs/summary/x.json"] == [[1, 2.5], [2, None]]

    before = {p: p.read_bytes() for p in html.rglob("*") if p.is_file()}   # idempotent
    assert module.main(["--html", str(html), "--cache", str(tmp_path / "cache"), "--no-download"]) == 0
    assert {p: p.read_bytes() for p in html.rglob("*") if p.is_file()} == before


def test_offline_step_reports_an_unknown_cdn_a_bad_tarball_and_no_pages(offline, tmp_path, capsys):
    module, files = offline
    html = tmp_path / "html"
    html.mkdir()
    assert module.main(["--html", str(html), "--cache", str(tmp_path / "cache"), "--no-download"]) == 2
    page = _fake_page(module, files).replace(
        "</head>", '<script src="https://cdn.example.org/new-lib-1.0.min.js"></script>\n</head>')
    (html / "index.html").write_text(page)
    assert module.main(["--html", str(html), "--cache", str(tmp_path / "cache"), "--no-download"]) == 1
    err = capsys.readouterr().err
    assert "no local copy of https://cdn.example.org/new-lib-1.0.min.js" in err and "remote reference left" in err
    jquery = tmp_path / "cache" / module.PACKAGES["jquery"].tarball
    jquery.write_bytes(jquery.read_bytes() + b"tampered")
    assert module.main(["--html", str(html), "--cache", str(tmp_path / "cache"), "--no-download"]) == 2
    assert "sha512 differs" in capsys.readouterr().err


def test_offline_step_knows_every_cdn_reference_of_the_installed_asv():
    """asv's own page template: every script and stylesheet it loads from a CDN has a pinned local copy
    (an asv upgrade that adds or moves one fails here)."""
    import re
    asv = pytest.importorskip("asv")
    module = importlib.import_module("offline")
    template = (Path(asv.__file__).parent / "www" / "index.html").read_text()
    urls = re.findall(r"<(?:script|link)\b[^>]*\s(?:src|href)=\"((?:https?:)?//[^\"]+)\"", template)
    assert urls and set(urls) == set(module.BY_URL)


def test_offline_step_with_the_real_npm_packages_matches_the_cdn_files(tmp_path):
    """With the real tarballs in the default cache (fetched once by ``python asv_bench/offline.py``; the
    test does not download): the files asv's page pins by hash are byte-identical to the npm ones."""
    import re
    asv = pytest.importorskip("asv")
    module = importlib.import_module("offline")
    cache = module.default_cache()
    if not all((cache / p.tarball).exists() for p in module.PACKAGES.values()):
        pytest.skip(f"npm tarballs not cached in {cache} (run python asv_bench/offline.py once)")
    html = tmp_path / "html"
    html.mkdir()
    (html / "index.html").write_text((Path(asv.__file__).parent / "www" / "index.html").read_text())
    assert module.make_offline(html, cache, download=False) == []           # includes the SRI comparison
    assert re.findall(CDN_REFERENCE, (html / "index.html").read_text()) == []


# --- claim estimates across commits (bench_claims) ----------------------------------------------------------

def _claim_classes():
    module = importlib.import_module("benchmarks.bench_claims")
    return [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]


def test_claim_tracks_cover_every_paper_and_declare_units_and_timeouts():
    classes = _claim_classes()
    claims = [cid for cls in classes for cid in cls.CLAIMS]
    assert {cid.split(".")[0] for cid in claims} >= {"andnmf", "bitsubspace", "onebit", "slm", "crowd"}
    for cls in classes:
        tracks = [a for a in vars(cls) if a.startswith("track_")]
        assert tracks and all(getattr(cls, a).unit for a in tracks)
        assert cls.setup_cache.timeout >= 60 and cls.timeout > 0
        named = {cid.split(".", 1)[1].replace(".", "_").replace("-", "_") for cid in cls.CLAIMS}
        assert all(any(a.endswith(n) for n in named) for a in tracks)      # each track names its claim
        assert {n for n in named if any(a.endswith(n) for a in tracks)} == named


@pytest.fixture(scope="module")
def claim_results():
    """Each class's setup_cache run once (the quick tier of its claims, serially): ~10-30 s in all."""
    return {cls: cls().setup_cache() for cls in _claim_classes()}


@pytest.mark.slow
def test_every_claim_track_returns_a_finite_number(claim_results):
    import math
    ran = 0
    for cls, result in claim_results.items():
        for cid, (est, lo, hi) in result.items():
            assert lo <= est <= hi, cid
        bench = cls()
        for attr in (a for a in vars(cls) if a.startswith("track_")):
            value = getattr(bench, attr)(result)
            assert isinstance(value, float) and math.isfinite(value), f"{cls.__name__}.{attr} = {value!r}"
            assert value >= 0 or "estimate" in attr
            ran += 1
    assert ran >= 9
