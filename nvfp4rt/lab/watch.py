"""``--watch``: run again each time the kernel file (or the op's spec) is saved.

Modification times are polled (no dependencies); a run's ``edit_to_result_s``
counts from the saved file's modification time to the finished result.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable

from .core import RESULT_SCHEMA, LabError, LabUsageError, Session, exit_status

__all__ = ["watch"]


def _signature(paths: list[Path]):
    sig = []
    for p in paths:
        try:
            st = os.stat(p)
            sig.append((st.st_mtime_ns, st.st_size))
        except OSError:
            sig.append(None)
    return tuple(sig)


def _failed_result(session: Session, message: str) -> dict:
    """A result document for a failure outside :meth:`Session.run` (a spec that no longer loads)."""
    res = {"schema": RESULT_SCHEMA, "op": session.op.name, "file": str(session.path), "entry": None,
           "target": None, "status": "spec_error", "ok": False, "error": message, "run": session.runs,
           "data": None, "assembly": None, "load": None, "device": session.device_info, "ceilings": None,
           "shapes": [], "timing": {}}
    return res


def watch(session: Session, emit: Callable[[dict], object], *, poll: float = 0.1,
          max_runs: int | None = None, sleep: Callable[[float], object] = time.sleep) -> int:
    """Run now, then again each time the kernel file (or the op's spec) is saved.

    Polls modification times every ``poll`` seconds (no dependencies).  A run's
    ``edit_to_result_s`` counts from the file's modification time.  Returns the
    exit status of the last run (Ctrl-C ends the loop); stops early when the
    kernel destroyed the CUDA context, which no later run could use.
    """
    kernel_paths = [session.path]
    extra = session.op.watched_files()
    last = _signature(kernel_paths + extra)
    last_extra = last[len(kernel_paths):]
    res = session.run()
    emit(res)
    runs = 1
    try:
        while (max_runs is None or runs < max_runs) and res["status"] != "context_lost":
            sleep(poll)
            sig = _signature(kernel_paths + extra)
            if sig == last or any(s is None for s in sig):  # unchanged, or mid-save (renamed away)
                continue
            last = sig
            if sig[len(kernel_paths):] != last_extra:
                last_extra = sig[len(kernel_paths):]
                session.reset()
                try:
                    session.op.reload()
                except (LabUsageError, LabError) as exc:
                    res = _failed_result(session, str(exc))
                    emit(res)
                    runs += 1
                    continue
            try:
                edit_time = os.stat(session.path).st_mtime
            except OSError:
                edit_time = None
            res = session.run(edit_time=edit_time)
            emit(res)
            runs += 1
    except KeyboardInterrupt:
        pass
    if res["status"] == "context_lost":
        print("nvfp4rt lab: the kernel destroyed the CUDA context; start the lab again", file=sys.stderr)
    return exit_status(res)
