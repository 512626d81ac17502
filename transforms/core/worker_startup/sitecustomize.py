"""Started first by every Python process a command runs while it handles interrupts (the
directory is put on their ``PYTHONPATH`` by ``transforms.core.interrupt.handling``): Beam's
``multi_processing`` workers. A terminal's Ctrl-C reaches the whole process group; a worker
leaves SIGINT to the command (its parent), which stops the run, so no worker prints a
``KeyboardInterrupt`` traceback, and the workers end when the command closes their
connection. Then the ``sitecustomize`` this one hides, if any, runs as usual."""

from __future__ import annotations

import importlib
import os
import signal
import sys

if os.environ.get("QA_INTERRUPT_DIR"):
    signal.signal(signal.SIGINT, signal.SIG_IGN)

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != _HERE]
del sys.modules[__name__]
try:
    importlib.import_module("sitecustomize")
except ImportError:
    pass
