"""``python -m palaestra ARGS`` is ``palaestra ARGS`` (launchers such as ``torchrun -m`` take a module)."""

from palaestra.cli import entry

entry()
