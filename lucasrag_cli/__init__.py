"""The ``lucasrag`` command line: the composition root, the only package that imports the core,
the write side (``lucasrag_assets``), the read side (``lucasrag_query``) and the harness together."""

from lucasrag_cli.app import app


def main() -> None:
    """The ``lucasrag`` command: everything it writes (the data folder above all) is private from the first
    write (``lucasrag.data_folder.private_umask``), then the Typer app."""
    from lucasrag.data_folder import private_umask

    private_umask()
    app()


__all__ = ["app", "main"]
