"""Run by the label_studio tests inside Label Studio's venv: checks configs, task data and
annotation results with label-studio-sdk's parser. Reads a JSON list of
``{"name", "config", "tasks", "annotations"}`` on stdin and writes, per item,
``{"name", "config_error", "invalid_tasks", "annotation_errors"}`` on stdout."""

import json
import sys

from label_studio_sdk.label_interface import LabelInterface


def check(item):
    report = {"name": item["name"], "config_error": None, "invalid_tasks": [],
              "annotation_errors": []}
    try:
        interface = LabelInterface(item["config"])
        interface.validate()
    except Exception as error:  # the parser raises several kinds
        report["config_error"] = f"{type(error).__name__}: {error}"
        return report
    for index, task in enumerate(item.get("tasks", [])):
        if not interface.validate_task({"data": task["data"]}):
            report["invalid_tasks"].append(index)
    for result in item.get("annotations", []):
        errors = interface.validate_prediction({"result": result}, return_errors=True)
        report["annotation_errors"].append(errors)
    return report


if __name__ == "__main__":
    json.dump([check(item) for item in json.load(sys.stdin)], sys.stdout)
