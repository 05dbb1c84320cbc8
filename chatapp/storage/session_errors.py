"""What can go wrong when a session is looked up or renamed: shared by the store and the lookup."""


class SessionNotFound(LookupError):
    pass


class AmbiguousSession(SessionNotFound):
    """What was typed names several sessions equally well."""


class SessionNameTaken(ValueError):
    """Another session already has the name asked for."""
