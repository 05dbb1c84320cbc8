"""One turn end to end: preprocess → model → postprocess → dialogue update,
with every record persisted and one event per stage for the TUI.

The preprocessing stages are the components registered in
chatapp/preprocess/stages.py (see chatapp/components.py); this module only
runs them in order, times them, and stores what they return.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from chatapp.input_limits import read_part, unread_note
# chatapp.postprocess is imported where an answer is checked, not here: the chat's live diff builds
# a TurnRunner right after the first paint and needs none of it.
from chatapp.records import (
    PostprocessedResponse,
    PreprocessedPrompt,
    TurnStatus,
    Usage,
)
from chatapp.storage.sessions import Session
from chatapp.storage.stream_checkpoint import StreamCheckpoint
from chatapp.surrogates import SurrogateJoiner, repair_surrogates

EventHandler = Callable[[str, dict], None]

# The second look (TurnRunner._found_by_the_answer): which flags send the answer's sentence to a search
# of its own, how many sentences at most, how many chunks each brings, and how much of the sentence one
# sentence of a chunk must say for the chunk to count.
SECOND_LOOK_FLAGS = frozenset({"UnsupportedClaim", "FabricatedFact"})
SECOND_LOOK_QUERIES = 3
SECOND_LOOK_K = 3
SECOND_LOOK_OVERLAP = 0.5  # of the sentence's content words, in one sentence of the passage found


def _sentence_around(text: str, span: tuple[int, int]) -> str:
    """The sentence of `text` that holds `span`: from the stop or line break before it to the one after."""
    start = max(text.rfind(". ", 0, span[0]), text.rfind("\n", 0, span[0])) + 1
    ends = [i for i in (text.find(". ", span[1]), text.find("\n", span[1])) if i != -1]
    return text[start:min(ends) + 1 if ends else len(text)].strip()


class EmptyInput(ValueError):
    """Nothing to send."""


@dataclass
class TurnResult:
    session_id: str
    session_name: str
    turn_id: int | None
    preprocessed: PreprocessedPrompt
    response: PostprocessedResponse | None
    usage: Usage
    status: TurnStatus
    error: str | None = None
    regenerated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _quiet(stage: str, data: dict) -> None:
    pass


class TurnRunner:
    def __init__(self, engine):
        self.engine = engine
        self.settings = engine.settings
        self.kb = engine.kb
        self.sessions = engine.sessions
        self._stages = None
        self._postprocessor = None
        self._offline = None
        self._kb_version_seen = None

    # --- the registered stages, built on first use ------------------------------------

    @property
    def stages(self) -> list:
        if self._stages is None:
            from chatapp.components import STAGES
            from chatapp.preprocess.stages import GIVEN, StageServices

            services = StageServices(kb=self.kb, settings=self.settings, nlp=self._nlp)
            self._stages = STAGES.build(services, given=GIVEN)
        return self._stages

    def stage(self, name: str):
        return next(s for s in self.stages if s.name == name)

    def _refresh_if_kb_changed(self) -> None:
        version = self.kb.version
        if self._kb_version_seen not in (None, version):
            for stage in self.stages:
                stage.refresh()
        self._kb_version_seen = version

    @property
    def correction(self):
        """The correction pipeline (also run alone, tiers 1–2, while the user types)."""
        return self.stage("correction").worker

    @property
    def resolver(self):
        """The entity resolver (also run over each answer for the dialogue state)."""
        return self.stage("entities").worker

    @property
    def postprocessor(self):
        if self._postprocessor is None:
            from chatapp.postprocess.pipeline import Postprocessor

            self._postprocessor = Postprocessor(self.kb.registry, embedder=self.kb.embedder, nlp=self._nlp(),
                                                disabled_checks=self.settings.disabled_checks)
        return self._postprocessor

    @staticmethod
    def _nlp():
        from chatapp.nlp import load_pipeline

        return load_pipeline()[0]

    def _level(self, level: str | float | None) -> float:
        from chatapp.preprocess.correction.levels import parse_level

        return parse_level(str(level if level is not None else self.settings.correction_level))

    # --- dialogue state ----------------------------------------------------------------

    def load_state(self, session: Session | None):
        from chatapp.preprocess.dialogue import DialogueState

        if session is None or "dialogue_state" not in session.meta:
            return DialogueState()
        return DialogueState.from_json(session.meta["dialogue_state"])

    # --- stages ------------------------------------------------------------------------

    def live_correct(self, text: str, level: str | float | None = None):
        """Tiers 1–2 only: cheap enough to run on every keystroke."""
        self._refresh_if_kb_changed()
        return self.correction.correct(text, level=self._level(level), tiers=("lexical", "syntactic"))[0]

    def preprocess(self, text: str, session: Session | None = None, level=None, profile: str | None = None,
                   now: datetime | None = None, on_event: EventHandler = _quiet) -> PreprocessedPrompt:
        from chatapp.preprocess.assembly.budgets import get_profile
        from chatapp.preprocess.stages import PreprocessWork

        if not text or not text.strip():
            raise EmptyInput("nothing to send: the input is empty")
        text = repair_surrogates(text)  # a lone half can be neither stored nor sent: U+FFFD
        self._refresh_if_kb_changed()
        profile_name = profile or self.settings.budget_profile
        get_profile(profile_name)  # an unknown profile is refused before any work
        state = self.load_state(session)
        work = PreprocessWork(
            text=text, now=now or datetime.now(timezone.utc), level=self._level(level), profile=profile_name,
            state=state, previous_question=next((t.content for t in reversed(state.turns) if t.role == "user"), None),
        )
        timings: dict[str, float] = {}
        for stage in self.stages:
            started = time.perf_counter()
            stage.run(work)
            timings[stage.name] = round((time.perf_counter() - started) * 1000, 2)
            event = stage.event(work)
            if event is not None:
                on_event(stage.name, event)
        correction = work.correction
        return PreprocessedPrompt(
            original_input=text,
            corrected_input=correction.corrected_input,
            corrections=correction.corrections,
            suggestions=correction.suggestions,
            correction_confidence=correction.confidence,
            resolved_entities=work.resolved,
            context=work.context,
            rag_chunks=work.chunks,
            prompt=work.prompt,
            timings_ms=timings,
            notes=[note for note in [unread_note(text)] if note],
        )

    def postprocess(self, response: str, question: str = "", evidence=(), preprocessed: PreprocessedPrompt | None = None,
                    state=None, now: datetime | None = None, evidence_labels=None,
                    rag_chunks=None, searched: bool = False) -> PostprocessedResponse:
        """`rag_chunks`: passages to hold the answer to, when given; else the turn's retrieved ones.
        `searched`: the given passages are a search of the documents, as a turn's are, so a claim they
        do not bear out is looked for once more (_found_by_the_answer)."""
        second_look = not evidence and ((rag_chunks is None and preprocessed is not None) or searched)
        if rag_chunks is None:
            rag_chunks = preprocessed.rag_chunks if preprocessed else []

        def check(chunks):
            return self.postprocessor.process(
                response,
                question=question,
                evidence=list(evidence),
                rag_chunks=list(chunks),
                resolved_entities=preprocessed.resolved_entities if preprocessed else [],
                history=state.turns if state is not None else [],
                now=now,
                evidence_labels=evidence_labels,
            )

        checked = check(rag_chunks)
        # What the question retrieved may not hold what a right answer says ("the grant was $48,000" from
        # a page the question's words did not find): before calling a claim unsupported, look for it in
        # the documents by the answer's own words, and hold the answer to what that finds too.
        more = self._found_by_the_answer(checked, rag_chunks) if second_look else []
        return check([*rag_chunks, *more]) if more else checked

    def _found_by_the_answer(self, checked: PostprocessedResponse, chunks) -> list:
        """Chunks a search by the answer's unsupported sentences finds that the turn did not retrieve."""
        text = checked.original
        queries = list(dict.fromkeys(_sentence_around(text, f.span) for f in checked.hallucination_flags
                                     if f.hallucination_type in SECOND_LOOK_FLAGS and not f.corrected))
        queries = queries[:SECOND_LOOK_QUERIES]
        # A name called unknown may stand in a document the question did not find ("Stowbridge Council"
        # in a pipeline spreadsheet's client column): it is looked for by itself.
        names = list(dict.fromkeys(f.content for f in checked.hallucination_flags
                                   if f.hallucination_type == "NonexistentEntity"))[:SECOND_LOOK_QUERIES]
        if not queries and not names:
            return []
        from chatapp.postprocess.evidence import is_stop, stem, words
        from chatapp.postprocess.support import RETRIEVED, EvidencePool

        seen = {c.chunk_id for c in chunks}
        found = []
        for n, results in enumerate(self.kb.search_many([*queries, *names], k=SECOND_LOOK_K)):
            query = [*queries, *names][n]
            said = {stem(w) for w in words(query) if not is_stop(w)}
            for chunk in results:
                # Only a passage with a sentence saying much of what the answer's does: a "75 days" in an
                # unrelated matter plan is no support for "the goal is under 75 days". (The passage is
                # read as the check that follows reads it, once: its sentences are kept per text.) A name
                # is found only where the passage writes it whole.
                if chunk.chunk_id in seen:
                    continue
                if n >= len(queries):
                    if query.casefold() not in " ".join(chunk.content.split()).casefold():
                        continue
                elif EvidencePool([(chunk.content, chunk.title, RETRIEVED)]).best(said)[1] < SECOND_LOOK_OVERLAP:
                    continue
                seen.add(chunk.chunk_id)
                found.append(chunk)
        return found

    # --- the whole turn --------------------------------------------------------------------

    def llm_client(self, model: str | None = None, api_base: str | None = None):
        from chatapp.llm.client import LLMClient, LLMSettings
        from chatapp.llm.offline import OfflineResponder

        s = self.settings
        settings = LLMSettings(model=model or s.model, api_base=api_base or s.api_base,
                               first_byte_timeout=s.first_byte_timeout, stall_timeout=s.stall_timeout,
                               total_timeout=s.total_timeout)
        if self._offline is None:
            # One per runner: it compiles a pattern per known name, kept until the knowledge base
            # changes (a new one each turn recompiled them all: 0.14 s a turn with 850 entities).
            self._offline = OfflineResponder(self.kb)
        return LLMClient(settings, offline_responder=self._offline)

    def ask(self, text: str, session_name: str | None = None, level=None, profile: str | None = None,
            model: str | None = None, api_base: str | None = None, on_event: EventHandler = _quiet,
            cancel: threading.Event | None = None, now: datetime | None = None) -> TurnResult:
        now = now or datetime.now(timezone.utc)
        model = model or self.settings.model
        # Retrieval and the answer checks embed: the model loads beside spaCy rather than after it.
        self.kb.embedder.load_in_background()
        session = self.sessions.open_or_create(session_name, model=model)
        state = self.load_state(session)
        pre = self.preprocess(text, session=session, level=level, profile=profile, now=now, on_event=on_event)

        # The question is safe on disk, and in the conversation's memory, before the model is called:
        # a turn cut off (or killed) is still a question the next prompt knows was asked.
        self.sessions.add_user_turn(session, pre)
        self._remember_question(session, pre, now)
        client = self.llm_client(model, api_base)
        messages = pre.prompt.messages
        # What the answer will be held to (its retrieved chunks above all) is embedded while the model
        # answers, so checking the answer does not wait for it.
        self.postprocessor.prepare(pre.rag_chunks, history=state.turns, resolved_entities=pre.resolved_entities,
                                   question=pre.corrected_input)
        result = self._stream_answer(session, client, messages, on_event, cancel, pre)
        regenerated = False
        response = None
        try:
            if result.status == "complete":
                response = self.postprocess(result.text, question=pre.corrected_input, preprocessed=pre,
                                            state=state, now=now)
                if response.recommendation == "Regenerate" and client.settings.is_offline:
                    # The offline responder answers the question from the documents the same way
                    # twice, whatever the review says: a retry would only repeat the answer.
                    response.recommendation = "HumanReview"
                elif response.recommendation == "Regenerate" and self.settings_auto_regenerations > 0:
                    on_event("regenerate", {"guidance": response.guidance})
                    self._finish(result, result.text, "complete", {"superseded": True})
                    from chatapp.postprocess.regeneration import retry_messages

                    # The guidance quotes the model and the documents: never in a system message.
                    retry = retry_messages(messages, response, client.settings.model)
                    result = self._stream_answer(session, client, retry, on_event, cancel, pre)
                    regenerated = True
                    if result.status == "complete":
                        response = self.postprocess(result.text, question=pre.corrected_input, preprocessed=pre,
                                                    state=state, now=now)
                        if response.recommendation == "Regenerate":
                            # One automatic retry only: a second bad answer goes to the person.
                            response.recommendation = "HumanReview"
                on_event("postprocess", {"response": response})
            if response is not None and result.status == "complete":
                self.sessions.save_postprocessing(result.turn_id, response)
                self._finish(result, response.delivered, "complete", {"recommendation": response.recommendation})
                self._remember_answer(session, pre, response, now)
            elif result.text:
                self._remember_partial_answer(session, result.text, now)
        except BaseException as exc:
            if result.saved is not None:  # streamed whole, then stopped (or failed) while being checked
                why = ("stopped before the answer was checked" if isinstance(exc, KeyboardInterrupt)
                       else f"checking the answer failed ({type(exc).__name__})")
                self._finish(result, result.text, "interrupted", {"error": why})
            raise
        return TurnResult(
            session_id=session.id, session_name=session.name, turn_id=result.turn_id, preprocessed=pre,
            response=response, usage=result.usage, status=result.status, error=result.error, regenerated=regenerated,
        )

    def _finish(self, streamed: "TurnRunner._Streamed", content: str, status: TurnStatus, meta: dict) -> None:
        """Store the turn's final text and status, once its checkpoint thread can no longer write."""
        if streamed.saved is not None:
            streamed.saved.stop()
            streamed.saved = None
        self.sessions.finish_turn(streamed.turn_id, content, status, meta)

    @property
    def settings_auto_regenerations(self) -> int:
        return int(self.settings.preferences.get("auto_regenerations", 1))

    @dataclass
    class _Streamed:
        turn_id: int
        text: str
        usage: Usage
        status: TurnStatus
        error: str | None
        # A whole answer's checkpoint thread runs on while the answer is checked: its heartbeat
        # tells other processes the turn is alive. _finish stops it.
        saved: StreamCheckpoint | None = None

    def _stream_answer(self, session, client, messages, on_event, cancel,
                       pre: PreprocessedPrompt) -> "TurnRunner._Streamed":
        from chatapp.llm.client import LLMError
        from chatapp.llm.errors import CUT_OFF_KINDS

        turn_id = self.sessions.add_turn(session, "assistant", "", status="streaming")
        joiner = SurrogateJoiner()  # a split emoji is shown whole, once its second half arrives
        saved = StreamCheckpoint(self.sessions, turn_id).start()

        def on_delta(piece: str) -> None:
            saved.add(piece)
            shown = joiner.feed(piece)
            if shown:
                on_event("delta", {"text": shown})

        on_event("model", {"model": client.settings.model})
        try:
            # The offline responder reads the records directly rather than re-parsing the prompt.
            context = {"question": read_part(pre.corrected_input), "rag_chunks": pre.rag_chunks,
                       "resolved_entities": pre.resolved_entities}
            llm = client.stream(messages, on_delta=on_delta, cancel=cancel, context=context)
        except LLMError as exc:
            saved.stop()
            partial = repair_surrogates(exc.partial_text) or saved.text
            usage = Usage(model=client.settings.model)
            self.sessions.save_llm_call(turn_id, usage, "failed", error=exc.message, attempts=exc.attempts)
            status = "interrupted" if exc.kind in CUT_OFF_KINDS and partial else "failed"
            self.sessions.finish_turn(turn_id, partial, status, {"error": exc.message, "error_kind": exc.kind})
            on_event("error", {"message": exc.message, "partial": partial})
            return self._Streamed(turn_id, partial, usage, status, exc.message)
        except BaseException:
            # Ctrl+C, or SIGTERM turned into one by the CLI: what arrived is saved, and the
            # turn says it stopped, before the exception ends the program.
            saved.stop()
            self.sessions.finish_turn(turn_id, saved.text, "interrupted", {"error": "stopped by the user"})
            raise
        text = repair_surrogates(llm.text)
        usage = Usage(prompt_tokens=llm.prompt_tokens, completion_tokens=llm.completion_tokens, cost=llm.cost,
                      latency_ms=llm.latency_ms, model=llm.model)
        streamed = self._Streamed(turn_id, text, usage, "complete", None, saved)
        try:
            self.sessions.save_llm_call(turn_id, usage, "ok", attempts=llm.attempts, first_byte_ms=llm.first_byte_ms)
            if llm.finish_reason == "cancelled":
                self._finish(streamed, text, "interrupted", {"error": "stopped by the user"})
                streamed.status, streamed.error = "interrupted", "stopped by the user"
        except BaseException:
            saved.stop()
            raise
        return streamed

    def _entities_in_answer(self, answer: str) -> dict[str, float]:
        """The entities an answer names, in order, each with how surely its words name it (a bare
        "Declan" when two Declans are known: about half)."""
        found: dict[str, float] = {}
        try:
            for e in self.resolver.resolve(read_part(answer)):
                if e.entity_id and not e.entity_id.startswith(("date:", "doc:")):
                    found[e.entity_id] = max(found.get(e.entity_id, 0.0), e.confidence)
        except Exception:  # noqa: BLE001 - the dialogue update must not lose a finished turn
            return {}
        return found

    def _change_state(self, session, change: Callable) -> None:
        """Apply `change` to the session's DialogueState as stored now (not as this turn first read
        it): concurrent turns of one session each add to what the others stored."""
        from chatapp.preprocess.dialogue import DialogueState

        def apply(stored: dict | None) -> dict:
            state = DialogueState.from_json(stored)
            change(state)
            return state.to_json()

        self.sessions.update_state(session, apply)

    def _remember_question(self, session, pre: PreprocessedPrompt, now) -> None:
        entity_ids = [e.entity_id for e in pre.resolved_entities if e.entity_id]
        is_question = pre.corrected_input.rstrip().endswith("?")
        self._change_state(session, lambda state: state.add_user_turn(
            pre.corrected_input, now.isoformat(), entity_ids, is_question=is_question))

    def _remember_partial_answer(self, session, text: str, now) -> None:
        # What was shown of a cut-off answer is part of the conversation; its question stays open.
        self._change_state(session, lambda state: state.add_assistant_turn(text, now.isoformat(), answered=False))

    def _remember_answer(self, session, pre: PreprocessedPrompt, response: PostprocessedResponse, now) -> None:
        # Names the answer introduced that the knowledge base does not know stay
        # referable ("she" may mean them next turn) but carry less salience.
        unverified = {
            f"unverified:{f.content.strip().lower()}": {"name": f.content.strip(), "type": "UNVERIFIED"}
            for f in response.hallucination_flags
            if f.hallucination_type == "NonexistentEntity" and f.content.strip()
        }
        from chatapp.postprocess.layout import split_quoted

        own, quoted = split_quoted(response.original)
        answer_ids = self._entities_in_answer(own)
        quoted_ids = self._entities_in_answer(quoted) if quoted else {}

        def add(state) -> None:
            state.add_assistant_turn(response.delivered, now.isoformat(), list(answer_ids),
                                     unverified_entity_ids=list(unverified), entity_info=unverified,
                                     quoted_entity_ids=list(quoted_ids),
                                     link_confidence={**quoted_ids, **answer_ids})
            state.note_documents(pre.rag_chunks)

        self._change_state(session, add)
