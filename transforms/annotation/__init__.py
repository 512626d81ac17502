"""The annotation round trip: export tasks from a release, read votes, publish annotated releases.

``manifest`` (release fingerprints), ``render`` (NQ candidates as readable text with a
character-to-token map), ``label_studio`` (labeling configs, tasks and the export reader),
``export`` (tasks per tool and stage), ``simulate`` and ``simulate_release`` (a seeded
synthetic worker pool; ``simulate_truth`` its hidden truth, ``simulate_nq_errors`` and
``simulate_calibration`` its NQ mistakes fitted to NQ §4, ``simulate_scores`` their
precision and recall), ``read_votes`` (votes JSON lines and Label Studio exports into parsed
votes), ``release_examples`` (the annotated release's examples: compact NQ views, JNQ rows),
``nq_import`` and ``jnq_import`` (aggregate each item's votes), ``nq_attach`` (stream the NQ
files again with their annotations), ``build`` (the import pipeline) and ``publish`` (the
annotated release's stats and card). With ``--previous``: ``content`` (what a worker saw, as a
digest per part), ``previous`` (the previous annotated release, checked before any work),
``previous_items`` (what it judged, and whether a judgment still holds), ``carry`` (carry the
judgments that hold in the import) and ``carry_report`` (their stats, card section and
summary line). Imports the dataset packages (``transforms.nq``,
``transforms.jnq``) and everything below them.
"""
