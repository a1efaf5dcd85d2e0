"""Isolation levels for learner code.

``local`` (:class:`judge.process.LocalLauncher`): a separate process with time and memory
limits, for learners judging their own code. ``strict`` (:class:`judge.sandbox.strict.StrictLauncher`):
a fork server with torch preloaded and every layer in :mod:`judge.sandbox.confine`, for a server
grading strangers' code. :mod:`judge.sandbox.layers` says which layers this machine offers.
"""
