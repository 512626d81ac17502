"""Helpers of ``benchmarks/bench_scale_ladder.py``: its inputs (``inputs``) and how a rung is
run and watched (``watch``: progress bar with ETA, memory of the process tree)."""
