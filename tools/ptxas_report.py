#!/usr/bin/env python3
"""Print ptxas -v resources (registers, spills, stack, smem, cmem) per kernel of a PTX file.

Usage: tools/ptxas_report.py FILE.ptx [--target sm_90a] [-D NAME=VALUE ...]
Exit status: 0 on success, 1 when ptxas rejects the file, 2 on bad input.
A thin wrapper over nvfp4rt.assemble.main, runnable from a checkout without installing.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nvfp4rt.assemble import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
