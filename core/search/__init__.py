"""The searches and their machinery: placements found by scoring, not by a paper's rule.

``optimal`` (exact: enumeration of placement classes, or CP-SAT) and
``slotscope`` (local search from the best paper scheduler) are the two
schedulers here; ``cpsat`` and ``cpsat_counts`` are the two CP-SAT
formulations, ``cpsat_bounds`` their linear bounds, ``enumeration`` the
placement classes and their scoring tasks, ``polish`` the local moves.
"""
