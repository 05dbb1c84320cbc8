"""Dates in text, below both the knowledge layer and the pipeline: reading date
expressions (expressions.py) and placing a date written without a year — a
quarter, a month, "7 December", a bare weekday — relative to an anchor day and
the way its sentence points (anchoring.py). Chat turns anchor on the turn's
time, documents on their own date."""
