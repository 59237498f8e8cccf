from lucasrag_cli.app import app

app()
