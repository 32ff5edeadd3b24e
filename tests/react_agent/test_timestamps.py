"""The service's two timestamp formats, pinned: the API's and the memory's stored one."""

from __future__ import annotations

import re

from react_agent.timestamps import now_timestamp, storage_timestamp


def test_the_api_timestamp_is_local_iso_time_with_milliseconds():
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}", now_timestamp())


def test_the_memory_stores_local_time_to_the_second_which_sorts_as_text():
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", storage_timestamp())
    earlier, later = storage_timestamp(), storage_timestamp()
    assert earlier <= later
