"""Algorithmic problems in the style of programming contests: counting, optima, graphs, number theory, simulation."""
