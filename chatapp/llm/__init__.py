"""The model call: litellm for every provider (streaming, retries, timeouts,
cost), and the offline responder that answers from the knowledge base.

Importing this package is cheap; litellm loads on the first remote call.
"""

from chatapp.llm.client import LLMClient, LLMError, LLMResult, LLMSettings
from chatapp.llm.offline import OfflineResponder

__all__ = ["LLMClient", "LLMError", "LLMResult", "LLMSettings", "OfflineResponder"]
