"""The policy as the service opens and reloads it: keys required, a cut file never applied."""

from __future__ import annotations

import os

import pytest
from pydantic import SecretStr

from app.asking.access import actor_and_scope
from app.http.app_state import agent_service_of
from react_agent.errors import ConfigurationError
from react_agent.service import open_agent_service
from tests.react_agent.access.conftest import POLICY_FILE
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel

KEYS = {"alice": "alice-key-0123456789", "root": "root-key-012345"}
ALICE_LINE = "  alice: {roles: [east_analyst], attributes: {region_id: 1}}\n"


def bearer(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[user]}"}


async def test_a_policy_without_api_keys_stops_start_up_unless_a_gateway_sets_the_user(settings):
    # The opening's typed error: `python -m app` prints it as one line and exits 2.
    policed = settings.model_copy(update={"policy_file": POLICY_FILE})
    with pytest.raises(ConfigurationError, match="API_KEYS") as caught:
        async with open_agent_service(policed, model=ScriptedChatModel()):
            pass
    assert "POLICY_FILE" in str(caught.value) and "AUTH_TRUSTED_GATEWAY=true" in str(caught.value)
    trusted = policed.model_copy(update={"auth_trusted_gateway": True})
    async with open_agent_service(trusted, model=ScriptedChatModel()) as service:
        assert service.policy is not None


async def test_a_half_written_policy_keeps_the_last_good_one_and_health_says_so(settings, tmp_path):
    text = POLICY_FILE.read_text("utf-8")
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(text, "utf-8")
    keys = SecretStr(f"{KEYS['alice']}=alice; {KEYS['root']}")
    policed = settings.model_copy(update={"policy_file": policy_file, "api_keys": keys})
    async with running_service(policed, model=ScriptedChatModel()) as service:

        async def policy_after(written: str, generation: int) -> dict:
            policy_file.write_text(written, "utf-8")
            os.utime(policy_file, ns=(generation, generation * 10**9))
            health = await service.http.get("/health", headers=bearer("root"))
            return health.json()["data"]["policy"]

        def alice():
            return actor_and_scope(agent_service_of(service.app), "alice", None)[1]

        health = (await service.http.get("/health", headers=bearer("root"))).json()
        assert health["data"]["policy"]["status"] == "current", health
        # Cut in the middle of roles: it does not check out; the reason names file and line.
        cut = await policy_after(text[: text.index("  support:")], 2)
        assert cut["status"] == "stale" and "last good policy kept" in cut["reason"]
        assert f"{policy_file}:" in cut["reason"], cut
        # Without alice's entry it parses, and she would fall to support: every region.
        loosened = await policy_after(text.replace(ALICE_LINE, ""), 3)
        assert loosened["status"] == "stale" and "user alice removed" in loosened["reason"]
        assert alice().parameters == {"region_id": 1} and "stores" in alice().row_filters
        # A whole file that only takes something away applies at once.
        tables = "    tables: [orders, order_items, stores, regions, products, customers]"
        tighter = text.replace(tables, tables.replace(" products,", ""))
        assert (await policy_after(tighter, 4))["status"] == "current"
        assert not alice().can_read("products") and alice().can_read("orders")
