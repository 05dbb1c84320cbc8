"""The component contract: stages run in the seed's order, each reading only
what an earlier one wrote, and a pipeline that cannot run is refused when it
is built."""

from __future__ import annotations

import pytest

from chatapp.components import STAGES, ComponentError, Registry
from chatapp.preprocess.stages import GIVEN, PreprocessWork


def test_the_seed_stages_are_registered_in_pipeline_order():
    import chatapp.preprocess.stages  # noqa: F401 - registers them

    assert STAGES.names() == ["correction", "entities", "context", "retrieval", "assembly"]


def test_every_stage_reads_only_given_fields_or_what_an_earlier_stage_wrote():
    stages = STAGES.build(None, given=GIVEN)
    available = set(GIVEN)
    work_fields = set(PreprocessWork.__dataclass_fields__)
    for stage in stages:
        assert set(stage.reads) <= available, stage.name
        assert set(stage.writes) <= work_fields, stage.name
        available |= set(stage.writes)
    assert "prompt" in available


class _Reads:
    name, reads, writes = "late", ("prompt",), ()

    def __init__(self, *_):
        pass


class _Writes:
    name, reads, writes = "early", (), ("prompt",)

    def __init__(self, *_):
        pass


def test_a_stage_reading_what_nothing_before_it_writes_is_refused_at_build_time():
    registry = Registry("stage")
    registry.register("late")(_Reads)
    registry.register("early")(_Writes)
    with pytest.raises(ComponentError, match="'late' reads prompt"):
        registry.build()
    # Switched off, the pipeline is fine.
    assert [c.name for c in registry.build(disabled=["late"])] == ["early"]


def test_unknown_names_and_double_registration_are_refused():
    registry = Registry("check")
    registry.register("early")(_Writes)
    with pytest.raises(ComponentError, match="no check named nope"):
        registry.build(disabled=["nope"])
    with pytest.raises(ComponentError, match="registered twice"):
        registry.register("early")(_Writes)


def test_a_turn_times_every_stage_and_reports_each_one(registry_engine):
    events = []
    result = registry_engine.turns.preprocess("whats johns email", on_event=lambda stage, data: events.append(stage))
    assert list(result.timings_ms) == ["correction", "entities", "context", "retrieval", "assembly"]
    assert events == ["correction", "entities", "retrieval", "assembly"]
    assert result.corrected_input.startswith("What's John's email")
