"""Build ``dist/headroom-agent.pyz``: the whole agent as one file any Python 3.9+ runs.

``make agent`` calls this. The archive holds the ``headroom_agent`` package
and a ``__main__`` that exits with the command's exit code (zipapp's own
generated entry point would drop it). psutil is a compiled extension and
cannot run from inside a zip: install it next to the interpreter
(``pip install psutil``) for ``sample``.

    python agents/build_zipapp.py [--output PATH]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import zipapp
from pathlib import Path

AGENTS = Path(__file__).resolve().parent
REPO = AGENTS.parent
DEFAULT_OUTPUT = Path("dist") / "headroom-agent.pyz"
ENTRY = "import sys\n\nfrom headroom_agent.cli import main\n\nsys.exit(main())\n"


def build(output: Path) -> Path:
    """Write the zipapp to ``output`` (relative paths are taken from the repository root)."""
    target = output if output.is_absolute() else REPO / output
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as staging:
        stage = Path(staging)
        shutil.copytree(
            AGENTS / "headroom_agent",
            stage / "headroom_agent",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        (stage / "__main__.py").write_text(ENTRY, encoding="utf-8")
        zipapp.create_archive(stage, target, interpreter="/usr/bin/env python3", compressed=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"default {DEFAULT_OUTPUT}")
    args = parser.parse_args(argv)
    target = build(args.output)
    print(f"built {target} ({target.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
