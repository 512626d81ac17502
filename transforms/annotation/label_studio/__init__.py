"""Label Studio: labeling configs, tasks and the JSON export reader (no Beam, no SDK).

Label Studio and its SDK are not dependencies of this project (their pins clash with Beam's);
this package only writes and reads the formats. ``configs`` (the XML labeling configs and the
project settings), ``tasks`` (task JSON from NQ examples and JNQ / JBoolQ rows), ``exports``
(a JSON export into votes). ``make label-studio`` installs the tool into its own venv for the
tests marked ``label_studio``.
"""
