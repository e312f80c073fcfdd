#!/usr/bin/env python3
"""Counts the parameters of every catalog model with transformers itself (tests/contracts/facts/model-shapes.json).

Usage (on a machine with torch + transformers; no network, no weights):
    python3 tests/contracts/extract/model-shapes.py <dir with the config.json files> > tests/contracts/facts/model-shapes.json

<dir> holds one file per model, named like ai-dynamo/aiconfigurator's model_configs
(`<org>--<name>_config.json`, the models' published config.json). Each model is built from its config
dict on the meta device (`with torch.device("meta"): AutoModelForCausalLM.from_config(cfg)`), so no
memory is allocated and nothing is downloaded. `quantization_config` and `auto_map` are dropped first:
a parameter count does not depend on the storage dtype, and the built-in architecture is the one counted.

Per model it writes the total parameter count, the embedding and lm_head counts, the routed-expert
parameters, and for MoE models the parameters one token activates:
    active = total - routed_expert_params * (1 - experts_per_token / experts).
"""
import json
import os
import re
import sys
from datetime import date

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

# catalog id -> config file in <dir>
MODELS = {
    "meta-llama/Llama-3.1-8B-Instruct": "meta-llama--Meta-Llama-3.1-8B_config.json",
    "meta-llama/Llama-3.1-70B-Instruct": "meta-llama--Meta-Llama-3.1-70B_config.json",
    "meta-llama/Llama-3.1-405B-Instruct": "meta-llama--Meta-Llama-3.1-405B_config.json",
    "nvidia/Llama-3.1-70B-Instruct-FP8": "nvidia--Llama-3.1-70B-Instruct-FP8_config.json",
    "meta-llama/Llama-3.3-70B-Instruct": "meta-llama--Llama-3.3-70B-Instruct_config.json",
    "Qwen/Qwen3-8B": "Qwen--Qwen3-8B_config.json",
    "Qwen/Qwen3-32B": "Qwen--Qwen3-32B_config.json",
    "Qwen/Qwen3-235B-A22B": "Qwen--Qwen3-235B-A22B_config.json",
    "Qwen/Qwen3-235B-A22B-FP8": "Qwen--Qwen3-235B-A22B-FP8_config.json",
    "deepseek-ai/DeepSeek-R1": "deepseek-ai--DeepSeek-R1_config.json",
    "openai/gpt-oss-20b": "openai--gpt-oss-20b_config.json",
    "openai/gpt-oss-120b": "openai--gpt-oss-120b_config.json",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "mistralai--Mixtral-8x7B-v0.1_config.json",
}

ROUTED = re.compile(r"\.experts\.")  # routed experts (DeepSeek's always-on experts are `shared_experts.`)


def experts_of(cfg: dict):
    total = cfg.get("num_local_experts") or cfg.get("num_experts") or cfg.get("n_routed_experts")
    return (total, cfg.get("num_experts_per_tok")) if total else (None, None)


def count(cfg: dict) -> dict:
    cfg = {k: v for k, v in cfg.items() if k not in ("quantization_config", "auto_map", "_name_or_path")}
    config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    total = routed = embed = head = 0
    for name, p in model.named_parameters():
        n = p.numel()
        total += n
        if ROUTED.search(name):
            routed += n
        if name.endswith("embed_tokens.weight"):
            embed += n
        if name.startswith("lm_head."):
            head += n
    e, k = experts_of(cfg)
    out = {"architecture": type(model).__name__, "totalParams": total, "embeddingParams": embed, "lmHeadParams": head}
    if e:
        out.update({"experts": e, "expertsPerToken": k, "routedExpertParams": routed,
                    "activeParams": total - round(routed * (1 - k / e))})
    return out


def main(config_dir: str) -> None:
    facts = {}
    for model_id, file in MODELS.items():
        with open(os.path.join(config_dir, file)) as f:
            facts[model_id] = {"configFile": file, **count(json.load(f))}
    print(json.dumps({
        "provenance": {
            "repository": f"huggingface/transformers (pip) {transformers.__version__} + torch {torch.__version__}",
            "ref": f"transformers=={transformers.__version__}",
            "commit": "see notes",
            "paths": [f"aic-core/src/aiconfigurator_core/model_configs/{f}" for f in MODELS.values()],
            "extracted": date.today().isoformat(),
            "extractor": "tests/contracts/extract/model-shapes.py",
            "notes": "",
        },
        "facts": facts,
    }, indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
