"""The model call (streaming, retries, timeouts, cost): an OpenAI-compatible
server through the openai package, litellm for every other provider, and the offline responder
that answers from the knowledge base.

Importing this package is cheap; litellm loads on the first call that needs it.
"""

from chatapp.llm.client import LLMClient, LLMError, LLMResult, LLMSettings
from chatapp.llm.offline import OfflineResponder

__all__ = ["LLMClient", "LLMError", "LLMResult", "LLMSettings", "OfflineResponder"]
