"""The red-team suite: adversarial responses against every registered family.

``profiles`` says what a family's answers mean (unique or any valid answer, ordered or not),
``judges`` holds independent validity checks and solvers written for the tests (networkx, z3,
brute force; never the family's own verifier or solver), ``attacks`` builds the responses.
``benchmarks/reward_errors.py`` imports this package to measure the same attacks on more seeds.
"""
