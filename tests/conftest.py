import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=25)
settings.load_profile("ci")
os.environ.setdefault("SIMVERIFY_PLUGINS", "tests.toy_claims")
