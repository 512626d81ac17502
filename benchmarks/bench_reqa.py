"""Benchmark build_reqa against the plain-Python limit of its main work. Not a test.

    python benchmarks/bench_reqa.py --copies 200

Synthesizes a SQuAD v1.1 file by repeating the bundled sample ``--copies`` times under distinct
titles (each paragraph gets a unique first sentence, so nothing is deduplicated), then
measures in separate processes: the plain loop of the same work (spaCy ``senter`` sentence
splitting of every paragraph with ``filters.text.sentences.split_many`` and labelling each
question's correct sentences) — the limit — and ``python -m pipelines.build_reqa`` on the same
file (DirectRunner). Prints questions/s, peak RSS and the time ratio.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from child_process import report, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def synthesize(path: Path, copies: int) -> int:
    sample = json.loads((ROOT / "pipelines" / "samples" / "reqa" / "squad_sample.json")
                        .read_text(encoding="utf-8"))
    data, questions = [], 0
    for copy in range(copies):
        for article in sample["data"]:
            paragraphs = []
            for paragraph in article["paragraphs"]:
                prefix = f"Copy {copy} of {article['title']} begins here. "
                qas = [{**qa, "id": f"{qa['id']}-{copy}", "question": f"{qa['question']} ({copy})",
                        "answers": [{**a, "answer_start": a["answer_start"] + len(prefix)}
                                    for a in qa["answers"]]} for qa in paragraph["qas"]]
                questions += len(qas)
                paragraphs.append({"context": prefix + paragraph["context"], "qas": qas})
            data.append({"title": f"{article['title']} {copy}", "paragraphs": paragraphs})
    path.write_text(json.dumps({"version": "1.1", "data": data}), encoding="utf-8")
    return questions


def plain(path: Path) -> dict:
    from filters.text.sentences import load_sentence_pipeline, split_many

    started = time.perf_counter()
    nlp = load_sentence_pipeline()
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    paragraphs = [p for article in data for p in article["paragraphs"]]
    spans = split_many(nlp, [p["context"] for p in paragraphs])
    labelled = 0
    for paragraph, sentences in zip(paragraphs, spans, strict=True):
        for qa in paragraph["qas"]:
            for answer in qa["answers"]:
                start = answer["answer_start"]
                end = start + len(answer["text"])
                labelled += sum(1 for s, e in sentences if s < end and start < e)
    return {"seconds": time.perf_counter() - started, "labelled": labelled}


def pipeline(path: Path, output: Path) -> dict:
    from pipelines.build_reqa import run

    started = time.perf_counter()
    result = run(["--runner=DirectRunner", "--source", "squad", "--input", str(path),
                  "--output", str(output)])
    return {"seconds": time.perf_counter() - started, "questions": result["stats"]["questions"]}


def measure(mode: str, path: Path, output: Path) -> dict:
    command = [sys.executable, __file__, "--child", mode, "--file", str(path),
               "--out", str(output)]
    return run_child(command, mode, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=200)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = plain(Path(args.file)) if args.child == "plain" else pipeline(
            Path(args.file), Path(args.out))
        result["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report(result)
        return
    with tempfile.TemporaryDirectory(prefix="bench_reqa_") as tmp:
        path = Path(tmp) / "squad.json"
        questions = synthesize(path, args.copies)
        limit = measure("plain", path, Path(tmp) / "plain")
        full = measure("pipeline", path, Path(tmp) / "release")
    print(f"ReQA benchmark: {questions} SQuAD questions ({args.copies} copies of the sample)")
    for name, r in (("plain loop: senter + labelling (limit)", limit),
                    ("build_reqa, DirectRunner", full)):
        print(f"  {name:42s} {r['seconds']:7.2f} s  {questions / r['seconds']:8.1f} "
              f"questions/s  peak RSS {r['rss']:6.0f} MB")
    print(f"  ratio pipeline/plain time: {full['seconds'] / limit['seconds']:.2f}x")


if __name__ == "__main__":
    main()
