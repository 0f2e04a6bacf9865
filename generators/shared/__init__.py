"""Helpers that generator families of several domains share (no families live here).

- :mod:`.search`: state-space search (A*, greedy) and plan-text reading for planning puzzles;
- :mod:`.grids`: grid geometry and rendering for grid puzzles;
- :mod:`.logic_answers`: reading and writing truth assignments and word answers.

A helper used by one domain only stays in that domain as a private module (``_name.py``).
"""
