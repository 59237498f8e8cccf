"""The ``lucasrag`` command line: the composition root, the only package that imports the core,
the write side (``lucasrag_assets``), the read side (``lucasrag_query``) and the harness together."""

from lucasrag_cli.app import app

__all__ = ["app"]
