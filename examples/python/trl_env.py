"""A TRL `environment_factory` wrapper over a running mivas (NOT run here: TRL is not installed
on the machine this was written on; the HTTP calls are the ones examples/python/mivas_episode.py
makes, which is tested).

TRL's GRPOTrainer builds one instance per rollout with no arguments, calls `reset(**row)` with the
dataset row's columns other than `prompt`, exposes every other public method as a tool (from its
type hints and Google-style docstring) and reads `get_reward()` once the rollout ends
(huggingface/trl docs/source/grpo_trainer.md, "Environments", TRL 1.10.0.dev0).

    from trl import GRPOConfig, GRPOTrainer
    from trl_env import MivasEnv, trl_dataset

    trainer = GRPOTrainer(
        model="Qwen/Qwen3-0.6B",
        args=GRPOConfig(max_steps=200),
        train_dataset=trl_dataset("http://127.0.0.1:8765", "healthcare"),
        environment_factory=MivasEnv,
    )
    trainer.train()

Settings come from the environment: MIVAS_URL (default http://127.0.0.1:8765), MIVAS_PACK
(default healthcare), MIVAS_RL_TOKEN, and MIVAS_RL_TOKEN_IN (`header`, the default, or `url` for
the token in the path). The session keeps no cookie jar, as NeMo Gym's agent does (mivas names the
episode in every answer's cookie). Standard library only (plus `datasets` for trl_dataset). Only
compiled here; its HTTP calls are the stdlib client's, which CI runs.
"""

from __future__ import annotations

import json
import os
from typing import Any

from mivas_episode import MivasSession


def trl_dataset(server: str, pack: str, token: str | None = None):
    """The pack's tasks as a `datasets.Dataset`: `prompt` (instructions, greeting, opening line) and `task_id`."""
    from datasets import Dataset  # imported here: only this helper needs it

    rows = MivasSession(server, pack, token).dataset()
    return Dataset.from_list([{"prompt": r["responses_create_params"]["input"], "task_id": r["task_id"]} for r in rows])


class MivasEnv:
    """One mivas text episode per rollout, over the NeMo Gym routes (soft handoffs: a fixed tool list)."""

    def __init__(self) -> None:
        self.session = MivasSession(
            os.environ.get("MIVAS_URL", "http://127.0.0.1:8765"),
            os.environ.get("MIVAS_PACK", "healthcare"),
            os.environ.get("MIVAS_RL_TOKEN"),
            token_in=os.environ.get("MIVAS_RL_TOKEN_IN", "header"),
        )
        self.row: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None

    def reset(self, task_id: str | None = None, **kwargs: Any) -> str | None:
        rows = self.session.dataset()
        self.row = next((r for r in rows if task_id in (None, r["task_id"])), rows[0])
        self.result = None
        self.session.seed(self.row)
        return None  # the dataset's prompt already holds the instructions and the caller's opening line

    def say_to_caller(self, text: str) -> str:
        """
        Say something to the caller. The caller hears only what goes through this tool.

        Args:
            text: What you say, exactly as it should be heard.

        Returns:
            JSON with what the caller says back (caller_said) and whether the caller hung up.
        """
        return self.session.tool("say_to_caller", {"text": text})

    def use_tool(self, name: str, arguments: str) -> str:
        """
        Call one of the desk tools listed in your instructions (transfers, lookups, bookings, end_call).

        Args:
            name: The tool's name, e.g. transfer_to_coverage or end_call.
            arguments: The tool's arguments as a JSON object, e.g. {"carrier": "aetna"}.

        Returns:
            The tool's JSON result ({"ok": true, "data": ...} or an error with a safe message).
        """
        try:
            parsed = json.loads(arguments or "{}")
        except json.JSONDecodeError as err:
            return json.dumps({"ok": False, "error": f"arguments are not JSON: {err}"})
        return self.session.tool(name, parsed if isinstance(parsed, dict) else {})

    def get_reward(self) -> float:
        if self.result is None and self.row is not None:
            self.result = self.session.verify(self.row, {"output": []})
        return float((self.result or {}).get("reward", 0.0))
