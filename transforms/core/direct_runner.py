"""The DirectRunner's own engine, run directly: no attempt to download Prism.

Beam 2.77's ``DirectRunner`` first tries the Prism runner, a Go binary it downloads from
GitHub into ``~/.apache_beam/cache/prism`` when it is not cached there
(``prism_runner.PrismJobServer``, ``urllib.request.urlopen`` with no timeout). Offline it logs
"Unable to fetch remote prism binary" and falls back to its in-process engine, the
``FnApiRunner``; on a network that drops packets instead of refusing them, it waits for the
connection to time out first; online, the job runs on Prism, an engine the toolkit is not
tested on. Each attempt also translates the whole pipeline once more (0.3 to 0.45 s of CPU for
a 20-page NLQuAD job of 150 transforms, measured on 2 cores).

``runner_for(options)`` gives, for the DirectRunner (named, or Beam's default) in batch mode,
the ``FnApiRunner`` the DirectRunner falls back to, built as it builds it: the pipeline
options go to the workers as provisioning information, and ``--direct_running_mode`` and
``--direct_num_workers`` keep their meaning (the ``FnApiRunner`` reads them). For any other
runner, and for a streaming job (which the DirectRunner runs otherwise), it gives None: Beam
creates the runner the options name. ``--runner=PrismRunner`` still chooses Prism.
"""

from __future__ import annotations

from typing import Any

from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions

DIRECT_NAMES = frozenset({"direct", "directrunner"})
DIRECT_PATHS = frozenset({"apache_beam.runners.direct.direct_runner.DirectRunner",
                          "apache_beam.runners.direct.DirectRunner",
                          "apache_beam.runners.DirectRunner"})


def names_direct_runner(name: str | None) -> bool:
    """``--runner`` names the DirectRunner, as Beam reads the name (any case, with or
    without ``Runner``, or its class path); None is Beam's default, the DirectRunner."""
    if name is None:
        return StandardOptions.DEFAULT_RUNNER.lower() in DIRECT_NAMES
    return name.lower() in DIRECT_NAMES or name in DIRECT_PATHS


def runner_for(options: PipelineOptions) -> Any | None:
    """The ``FnApiRunner`` to run a batch job the options give the DirectRunner, else None
    (see the module docstring)."""
    standard = options.view_as(StandardOptions)
    if standard.streaming or not names_direct_runner(standard.runner):
        return None
    from apache_beam.portability.api import beam_provision_api_pb2
    from apache_beam.runners.portability.fn_api_runner import fn_runner
    from apache_beam.runners.portability.portable_runner import JobServiceHandle

    encoded = JobServiceHandle.encode_pipeline_options(options.get_all_options())
    return fn_runner.FnApiRunner(provision_info=fn_runner.ExtendedProvisionInfo(
        beam_provision_api_pb2.ProvisionInfo(pipeline_options=encoded)))
