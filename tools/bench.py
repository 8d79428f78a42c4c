#!/usr/bin/env python3
"""Run ``nvfp4rt bench`` from a source checkout without installing the package.

    python3 tools/bench.py gemv --shapes default --iters 200
    python3 tools/bench.py --render

Same arguments as ``nvfp4rt bench`` (see docs/bench.md).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nvfp4rt.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
