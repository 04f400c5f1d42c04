"""The ``engram`` command line: a thin typer adapter over ``engram.memory`` and the link engine."""
