"""Postprocessing of the model's answer: claims, coherence, fact validation,
hallucination flags, [corrected]/[unverified] delivery and a recommendation.

    from chatapp.postprocess import Postprocessor
    result = Postprocessor(kb.registry).process(answer, question=question, evidence=[...])
"""

from chatapp.postprocess.pipeline import PostprocessSettings, Postprocessor

__all__ = ["PostprocessSettings", "Postprocessor"]
