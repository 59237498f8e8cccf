"""``python -m lucasrag_harness.evaluation.vault_generator OUT_DIR --notes N --seed S``."""

from lucasrag_harness.evaluation.vault_generator import main

raise SystemExit(main())
