# Worker and launcher image for Dataflow (custom container) and any portable runner.
# Build:  docker build -t REGION-docker.pkg.dev/PROJECT/REPO/qa-dataset-toolkit:0.1.0 .
# Run:    python -m pipelines.build_nlquad --runner=DataflowRunner --project=PROJECT \
#           --region=REGION --temp_location=gs://BUCKET/tmp --output=gs://BUCKET/releases \
#           --sdk_container_image=REGION-docker.pkg.dev/PROJECT/REPO/qa-dataset-toolkit:0.1.0 \
#           --source=warc --input='gs://BUCKET/crawl/*.warc.gz'
# The SDK image version must match the apache-beam version pinned in pyproject.toml.
FROM apache/beam_python3.11_sdk:2.77.0

WORKDIR /opt/qa-dataset-toolkit
COPY pyproject.toml README.md ./
COPY filters ./filters
COPY transforms ./transforms
COPY pipelines ./pipelines
RUN pip install --no-cache-dir . \
    && python -c "import filters.bbc_article, transforms.nlquad, pipelines.build_nlquad"
