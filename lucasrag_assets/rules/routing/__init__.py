"""Routing a note to a workspace: the router (``router``), what a note says about itself (``evidence``),
its folder-mates' votes (``folder_votes``), the person's folder and tag rules (``vault_rules``) and
why an unchanged note keeps its place (``stability``). Plain functions, no Dagster."""
