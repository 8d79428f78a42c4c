#!/bin/bash
# Session 38 device run 6: after the timers' pad() refactor, the bench and lab GPU tests and stab.py on case 4 again
cd "$(dirname "$0")/../../../.." || exit 1
S=docs/device-logs/2026-11-27-session38/scripts
PYTHONPATH=. timeout 250 python3 -m pytest -q -rs tests/test_bench.py tests/test_lab.py tests/test_cli.py > "$OUT/12-pytest-bench.log" 2>&1
echo rc=$? >> "$OUT/12-pytest-bench.log"
PYTHONPATH=. timeout 200 python3 $S/stab.py 4 > "$OUT/13-stab-case4.log" 2>&1
echo rc=$? >> "$OUT/13-stab-case4.log"
