"""A watchdog for the GPU check tools: a hung kernel (a TMA or mbarrier bug) blocks inside the driver,
where no Python timeout can reach it, so a thread ends the process instead."""
import os
import threading
import time


class Watchdog:
    """Ends the process (exit 3) if ``arm``ed work does not ``disarm`` within ``seconds``."""

    def __init__(self, seconds: float):
        self.seconds, self.deadline, self.what = seconds, None, ""
        threading.Thread(target=self._watch, daemon=True).start()

    def arm(self, what: str):
        self.what, self.deadline = what, time.monotonic() + self.seconds

    def disarm(self):
        self.deadline = None

    def _watch(self):
        while True:
            time.sleep(0.5)
            d = self.deadline
            if d is not None and time.monotonic() > d:
                print(f"FAIL {self.what}: TIMEOUT after {self.seconds:.0f} s (kernel hang? TMA / mbarrier)", flush=True)
                os._exit(3)
