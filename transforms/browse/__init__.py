"""The release browser: a static HTML site of a release (overview, examples, rejected).

``python -m pipelines.release browse DIR`` calls ``site.write_site``. Modules: ``base``
(the release opened for reading, ``Entry``, the ``Renderer`` interface), ``html`` (escaping
and the page layout), ``assets`` (CSS and the filter's plain JS), ``figures`` (inline SVG
histograms drawn by matplotlib), ``overview``, ``rejected``, ``examples`` (paginated index,
detail pages and filter data), ``renderers/`` (one module per kind of release), ``site``
and ``serve`` (127.0.0.1 only). Dataset text is always HTML-escaped; raw page HTML appears
only in a sandboxed ``iframe``. No Beam.
"""
