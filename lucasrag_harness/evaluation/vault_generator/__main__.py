"""``python -m lucasrag.evaluation.vault_generator OUT_DIR --notes N --seed S``."""

from lucasrag.evaluation.vault_generator import main

raise SystemExit(main())
