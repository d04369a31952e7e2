"""Build hook: the wheel records the git commit it was built from (``simverify/_build_info.py``),
so ``sweep.git_commit()`` can name it in a non-editable install. All metadata is in pyproject.toml."""
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


def _head() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


class BuildPyWithCommit(build_py):
    """build_py that also writes ``_build_info.py`` into the built package (never into the sources)."""

    def run(self):
        super().run()
        if not self.editable_mode:
            target = Path(self.build_lib) / "simverify" / "_build_info.py"
            target.write_text(f'"""Written at build time by setup.py."""\nCOMMIT = {_head()!r}\n')


setup(cmdclass={"build_py": BuildPyWithCommit})
