"""Airflow DAG: a weekly NQ release through the Flex Template (an alternative to Cloud
Scheduler). Copy to your Composer/Airflow DAGs folder and replace the upper-case values.

The pipeline commits the release itself (the manifest and _SUCCESS written last, LATEST
moved only after success), so the operator does not have to wait, and a retried task with
version "auto" and skip_existing finds the day's release and does nothing. With previous
"auto" each week builds on the version LATEST names: questions still in the logs keep their
examples (no search, no page fetch), only new ones are linked, and the manifest records the
lineage. Export what still needs judging with ``annotate export --previous`` afterwards.
"""

import json
from datetime import datetime, timedelta
from pathlib import Path

from airflow import DAG
from airflow.providers.google.cloud.operators.dataflow import (
    DataflowStartFlexTemplateOperator,
)

BODY = json.loads(
    (Path(__file__).parent.parent / "scheduler" / "launch_nq_weekly.json").read_text()
)["launchParameter"]

with DAG(
    dag_id="nq_weekly_release",
    schedule="0 3 * * 1",
    start_date=datetime(2026, 1, 5),
    catchup=False,
    default_args={"retries": 2, "retry_delay": timedelta(minutes=30)},
) as dag:
    DataflowStartFlexTemplateOperator(
        task_id="launch_build_nq",
        project_id="PROJECT",
        location="REGION",
        body={"launchParameter": BODY},
        wait_until_finished=False,
    )
