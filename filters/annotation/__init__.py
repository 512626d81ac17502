"""Human annotation, as the papers aggregated it: votes in, one decision per item out. No Beam.

``votes`` (the two vote formats workers' judgments arrive in, parsed and checked; the latest
judgment of a worker wins), ``nq`` (one NQ vote becomes one entry of NQ's ``annotations``
list, NQ §3.2 and §5), ``spans`` (JNQ §3.5's span majority) and ``jnq`` (the JNQ §3.2-3.5 and
JBoolQ §4 thresholds, one function per rule). Imports ``filters.text`` only.
"""
