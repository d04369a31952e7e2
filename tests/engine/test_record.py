"""The verdict record: one reader and writer, versioned (simverify.record)."""
import json

import pytest

from simverify import record, registry, runner
from simverify.declaration import declaration_digest
from simverify.executors import SerialExecutor
from simverify.store import Store


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("record") / "s")
    runner.check([registry.get("toy.power")], "quick", store, SerialExecutor())
    return store


def test_a_stored_record_carries_its_version_its_laws_digest_and_its_registration_order(stored):
    (path, rec), = stored.read_results()[0]
    assert rec["record_version"] == record.RECORD_VERSION == json.loads(path.read_text())["record_version"]
    assert rec["law_digest"] == declaration_digest(registry.get("toy.power").law)
    assert rec["order"] == registry.position("toy.power") is not None
    assert record.loads(record.dumps(rec)) == rec  # the one writer and the one reader agree


def test_a_version_1_record_is_upgraded_with_the_later_fields_unknown(stored):
    (_, rec), = stored.read_results()[0]
    old = {k: v for k, v in rec.items() if k not in ("record_version", "law_digest", "order")}
    new = record.loads(json.dumps(old))
    assert new["record_version"] == record.RECORD_VERSION and new["law_digest"] is None and new["order"] is None
    assert {k: new[k] for k in old} == old


@pytest.mark.parametrize("edit, needle", [
    (lambda r: r.update(record_version=record.RECORD_VERSION + 1), "this simverify reads versions up to"),
    (lambda r: r.update(record_version="2"), "record_version '2'"),
    (lambda r: r.pop("verdict"), "field 'verdict' missing"),
    (lambda r: r.update(estimate=True), "field 'estimate' is True"),
    (lambda r: r.update(ci=[0.0]), "field 'ci' is \\[0.0\\]"),
    (lambda r: r.update(ci=["a", "b"]), "field 'ci' is"),
    (lambda r: r.update(id="../../evil"), "field 'id' is '../../evil'"),
    (lambda r: r.update(band="x"), "field 'band' is 'x'"),
    (lambda r: r.update(run="x"), "field 'run' is 'x'"),
    (lambda r: r.update(order="1"), "field 'order' is '1'"),
    (lambda r: r.update(order=-1), "field 'order' is -1"),
    (lambda r: r.update(law_digest=123), "field 'law_digest' is 123"),
    (lambda r: r.update(record_version="x" * 10_000), "record_version 'xxxx"),
])
def test_records_of_a_newer_version_or_malformed_fields_are_refused_in_one_short_line_naming_why(
        stored, tmp_path, edit, needle):
    (path, rec), = stored.read_results()[0]
    bad = dict(rec)
    edit(bad)
    with pytest.raises(ValueError, match=needle) as refused:
        record.loads(json.dumps(bad))
    assert len(str(refused.value)) < 120  # one short line, whatever the bad value's size
    copy = Store(tmp_path / "s")
    target = copy.root / path.relative_to(stored.root)
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(bad))
    found, unreadable = copy.read_results()
    assert not found and unreadable[0][0] == target and str(refused.value) in unreadable[0][1]


def test_the_declaration_digest_follows_a_laws_fields_and_not_its_identity():
    from dataclasses import replace
    law = registry.get("toy.power").law
    assert declaration_digest(law) == declaration_digest(replace(law))
    assert declaration_digest(law) != declaration_digest(replace(law, lower=law.lower + 1, upper=law.upper + 1))


def _power(exponent):
    return lambda ds: ds["y"] ** exponent  # the same source text for every exponent: only the closure differs


def test_the_declaration_digest_sees_what_a_closure_captured_a_partials_arguments_and_defaults():
    import functools

    def with_default(ds, k=1.0):
        return ds["y"] * k
    assert declaration_digest(_power(3.0)) == declaration_digest(_power(3.0))
    assert declaration_digest(_power(3.0)) != declaration_digest(_power(2.5))
    assert declaration_digest(functools.partial(max, 1)) != declaration_digest(functools.partial(max, 2))
    assert declaration_digest({3, 1, 2}) == declaration_digest({2, 3, 1})
    with_default.__defaults__ = (2.0,)
    assert declaration_digest(with_default) != declaration_digest(lambda ds, k=1.0: ds["y"] * k)


def test_an_object_without_a_stable_description_has_no_digest_rather_than_one_per_process():
    assert declaration_digest(object()) is None


@pytest.mark.slow
def test_every_registered_laws_digest_is_the_same_in_another_process_with_another_hash_seed():
    import subprocess
    import sys

    from tests.support import ENV, ROOT
    code = ("import json; from simverify import registry; from simverify.declaration import declaration_digest; "
            "print(json.dumps({c.id: declaration_digest(c.law) for c in registry.all_claims(None)}))")
    digests = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                         cwd=ROOT, env={**ENV, "PYTHONHASHSEED": seed}).stdout) for seed in "12"]
    assert digests[0] == digests[1] and len(digests[0]) > 300
    assert None not in digests[0].values()
