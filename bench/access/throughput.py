"""The access policy's cost at c=100: `python -m bench.access.throughput`.

Figures, not assertions. Two agents built by `react_agent.service.open_agent_service` as
`python -m app` builds them (ChatOpenAI on the benchmark's stub, `python -m bench.stub`,
in a process of its own; the sample database; a SQLite checkpointer each): `none` (no
POLICY_FILE) and `policy` (config/policy.sample.yaml, every question asked as `alice`,
the east_analyst: the stub's SQL is rewritten with the region filters, the denied and
sensitive columns checked, and each model call's input passes the masking boundary).
Questions go through `AgentRunner.start` with the asker's scope, as the accept path gives
it (bench/drivers/graph.py `runner_question`), at a fixed concurrency; rounds alternate
the order of the sides. Prints each round, each side's median questions/s and CPU time per
question, and the ratio `policy / none` (target ≥ 0.95). `--data-url` asks another data
database than the embedded sample (the sample loaded into PostgreSQL, say:
`python -m react_agent.sample_data.load_postgres URL`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bench.measure.agent_sides import measure_sides, run_comparison
from react_agent.service import AgentService

SIDES = ("none", "policy")
SAMPLE_POLICY = Path(__file__).resolve().parents[2] / "config" / "policy.sample.yaml"
ASKER = "alice"


def asker_options(service: AgentService) -> dict[str, Any]:
    """Return the asker's actor and scope where the side has a policy (else none)."""
    if service.policy is None:
        return {}
    actor = service.policy.actor_for(ASKER)
    return {"actor": actor, "scope": service.policy.scope_for(actor)}


async def compare(args: argparse.Namespace, stub_url: str) -> dict[str, Any]:
    """Measure both sides, round after round in alternating order; return every figure."""
    head = await measure_sides(
        args,
        stub_url,
        {
            "none": {},
            # The bench names the asker itself, as a trusted gateway would.
            "policy": {"policy_file": SAMPLE_POLICY, "auth_trusted_gateway": True},
        },
        asker_options,
    )
    qps, cpu = head["median_qps"], head["cpu_ms_per_question"]
    return {
        **head,
        "ratio_policy_none": round(qps["policy"] / qps["none"], 3),
        "cpu_ratio_none_policy": round(cpu["none"] / cpu["policy"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print it as JSON."""
    return run_comparison(argv, __doc__.splitlines()[0], compare)


if __name__ == "__main__":
    sys.exit(main())
