"""Text the data cards share: each paper's BibTeX entry, and the licence and limitation
sentences more than one card says (``transforms.*.card``, ``transforms.annotation.publish``).

The dataset packages are layering siblings and cannot import each other's cards, so what two
of them cite or say lives here, once.
"""

from __future__ import annotations

HEARST_BIBTEX = """@inproceedings{hearst-1992-automatic,
    title = "Automatic Acquisition of Hyponyms from Large Text Corpora",
    author = "Hearst, Marti A.",
    booktitle = "{COLING} 1992 Volume 2: The 14th International Conference on
      Computational Linguistics",
    month = jul,
    year = "1992",
    address = "Nantes, France",
    url = "https://aclanthology.org/C92-2082",
}"""

SQUAD_BIBTEX = """@inproceedings{rajpurkar-etal-2016-squad,
    title = "{SQ}u{AD}: 100,000+ Questions for Machine Comprehension of Text",
    author = "Rajpurkar, Pranav  and
      Zhang, Jian  and
      Lopyrev, Konstantin  and
      Liang, Percy",
    booktitle = "Proceedings of the 2016 Conference on Empirical Methods in Natural Language
      Processing",
    month = nov,
    year = "2016",
    address = "Austin, Texas",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/D16-1264",
    doi = "10.18653/v1/D16-1264",
    pages = "2383--2392",
}"""

NQ_BIBTEX = """@article{kwiatkowski-etal-2019-natural,
    title = "Natural Questions: A Benchmark for Question Answering Research",
    author = "Kwiatkowski, Tom  and
      Palomaki, Jennimaria  and
      Redfield, Olivia  and
      Collins, Michael  and
      Parikh, Ankur  and
      Alberti, Chris  and
      Epstein, Danielle  and
      Polosukhin, Illia  and
      Devlin, Jacob  and
      Lee, Kenton  and
      Toutanova, Kristina  and
      Jones, Llion  and
      Kelcey, Matthew  and
      Chang, Ming-Wei  and
      Dai, Andrew M.  and
      Uszkoreit, Jakob  and
      Le, Quoc  and
      Petrov, Slav",
    journal = "Transactions of the Association for Computational Linguistics",
    volume = "7",
    year = "2019",
    address = "Cambridge, MA",
    publisher = "MIT Press",
    url = "https://aclanthology.org/Q19-1026",
    doi = "10.1162/tacl_a_00276",
    pages = "452--466",
}"""

REQA_BIBTEX = """@inproceedings{ahmad-etal-2019-reqa,
    title = "{R}e{QA}: An Evaluation for End-to-End Answer Retrieval Models",
    author = "Ahmad, Amin  and
      Constant, Noah  and
      Yang, Yinfei  and
      Cer, Daniel",
    booktitle = "Proceedings of the 2nd Workshop on Machine Reading for Question Answering",
    month = nov,
    year = "2019",
    address = "Hong Kong, China",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/D19-5819",
    doi = "10.18653/v1/D19-5819",
    pages = "137--146",
}"""

NLQUAD_BIBTEX = """@inproceedings{soleimani-etal-2021-nlquad,
    title = "{NLQ}u{AD}: A Non-Factoid Long Question Answering Data Set",
    author = "Soleimani, Amir  and
      Monz, Christof  and
      Worring, Marcel",
    booktitle = "Proceedings of the 16th Conference of the European Chapter of the
      Association for Computational Linguistics: Main Volume",
    month = apr,
    year = "2021",
    address = "Online",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2021.eacl-main.106",
    doi = "10.18653/v1/2021.eacl-main.106",
    pages = "1245--1255",
}"""

JNQ_BIBTEX = """@inproceedings{uematsu-etal-2024-benchmark,
    title = "A Benchmark Suite of {J}apanese Natural Questions",
    author = "Uematsu, Takuya  and
      Wang, Hao  and
      Kawahara, Daisuke  and
      Shibata, Tomohide",
    booktitle = "Proceedings of the 13th Joint Conference on Lexical and Computational
      Semantics (*SEM 2024)",
    month = jun,
    year = "2024",
    address = "Mexico City, Mexico",
    publisher = "Association for Computational Linguistics",
}"""

# The licence of questions taken from a search query log (the NQ and JNQ cards).
QUERY_LOG_LICENSE = (
    "The questions are queries from the search log given to the build: its owner's terms "
    "apply to them, and a log of real users' queries may hold personal information (the "
    "release keeps only queries issued by several distinct users, as NQ did, which lowers but "
    "does not remove that risk). The logs bundled with the toolkit were written by its "
    "authors for testing.")

# The limitation of a release built for annotation (the NQ and JNQ cards); an annotated
# release drops it (``transforms.annotation.publish``).
NOT_ANNOTATED = ("Without annotation the examples have no answers: they are inputs for "
                 "annotation, not a benchmark.")
