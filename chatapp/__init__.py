"""chatapp: a terminal chat assistant that corrects, grounds and checks every LLM turn."""

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
