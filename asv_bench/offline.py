"""Make the pages of ``asv publish`` work offline, opened straight from disk (file://).

asv 0.6's ``index.html`` loads jQuery, flot, bootstrap and three small libraries from public CDNs, and
its scripts read the published JSON (``info.json``, ``index.json``, ``graphs/...``) with XMLHttpRequest,
which browsers refuse for file:// pages. Run after ``asv publish``::

    cd asv_bench
    asv publish
    python offline.py            # [--html DIR] [--cache DIR] [--no-data]

and open ``html/index.html``. The step

1. takes the npm package of each library (the versions the CDN URLs name; tarballs fetched once from the
   npm registry into a cache directory, each checked against its pinned sha512; with no network, put
   the tarballs there yourself, e.g. ``npm pack jquery@3.3.1``), and copies the files the page uses,
   with each package's licence file, into ``html/vendor/<name>-<version>/`` (paths as in the package,
   so bootstrap's CSS finds its fonts);
2. rewrites every ``<script src>`` / ``<link href>`` pointing to a CDN to the local copy (dropping
   ``integrity`` / ``crossorigin``: a browser will not fetch file:// in CORS mode; the hashes of the
   files that are byte-identical to the CDN's are checked here instead);
3. unless ``--no-data``, writes ``offline-data.js`` (every published ``*.json`` as one script) and
   ``offline-ajax.js`` (answers asv's ``$.ajax`` calls for those files from it) and loads them after
   jQuery, so the graphs load from file:// too (``asv preview`` works with or without them);
4. fails (exit 1) if any script or stylesheet still points to ``http://`` or ``https://``.

Idempotent: running it again on the same directory changes nothing. Exit 2: no published pages, or a
tarball could not be had.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REGISTRY = "https://registry.npmjs.org"
VENDOR = "vendor"
DATA_JS, SHIM_JS = "offline-data.js", "offline-ajax.js"


@dataclass(frozen=True)
class Package:
    """One npm tarball: name, version, its registry integrity (sha512) and the files taken from it."""
    name: str
    version: str
    integrity: str
    files: tuple[str, ...]          # paths inside the package (``package/`` stripped)
    license: str

    @property
    def tarball(self) -> str:
        return f"{self.name.rsplit('/', 1)[-1]}-{self.version}.tgz"

    @property
    def url(self) -> str:
        return f"{REGISTRY}/{self.name}/-/{self.tarball}"

    @property
    def dir(self) -> str:
        return f"{VENDOR}/{self.name}-{self.version}"


@dataclass(frozen=True)
class Asset:
    """A CDN URL in asv's index.html and the package file that replaces it."""
    cdn: str
    package: Package
    path: str
    same_bytes: bool = field(default=True)   # the package file is the CDN's file (its SRI hash is checked)


BOOTSTRAP_FONTS = tuple(f"dist/fonts/glyphicons-halflings-regular.{ext}" for ext in ("eot", "svg", "ttf", "woff"))
PACKAGES = {p.name: p for p in [
    Package("jquery", "3.3.1",
            "sha512-Ubldcmxp5np52/ENotGxlLe6aGMvmF4R8S6tZjsP6Knsaxd/xp3Zrh50cG93lR6nPXyUFwzN3ZSOQI0wRJNdGg==",
            ("dist/jquery.min.js",), "LICENSE.txt"),
    # the npm package ships flot unminified (cdnjs minified it); same version, same code
    Package("flot", "0.8.3",
            "sha512-xg2otcTJDvS+ERK+my4wxG/ASq90QURXtoM4LhacCq0jQW2jbyjdttbRNqU2cPykrpMvJ6b2uSp6SAgYAzj9tQ==",
            ("jquery.flot.js", "jquery.flot.time.js", "jquery.flot.selection.js", "jquery.flot.categories.js"),
            "LICENSE.txt"),
    Package("flot-orderbars", "1.0.0",
            "sha512-Jv51fvzevUjNXEeozpwEKfPjhiZhfiJddv0WHjduUTCmSF+7T5K7C9c9Y1wIVmUhDBv5fLMjgbwKecT0GIKPZA==",
            ("js/jquery.flot.orderBars.js",), "README.md"),   # MIT, stated in the file's header; no LICENSE shipped
    # cdnjs's stupidtable 1.0.1 was never published to npm; 1.1.3 is the one npm version (same API)
    Package("stupid-table-plugin", "1.1.3",
            "sha512-2Vk7XouQPxUQPRe9w0Fu7ZZ8kHLK7rDoLMsCgtKxRNJ7f4dSOGvW9CkHsq5wD6QsaEnWoyLBYH3xOEsrK3yWBg==",
            ("stupidtable.min.js",), "LICENSE"),
    Package("blueimp-md5", "2.19.0",
            "sha512-DRQrD6gJyy8FbiE4s+bDoXS9hiW3Vbx5uCdwvcCf3zLHL+Iv7LtGHLpr+GZV8rHG8tK766FGYBwRbu8pELTt+w==",
            ("js/md5.min.js",), "LICENSE.txt"),
    Package("bootstrap", "3.1.1",
            "sha512-TAzqS8E/ISpVHP29gYhy+1NSV+FJwApDVQhDfgLYsIuUDJiqJzH2DfORN5tiu+Ie2iBLrzEG34t4Rf465cigqg==",
            ("dist/js/bootstrap.min.js", "dist/css/bootstrap.min.css", *BOOTSTRAP_FONTS), "LICENSE"),
]}
_CDNJS = "https://cdnjs.cloudflare.com/ajax/libs"
ASSETS = [
    Asset("https://code.jquery.com/jquery-3.3.1.min.js", PACKAGES["jquery"], "dist/jquery.min.js"),
    *[Asset(f"{_CDNJS}/flot/0.8.3/jquery.flot{part}.min.js", PACKAGES["flot"], f"jquery.flot{part}.js", False)
      for part in ("", ".time", ".selection", ".categories")],
    Asset("https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js", PACKAGES["flot-orderbars"],
          "js/jquery.flot.orderBars.js"),
    Asset(f"{_CDNJS}/stupidtable/1.0.1/stupidtable.min.js", PACKAGES["stupid-table-plugin"], "stupidtable.min.js",
          False),
    Asset(f"{_CDNJS}/blueimp-md5/2.19.0/js/md5.min.js", PACKAGES["blueimp-md5"], "js/md5.min.js"),
    Asset("https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js", PACKAGES["bootstrap"],
          "dist/js/bootstrap.min.js"),
    Asset("https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css", PACKAGES["bootstrap"],
          "dist/css/bootstrap.min.css"),
]
BY_URL = {a.cdn: a for a in ASSETS}

# a <script ... src="..."> or <link ... href="..."> tag (asv writes one per line, attributes in double quotes)
TAG = re.compile(r"<(script|link)\b([^>]*?)\s(src|href)=\"([^\"]+)\"([^>]*)>", re.IGNORECASE)
REMOTE = re.compile(r"<(?:script|link)\b[^>]*\s(?:src|href)=[\"']?(?:https?:)?//", re.IGNORECASE)
DROP = re.compile(r"\s(?:integrity|crossorigin|referrerpolicy)=\"[^\"]*\"", re.IGNORECASE)

SHIM = """\
/* Written by asv_bench/offline.py: asv reads its JSON with $.ajax, which browsers refuse on file:// pages.
   Answer those requests from offline-data.js (every published .json); anything else goes to jQuery. */
(function ($) {
    var data = window.ASV_OFFLINE_DATA || {}, ajax = $.ajax;
    $.ajax = function (url, options) {
        var opts = typeof url === "object" ? url : $.extend({}, options, {url: url});
        var key = String(opts.url || "").split(/[?#]/)[0].replace(/^\\.\\//, "");
        if (!Object.prototype.hasOwnProperty.call(data, key)) { return ajax.apply(this, arguments); }
        var dfd = $.Deferred();
        setTimeout(function () {
            var value = JSON.parse(JSON.stringify(data[key]));
            if (opts.success) { opts.success(value, "success", null); }
            dfd.resolve(value, "success", null);
        }, 0);
        return dfd.promise();
    };
})(jQuery);
"""


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "simverify" / "asv-vendor"


def default_html() -> Path:
    conf = json.loads((HERE / "asv.conf.json").read_text())
    return HERE / conf.get("html_dir", "html")


def sri(data: bytes, algorithm: str) -> str:
    return f"{algorithm}-{base64.b64encode(hashlib.new(algorithm, data).digest()).decode()}"


def tarball(package: Package, cache: Path, *, download: bool = True) -> bytes:
    """The package's tarball from the cache, else from the registry (then cached); checked against its
    pinned integrity either way. Raises RuntimeError."""
    path = cache / package.tarball
    if path.exists():
        data = path.read_bytes()
    elif download:
        try:
            with urllib.request.urlopen(package.url, timeout=60) as response:
                data = response.read()
        except OSError as exc:
            raise RuntimeError(f"{package.url}: {exc} (no network? put the tarball in {cache}: "
                               f"npm pack {package.name}@{package.version})") from exc
    else:
        raise RuntimeError(f"{path} missing")
    if sri(data, "sha512") != package.integrity:
        raise RuntimeError(f"{path.name}: sha512 differs from the registry's {package.integrity}")
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".part")
        tmp.write_bytes(data)
        tmp.replace(path)
    return data


def vendor(html: Path, cache: Path, *, download: bool = True) -> dict[str, bytes]:
    """Copy every package's files and licence into html/vendor/; returns {vendored path: bytes}."""
    out = {}
    for package in PACKAGES.values():
        with tarfile.open(fileobj=io.BytesIO(tarball(package, cache, download=download)), mode="r:gz") as tar:
            members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if m.isfile() and "/" in m.name}
            for rel in (*package.files, package.license):
                if rel not in members:
                    raise RuntimeError(f"{package.tarball} has no {rel}")
                data = tar.extractfile(members[rel]).read()
                dest = html / package.dir / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                out[f"{package.dir}/{rel}"] = data
    return out


def _check_same_bytes(page: str, files: dict[str, bytes]) -> list[str]:
    """The CDN's SRI hash (as asv's page gives it) of every file the package ships unchanged."""
    problems = []
    for match in TAG.finditer(page):
        asset = BY_URL.get(match.group(4))
        hashes = re.search(r"integrity=\"([^\"]+)\"", match.group(0))
        if asset is None or not asset.same_bytes or hashes is None:
            continue
        data = files.get(f"{asset.package.dir}/{asset.path}")
        if data is not None and all(sri(data, h.split("-", 1)[0]) != h for h in hashes.group(1).split()):
            problems.append(f"{asset.cdn}: the npm file's hash differs from the page's {hashes.group(1)}")
    return problems


def rewrite(page: str, prefix: str, *, data: bool) -> tuple[str, list[str]]:
    """The page with CDN references replaced by ``prefix + vendor path`` and, when ``data``, the data
    shim loaded right after jQuery; also returns the remote script / stylesheet URLs it does not know."""
    unknown = []

    def local(match):
        tag, before, attr, url, after = match.groups()
        if url in BY_URL:
            asset = BY_URL[url]
            return DROP.sub("", f"<{tag}{before} {attr}=\"{prefix}{asset.package.dir}/{asset.path}\"{after}>")
        if re.match(r"(?:https?:)?//", url) and (tag.lower() == "script" or "stylesheet" in match.group(0).lower()):
            unknown.append(url)
        return match.group(0)

    page = TAG.sub(local, page)
    jquery = re.search(r"<script\b[^>]*src=\"[^\"]*/dist/jquery\.min\.js\"[^>]*>\s*</script>", page)
    if data and jquery and DATA_JS not in page:
        shim = f'\n    <script src="{prefix}{DATA_JS}"></script>\n    <script src="{prefix}{SHIM_JS}"></script>'
        page = page[:jquery.end()] + shim + page[jquery.end():]
    return page, unknown


def remote_references(html: Path) -> list[str]:
    """Every script / stylesheet tag under ``html`` still pointing to another host."""
    return [f"{p.relative_to(html)}: {m.group(0)}" for p in sorted(html.rglob("*.html"))
            for m in REMOTE.finditer(p.read_text(errors="replace"))]


def data_script(html: Path) -> str:
    """offline-data.js: every published .json (vendored files excluded) keyed by its path under html/."""
    table = {p.relative_to(html).as_posix(): json.loads(p.read_text())
             for p in sorted(html.rglob("*.json")) if VENDOR not in p.relative_to(html).parts}
    table["swallow.ico"] = ""    # asv pings it to tell "no data" from "server down"
    return ("/* Written by asv_bench/offline.py: the published JSON, for file:// pages. */\n"
            f"window.ASV_OFFLINE_DATA = {json.dumps(table, separators=(',', ':'), allow_nan=True)};\n")


def make_offline(html: Path, cache: Path, *, data: bool = True, download: bool = True) -> list[str]:
    """Vendor, rewrite every page under ``html`` and (if ``data``) write the data shim. Returns the
    problems (unknown CDN URLs, hash mismatches, remote references left); empty means done."""
    pages = sorted(html.rglob("*.html"))
    if not pages:
        raise FileNotFoundError(f"no published pages in {html} (run asv publish first)")
    files = vendor(html, cache, download=download)
    problems = []
    for path in pages:
        text = path.read_text()
        problems += _check_same_bytes(text, files)
        depth = len(path.relative_to(html).parts) - 1
        new, unknown = rewrite(text, "../" * depth, data=data)
        problems += [f"{path.relative_to(html)}: no local copy of {u}" for u in unknown]
        if new != text:
            path.write_text(new)
    if data:
        (html / DATA_JS).write_text(data_script(html))
        (html / SHIM_JS).write_text(SHIM)
    problems += [f"remote reference left: {r}" for r in remote_references(html)]
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--html", type=Path, default=None, help="the published directory (default: asv.conf.json's)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="where the npm tarballs are kept (default: $XDG_CACHE_HOME/simverify/asv-vendor)")
    parser.add_argument("--no-download", action="store_true", help="use only tarballs already in the cache")
    parser.add_argument("--no-data", action="store_true",
                        help="do not inline the JSON (serve the pages, e.g. asv preview, instead of file://)")
    args = parser.parse_args(argv)
    html = args.html or default_html()
    cache = args.cache or default_cache()
    try:
        problems = make_offline(html, cache, data=not args.no_data, download=not args.no_download)
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"offline.py: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"offline.py: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"{html}: scripts and stylesheets local ({len(PACKAGES)} npm packages from {cache})"
          + ("" if args.no_data else f"; JSON inlined in {DATA_JS}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
