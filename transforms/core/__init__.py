"""What every Beam stage shares: exact accounting outputs and progress logging.

``accounting`` (tally, dead letter and rejected side outputs; a stage reports each input
through them), ``progress`` (a log line every few seconds per worker). Imports nothing else
of the project.
"""
