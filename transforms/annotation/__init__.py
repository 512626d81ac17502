"""The annotation round trip: export tasks from a release, read votes, publish annotated releases.

``render`` (NQ candidates as readable text with a character-to-token map), ``label_studio``
(labeling configs, tasks and the export reader), ``simulate`` (a seeded synthetic worker pool),
``manifest`` (release fingerprints and the export manifest), ``export`` (tasks per tool and
stage), ``read_votes`` (votes JSON lines and Label Studio exports into parsed votes),
``nq_import`` and ``jnq_import`` (Beam stages that join votes with the release's examples and
aggregate them), ``publish`` (the annotated release's stats and card). Imports the dataset
packages (``transforms.nq``, ``transforms.jnq``) and everything below them.
"""
