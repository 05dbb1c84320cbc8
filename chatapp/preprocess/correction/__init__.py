"""Input correction in three tiers: lexical, syntactic, semantic."""
