"""`simverify cache info|clean`."""
from __future__ import annotations

import json

from .. import registry
from ..store import Store
from .common import _refused


def cmd_cache(args) -> int:
    from ..cache import cache_clean, cache_info
    with _refused():
        store = Store(args.store)
        store.check_compatible()
        claims = registry.all_claims(None, controls=True)
        if args.action == "clean":
            store.check_writable()
    if args.action == "info":
        info = cache_info(store, claims)
        if args.json:
            print(json.dumps(info, indent=1))
        else:
            print(f"store {info['store']}: {info['cells']} cells ({info['cell_bytes'] / 2**20:.1f} MiB), "
                  f"{info['datasets']} Datasets ({info['dataset_bytes'] / 2**20:.1f} MiB), {info['results']} results")
            print(f"cells from old code (never read again): {info['old_code_cells']} "
                  f"({info['old_code_bytes'] / 2**20:.1f} MiB); 'simverify cache clean' removes them")
            for cid, n in info["cells_per_claim"].items():
                print(f"  {cid:<56} {n:>7} cells")
        return 0
    removed = cache_clean(store, claims, everything=args.all)
    print(json.dumps(removed) if args.json else f"removed {removed['cells']} cells"
          + ("" if args.all else f" ({removed['bytes'] / 2**20:.1f} MiB) from old code"))
    return 0
