"""chatapp: a terminal chat assistant that corrects, grounds and checks every LLM turn.

Python runs this file before any chatapp module, so it stays small: it keeps
third-party libraries off the network and hands out ChatEngine only when asked
(PEP 562), never importing the pipeline itself. No chatapp module imports
`chatapp` for that side effect; tests/test_imports.py counts such an import as
an edge to this file, and through the lazy ChatEngine to the engine.
"""

from chatapp.environment import prepare_offline_environment

prepare_offline_environment()

__version__ = "0.1.0"
__all__ = ["ChatEngine", "__version__"]


def __getattr__(name: str):
    # The engine pulls in heavy libraries; import it only when asked for.
    if name == "ChatEngine":
        from chatapp.engine import ChatEngine

        return ChatEngine
    raise AttributeError(name)
