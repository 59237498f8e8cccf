"""The demo prints commands the way a shell takes them: its printed lines, pasted into
bash, run and succeed — and what it shows is readable (the answers are on screen)."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = pytest.mark.slow
PROMPT = "$ "


def test_printed_commands_run_when_pasted_into_bash(shell_env, repo, tmp_path):
    demo = subprocess.run(
        ["bash", str(repo / "scripts" / "demo"), "--no-setup"],
        env=shell_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    printed = [line.removeprefix(PROMPT) for line in demo.stdout.splitlines() if line.startswith(PROMPT)]
    assert len(printed) >= 8 and any("--bridge" in line for line in printed)
    assert "€900" in demo.stdout  # the pocket watch's insured amount is on screen, not cut away
    # Pasted into a fresh shell, without the demo's own settings: the printed export line brings them.
    env = {k: v for k, v in shell_env.items() if k not in {"LUCASRAG_VAULT", "LUCASRAG_DATA"}}
    pasted = subprocess.run(
        ["bash", "-e", "-c", "\n".join(printed)],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    assert pasted.returncode == 0, pasted.stdout[-3000:] + pasted.stderr[-3000:]
    # The pasted session answered the same questions: the same blocks (timings aside) as the demo printed.
    assert pasted.stdout.count("\n1. ") == demo.stdout.count("\n1. ") >= 5
