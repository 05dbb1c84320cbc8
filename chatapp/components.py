"""The component contract: every preprocessing stage and every answer check is a
named component that declares what it reads and what it writes, registered in
a named registry (as spaCy registers pipeline components).

A turn runs the stages of STAGES in the order they were registered
(chatapp/preprocess/stages.py registers the five seed stages); the
postprocessor runs the checks of CHECKS (chatapp/postprocess/checks.py). A
setting can switch a named check off; a stage or check whose inputs no
earlier component writes is refused when the pipeline is built, not halfway
through a turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable


@runtime_checkable
class Component(Protocol):
    """What every stage and check has: a name, the fields it reads and writes
    on the work record of its side, and a way to drop what it derived from the
    knowledge base when that changes."""

    name: str  # the name it is registered under, set by Registry.build
    reads: tuple[str, ...]
    writes: tuple[str, ...]

    def refresh(self) -> None: ...


@runtime_checkable
class Stage(Component, Protocol):
    """A preprocessing stage: fills its `writes` fields of a PreprocessWork."""

    def run(self, work: Any) -> None: ...


@runtime_checkable
class Check(Component, Protocol):
    """An answer check: returns findings about the answer in a CheckContext."""

    def run(self, context: Any) -> list: ...


T = TypeVar("T")


class ComponentError(ValueError):
    """A pipeline that cannot run as declared (unknown name, a read nothing writes)."""


class Registry(Generic[T]):
    """Named component factories, kept in the order they were registered."""

    def __init__(self, kind: str):
        self.kind = kind
        self._factories: dict[str, Callable[..., T]] = {}

    def register(self, name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        def add(factory: Callable[..., T]) -> Callable[..., T]:
            if name in self._factories:
                raise ComponentError(f"{self.kind} {name!r} is registered twice")
            self._factories[name] = factory
            return factory

        return add

    def names(self) -> list[str]:
        return list(self._factories)

    def __contains__(self, name: str) -> bool:
        return name in self._factories

    def build(self, *args: Any, disabled: Iterable[str] = (), given: Iterable[str] = (), **kwargs: Any) -> list[T]:
        """One instance of every registered component not `disabled`, in order.
        `given` names the fields present before the first component runs; every
        field a component reads must be given or written by one before it."""
        disabled = set(disabled)
        unknown = disabled - set(self._factories)
        if unknown:
            raise ComponentError(f"no {self.kind} named {', '.join(sorted(unknown))}; "
                                 f"known: {', '.join(self._factories)}")
        available = set(given)
        built: list[T] = []
        for name, factory in self._factories.items():
            if name in disabled:
                continue
            component = factory(*args, **kwargs)
            component.name = name  # one name: the one it is registered and switched off by
            missing = [f for f in getattr(component, "reads", ()) if f not in available]
            if missing:
                raise ComponentError(f"{self.kind} {name!r} reads {', '.join(missing)}, which nothing before it writes")
            available.update(getattr(component, "writes", ()))
            built.append(component)
        return built


# The two registries. Entries register where they are defined; importing the
# module that defines them (done by whoever builds the pipeline) fills these.
STAGES: Registry[Stage] = Registry("stage")
CHECKS: Registry[Check] = Registry("check")
