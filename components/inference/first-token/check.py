#!/usr/bin/env python3
"""The first-token check: proves a deployed graph answers, from inside the cluster (dynamo-efa).

Runs as the Job `pulumi up` waits for after the DynamoGraphDeployment turned Ready. Ready means the pods' probes pass;
the Frontend's /health answers 200 whether or not it could load a worker's model card, so a graph can be Ready and
serve nothing. This asks the Frontend what a user would, in three steps, each within its own budget:

  1. models      GET /v1/models until the served model is listed
  2. completion  POST /v1/completions (stream false): an answer with text, from the served model
  3. stream      POST /v1/completions (stream true): a first token, then chunks with no gap over the stall budget,
                 to [DONE], every chunk from the served model

On failure it exits non-zero and writes one message to the termination log (Kubernetes copies it into the pod's
status, and `pulumi up` prints it with the Job's error): the step, what was seen, the likely cause and where to look.
Python 3 standard library only; writes nothing but the termination log.

Environment:
  FRONTEND_URL             base URL of the Frontend's Service, e.g. http://llm-frontend.dynamo.svc.cluster.local:8000
  SERVED_MODEL             the model name clients send ("model")
  MODELS_BUDGET_SECONDS    how long step 1 may wait for the model to be listed
  ANSWER_BUDGET_SECONDS    how long steps 2 and 3 may each wait for an answer or a first token
  STALL_SECONDS            the longest gap allowed between two chunks of the stream, after the first token
  POLL_SECONDS             pause between tries within a budget (default 5)
  MAX_TOKENS               tokens asked for (default 8; at least 1: Dynamo refuses max_tokens 0)
  TERMINATION_LOG          where the message goes (default /dev/termination-log)
"""

import http.client
import json
import os
import socket
import sys
import time
import urllib.parse

PROMPT = "The capital of France is"

# Exit codes, one per cause (0: a token came back).
BAD_CONFIG = 2
UNREACHABLE = 10
NO_MODEL = 11
OTHER_MODEL = 12
NO_ANSWER = 13
STALLED = 14

CAUSES = {
    UNREACHABLE: (
        "the Frontend's Service did not answer; likely cause: the Frontend pod is not serving, or the NetworkPolicy "
        "does not admit this check to the Frontend's port"
    ),
    NO_MODEL: (
        "likely cause: the Frontend cannot load the model card the workers publish. With self-hosted cards it "
        "fetches the files from each worker's system port (9090): check that flow, DYN_SELF_HOST_METADATA on every "
        "worker (all alike) and the Frontend's log; with the Frontend's own copy, check its model-config init "
        "container or volume"
    ),
    OTHER_MODEL: (
        "likely cause: routing. The Frontend serves another model, or another deployment's workers registered under "
        "this graph's Dynamo namespace; check servedModelName and the graph's name"
    ),
    NO_ANSWER: (
        "likely cause: the request plane (Frontend to worker, TCP DYN_TCP_RPC_PORT) or the KV path between prefill "
        "and decode (NIXL; verify gates D and G); read the workers' logs"
    ),
    STALLED: (
        "likely cause: the response stream back to the Frontend (the workers connect back to it on a port it picks) "
        "or decode stopping after the KV transfer; read the decode workers' logs"
    ),
}
STEP_NAMES = {1: "models", 2: "completion", 3: "stream"}


class CheckFailed(Exception):
    def __init__(self, code, step, seen):
        super().__init__(seen)
        self.code = code
        self.step = step
        self.seen = seen


def bad_config(why):
    msg = f"first-token check: {why}"
    print(msg, file=sys.stderr)
    write_log(msg)
    sys.exit(BAD_CONFIG)


def config():
    env = os.environ
    try:
        cfg = {
            "url": env["FRONTEND_URL"].rstrip("/"),
            "model": env["SERVED_MODEL"],
            "models_budget": float(env["MODELS_BUDGET_SECONDS"]),
            "answer_budget": float(env["ANSWER_BUDGET_SECONDS"]),
            "stall": float(env["STALL_SECONDS"]),
            "poll": float(env.get("POLL_SECONDS", "5")),
            "max_tokens": int(env.get("MAX_TOKENS", "8")),
        }
    except (KeyError, ValueError) as e:
        bad_config(f"bad environment ({e}); see the script's header")
    u = urllib.parse.urlsplit(cfg["url"])
    if u.scheme != "http" or not u.hostname or cfg["max_tokens"] < 1:
        bad_config(f"FRONTEND_URL must be http://host:port and MAX_TOKENS >= 1; got {cfg}")
    cfg["host"], cfg["port"] = u.hostname, u.port or 80
    return cfg


def connect(cfg, timeout):
    return http.client.HTTPConnection(cfg["host"], cfg["port"], timeout=max(0.1, timeout))


def request(cfg, method, path, body, timeout):
    """(status, parsed JSON or None, text). Raises OSError on a transport failure or timeout."""
    conn = connect(cfg, timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        text = resp.read(1 << 20).decode("utf-8", "replace")
    finally:
        conn.close()
    try:
        return resp.status, json.loads(text), text
    except ValueError:
        return resp.status, None, text


def clip(s, n=200):
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[:n] + "..."


def listed_models(parsed):
    data = parsed.get("data") if isinstance(parsed, dict) else None
    if not isinstance(data, list):
        return None
    return [m["id"] for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]


def step_models(cfg):
    deadline = time.monotonic() + cfg["models_budget"]
    last = None
    while True:
        left = deadline - time.monotonic()
        try:
            status, parsed, text = request(cfg, "GET", "/v1/models", None, min(left, 30))
            ids = listed_models(parsed) if status == 200 else None
            if ids is not None and cfg["model"] in ids:
                return ids
            last = ("list", ids, status, text)
        except OSError as e:
            last = ("transport", None, None, str(e))
        if time.monotonic() + cfg["poll"] > deadline:
            break
        time.sleep(cfg["poll"])
    kind, ids, status, text = last
    budget = int(cfg["models_budget"])
    if kind == "transport":
        raise CheckFailed(UNREACHABLE, 1, f"GET /v1/models failed for {budget} s: {clip(text)}")
    if ids is None:
        raise CheckFailed(NO_MODEL, 1, f"GET /v1/models answered HTTP {status} {clip(text)} for {budget} s")
    if not ids:
        raise CheckFailed(NO_MODEL, 1, f"/v1/models stayed empty for {budget} s (the Frontend's /health is 200 anyway)")
    raise CheckFailed(OTHER_MODEL, 1, f'"{cfg["model"]}" is not listed after {budget} s; listed: {", ".join(ids)}')


def completion_body(cfg, stream):
    return {"model": cfg["model"], "prompt": PROMPT, "max_tokens": cfg["max_tokens"], "temperature": 0, "stream": stream}


def answered_by(parsed):
    return parsed.get("model") if isinstance(parsed, dict) else None


def chunk_text(parsed):
    choices = parsed.get("choices") if isinstance(parsed, dict) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        t = choices[0].get("text")
        return t if isinstance(t, str) else ""
    return ""


def step_completion(cfg):
    deadline = time.monotonic() + cfg["answer_budget"]
    last = "no attempt"
    while time.monotonic() < deadline:
        try:
            status, parsed, text = request(
                cfg, "POST", "/v1/completions", completion_body(cfg, False), deadline - time.monotonic()
            )
        except OSError as e:
            last = f"no answer: {clip(e)}"
        else:
            if status == 200 and isinstance(parsed, dict):
                if answered_by(parsed) != cfg["model"]:
                    raise CheckFailed(OTHER_MODEL, 2, f"answered by {json.dumps(answered_by(parsed))}")
                if chunk_text(parsed).strip():
                    return chunk_text(parsed)
                last = f"an answer without text: {clip(text)}"
            else:
                last = f"HTTP {status} {clip(text)}"
        if time.monotonic() + cfg["poll"] >= deadline:
            break
        time.sleep(cfg["poll"])
    raise CheckFailed(NO_ANSWER, 2, f"no completion within {int(cfg['answer_budget'])} s; last: {last}")


def sse_events(resp):
    """Yields each `data:` payload of an SSE response as it arrives."""
    for raw in resp:
        line = raw.decode("utf-8", "replace").strip()
        if line.startswith("data:"):
            yield line[5:].strip()


def step_stream(cfg):
    start = time.monotonic()
    conn = connect(cfg, cfg["answer_budget"])
    first_at = None
    text = ""
    try:
        conn.request(
            "POST",
            "/v1/completions",
            body=json.dumps(completion_body(cfg, True)).encode(),
            headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        )
        resp = conn.getresponse()
        if resp.status != 200:
            raise CheckFailed(NO_ANSWER, 3, f"HTTP {resp.status} {clip(resp.read(4096).decode('utf-8', 'replace'))}")
        for data in sse_events(resp):
            if data == "[DONE]":
                if first_at is None:
                    raise CheckFailed(NO_ANSWER, 3, "the stream ended without a token")
                return first_at - start, text
            try:
                chunk = json.loads(data)
            except ValueError:
                raise CheckFailed(NO_ANSWER, 3, f"a chunk is not JSON: {clip(data)}")
            if isinstance(chunk, dict) and "error" in chunk:
                raise CheckFailed(NO_ANSWER, 3, f"an error mid-stream: {clip(json.dumps(chunk['error']))}")
            if answered_by(chunk) != cfg["model"]:
                raise CheckFailed(OTHER_MODEL, 3, f"a chunk answered by {json.dumps(answered_by(chunk))}")
            piece = chunk_text(chunk)
            if piece and first_at is None:
                first_at = time.monotonic()
                # After the first token, each read may wait only the stall budget.
                conn.sock.settimeout(max(0.1, cfg["stall"]))
            text += piece
        raise CheckFailed(NO_ANSWER if first_at is None else STALLED, 3, "the stream closed without [DONE]")
    except socket.timeout:
        if first_at is None:
            raise CheckFailed(NO_ANSWER, 3, f"no first token within {int(cfg['answer_budget'])} s")
        raise CheckFailed(
            STALLED,
            3,
            f"first token after {first_at - start:.1f} s, then nothing for {cfg['stall']:g} s (text so far: {json.dumps(text)})",
        )
    except OSError as e:
        raise CheckFailed(NO_ANSWER if first_at is None else STALLED, 3, f"the stream broke: {clip(e)}")
    finally:
        conn.close()


def message(e):
    cause = CAUSES[e.code]
    if e.code != UNREACHABLE:
        cause = cause[0].upper() + cause[1:]
    return f"first-token check failed at step {e.step} ({STEP_NAMES[e.step]}): {e.seen}. {cause}."


def write_log(text):
    path = os.environ.get("TERMINATION_LOG", "/dev/termination-log")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.encode("utf-8")[:4000].decode("utf-8", "ignore"))
    except OSError as e:
        print(f"first-token check: cannot write {path}: {e}", file=sys.stderr)


def main():
    cfg = config()
    try:
        ids = step_models(cfg)
        print(f"step 1 (models): {cfg['model']} listed ({len(ids)} model(s))", flush=True)
        text = step_completion(cfg)
        print(f"step 2 (completion): {json.dumps(clip(text, 80))}", flush=True)
        ttft, streamed = step_stream(cfg)
        print(f"step 3 (stream): first token after {ttft:.2f} s, to [DONE]: {json.dumps(clip(streamed, 80))}", flush=True)
    except CheckFailed as e:
        msg = message(e)
        print(msg, file=sys.stderr, flush=True)
        write_log(msg)
        return e.code
    write_log(
        f"first token from {cfg['model']}: completion {json.dumps(clip(text, 80))}; "
        f"stream's first token after {ttft:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
