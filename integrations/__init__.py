"""Adapters to other people's trainers and hubs (TRL, verl, OpenRLHF, prime verifiers, reasoning-gym,
OpenEnv, PettingZoo, GEM, NeMo Gym): each translates, none re-implements. See docs/integrations.md."""
