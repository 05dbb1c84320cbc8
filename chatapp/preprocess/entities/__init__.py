"""Stage 2, entity resolution: which John, which day, who is "he", which email
is "the email". EntityResolver (resolver.py) is the stage; it owns the alias
index (aliases.py) and composes mention detection (mentions.py), reference
resolution (references.py) and linking (linking.py)."""
