#!/usr/bin/env python3
"""Run one mivas text episode end to end over the NeMo Gym routes, with the standard library only.

The script makes the requests NeMo Gym's simple agent makes against a resources server
(NVIDIA-NeMo/Gym 07d6b0d, responses_api_agents/simple_agent/app.py; docs/rl.md "Contract 1"):

1. GET  <server>/rl/<pack>/dataset.jsonl        pick the task's row
2. POST <server>/rl/<pack>/seed_session         a fresh episode, named by the mivas_episode cookie
3. loop: ask an OpenAI-compatible chat-completions endpoint (the policy) for the next message;
         POST <server>/rl/<pack>/<tool> for each tool call, hand the reply back as the tool result;
         stop at a message without tool calls
4. POST <server>/rl/<pack>/verify               the row plus the policy's Responses-API output;
                                                prints the reward, its components and why

Like NeMo Gym's agent it keeps no cookie jar: after every answer it holds only that answer's
Set-Cookie (mivas sets the episode's cookie on every answer about it). With MIVAS_RL_TOKEN the
token goes in the Authorization header, or with --token-in url in the path (/rl/~<token>/<pack>/…)
for setups where headers cannot be sent. Run here in CI (scripts/rl-python-smoke.ts, both token
forms) against the real server and a chat stand-in that replays the reference route.

Example:
    python3 examples/python/mivas_episode.py --server http://127.0.0.1:8765 --pack healthcare \\
        --task C1-E1 --policy-url http://127.0.0.1:8000/v1 --policy-model my-model

Python 3.11, no third-party packages. Exit 0 when verify answered (1 when the reward is below
--min-reward, 2 on an HTTP or protocol error).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


class HttpError(Exception):
    """A request answered with a status outside 2xx."""

    def __init__(self, url: str, status: int, body: str) -> None:
        super().__init__(f"{url}: HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


def _call(url: str, body: Any | None, headers: dict[str, str], timeout: float) -> tuple[int, str, dict[str, str]]:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    for name, value in headers.items():
        request.add_header(name, value)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8"), dict(response.headers.items())
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", errors="replace"), dict(err.headers.items())


def _set_cookie(headers: dict[str, str]) -> str | None:
    """The name=value of an answer's Set-Cookie header, or None when it sets none."""
    value = next((v for k, v in headers.items() if k.lower() == "set-cookie"), "")
    return value.split(";", 1)[0] or None


class MivasSession:
    """One episode's session on a mivas pack, its cookie replaced by each answer's (no jar, as NeMo Gym)."""

    def __init__(self, server: str, pack: str, token: str | None = None, timeout: float = 60.0, token_in: str = "header") -> None:
        in_url = bool(token) and token_in == "url"
        prefix = f"/rl/~{urllib.parse.quote(token or '', safe='')}" if in_url else "/rl"
        self.base = f"{server.rstrip('/')}{prefix}/{pack}"
        self.timeout = timeout
        self.headers = {"Authorization": f"Bearer {token}"} if token and not in_url else {}
        self.cookie: str | None = None

    def _post(self, path: str, body: Any, ok_only: bool = True) -> tuple[int, str, dict[str, str]]:
        headers = dict(self.headers)
        if self.cookie:
            headers["Cookie"] = self.cookie
        status, text, response_headers = _call(f"{self.base}/{path}", body, headers, self.timeout)
        self.cookie = _set_cookie(response_headers)
        if ok_only and not 200 <= status < 300:
            raise HttpError(f"{self.base}/{path}", status, text)
        return status, text, response_headers

    def dataset(self) -> list[dict[str, Any]]:
        status, text, _ = _call(f"{self.base}/dataset.jsonl", None, self.headers, self.timeout)
        if status != 200:
            raise HttpError(f"{self.base}/dataset.jsonl", status, text)
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def seed(self, row: dict[str, Any]) -> dict[str, Any]:
        _, text, _ = self._post("seed_session", row)
        return json.loads(text)

    def tool(self, name: str, arguments: dict[str, Any]) -> str:
        """The tool's reply body, as a NeMo Gym agent hands it to the model (errors included)."""
        _, text, _ = self._post(name, arguments, ok_only=False)
        return text

    def verify(self, row: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
        _, text, _ = self._post("verify", {**row, "response": response})
        return json.loads(text)


def chat_completion(url: str, model: str, key: str | None, messages: list[dict[str, Any]], tools: list[dict[str, Any]], timeout: float) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    body = {"model": model, "messages": messages, "tools": tools, "tool_choice": "auto", "temperature": 0}
    status, text, _ = _call(f"{url.rstrip('/')}/chat/completions", body, headers, timeout)
    if status != 200:
        raise HttpError(f"{url}/chat/completions", status, text)
    choices = json.loads(text).get("choices") or []
    if not choices:
        raise HttpError(f"{url}/chat/completions", status, "no choices in the reply")
    return choices[0]["message"]


def run_episode(session: MivasSession, row: dict[str, Any], policy_url: str, model: str, key: str | None, max_steps: int, timeout: float) -> dict[str, Any]:
    """Seeds, lets the policy play until it answers without a tool call, and verifies."""
    params = row["responses_create_params"]
    session.seed(row)
    messages: list[dict[str, Any]] = [{"role": m["role"], "content": m["content"]} for m in params["input"]]
    tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t.get("parameters", {})}} for t in params["tools"]]
    output: list[dict[str, Any]] = []
    for step in range(max_steps):
        message = chat_completion(policy_url, model, key, messages, tools, timeout)
        calls = message.get("tool_calls") or []
        content = message.get("content")
        if content:
            output.append({"id": f"msg_{step}", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": content, "annotations": []}]})
        messages.append({"role": "assistant", "content": content, **({"tool_calls": calls} if calls else {})})
        if not calls:
            break
        for call in calls:
            name = call["function"]["name"]
            raw = call["function"].get("arguments") or "{}"
            output.append({"id": f"fc_{call['id']}", "type": "function_call", "call_id": call["id"], "name": name, "arguments": raw, "status": "completed"})
            try:
                arguments = json.loads(raw)
            except json.JSONDecodeError as err:
                result = json.dumps({"error": f"Invalid tool call arguments: {err}"})
            else:
                result = session.tool(name, arguments)
            output.append({"type": "function_call_output", "call_id": call["id"], "output": result})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    response = {"id": "resp_mivas_example", "object": "response", "created_at": 0, "model": model, "output": output, "parallel_tool_calls": False, "tool_choice": "auto", "tools": params["tools"], "status": "completed"}
    return session.verify(row, response)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="mivas base URL, e.g. http://127.0.0.1:8765")
    parser.add_argument("--pack", required=True)
    parser.add_argument("--task", help="task id (default: the first row)")
    parser.add_argument("--policy-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--policy-model", required=True)
    parser.add_argument("--policy-key", default=os.environ.get("MIVAS_POLICY_API_KEY"))
    parser.add_argument("--token", default=os.environ.get("MIVAS_RL_TOKEN"), help="MIVAS_RL_TOKEN, when the server sets one")
    parser.add_argument("--token-in", choices=["header", "url"], default="header", help="send the token as Authorization: Bearer (default) or in the URL path (/rl/~<token>/...)")
    parser.add_argument("--max-steps", type=int, default=60)
    parser.add_argument("--min-reward", type=float, default=None, help="exit 1 when the reward is below this")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    session = MivasSession(args.server, args.pack, args.token, args.timeout, args.token_in)
    try:
        rows = session.dataset()
        row = next((r for r in rows if args.task in (None, r.get("task_id"))), None)
        if row is None:
            print(f"no task {args.task} in pack {args.pack}", file=sys.stderr)
            return 2
        verdict = run_episode(session, row, args.policy_url, args.policy_model, args.policy_key, args.max_steps, args.timeout)
    except (HttpError, urllib.error.URLError, KeyError, json.JSONDecodeError) as err:
        print(f"mivas_episode: {err}", file=sys.stderr)
        return 2
    keys = ["episode_id", "task_id", "reward", "reward_components", "status", "valid", "reasons", "end_reason", "truncated", "turns", "reward_version", "snapshot"]
    print(json.dumps({k: verdict.get(k) for k in keys}, indent=2))
    if args.min_reward is not None and float(verdict.get("reward", 0)) < args.min_reward:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
