"""Benchmarks that print figures (``make bench``); never timed assertions."""
