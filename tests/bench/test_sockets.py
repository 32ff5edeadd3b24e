"""The benchmark's check for sockets outside loopback: the kernel's tables, read once."""

from __future__ import annotations

import ipaddress
import os
import socket

import psutil
import pytest

from bench.measure.sampler import Sampler
from bench.measure.sockets import is_loopback, outside_sockets, parse_address

_TABLE_HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0100007F:1F90", ("127.0.0.1", 8080)),
        ("00000000:0050", ("0.0.0.0", 80)),
        ("0A00000A:C350", ("10.0.0.10", 50000)),
        ("00000000000000000000000001000000:0050", ("::1", 80)),
        ("0000000000000000FFFF00000100007F:0016", ("::ffff:127.0.0.1", 22)),
        ("B80D0120000000000000000001000000:01BB", ("2001:db8::1", 443)),
    ],
)
def test_addresses_of_the_kernels_tables_are_read_in_host_order(text, expected):
    ip, port = parse_address(text)
    assert (ipaddress.ip_address(ip), port) == (ipaddress.ip_address(expected[0]), expected[1])


@pytest.mark.parametrize(
    ("ip", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.10", False),
        ("::ffff:10.0.0.1", False),
        ("fe80::1%eth0", False),
        ("not an address", False),
    ],
)
def test_only_loopback_addresses_are_inside(ip, loopback):
    assert is_loopback(ip) is loopback


def test_a_table_gives_the_sockets_with_an_address_outside():
    lines = [
        # listening on loopback; connected on loopback; listening on every address;
        # connected to an outside host; a short line is skipped
        "0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 11 1 x",
        "1: 0100007F:1F90 0100007F:9C40 01 00000000:00000000 00:00000000 00000000 0 0 12 1 x",
        "2: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 13 1 x",
        "3: 0A00000A:C350 0B00000A:01BB 01 00000000:00000000 00:00000000 00000000 0 0 14 1 x",
        "4: garbage",
    ]
    found = outside_sockets(_TABLE_HEADER + "\n".join(lines))
    assert set(found) == {13, 14}
    assert (found[13].local, found[13].remote, found[13].status) == ("0.0.0.0:80", "", "LISTEN")
    assert found[14].remote == "10.0.0.11:443" and found[14].status == "ESTABLISHED"
    assert outside_sockets(_TABLE_HEADER + lines[2], udp=True)[13].status == "NONE"


def test_the_sampler_reports_what_psutil_sees_outside_and_nothing_on_loopback():
    inside, outside = socket.socket(), socket.socket()
    with inside, outside:
        inside.bind(("127.0.0.1", 0))
        inside.listen()
        outside.bind(("0.0.0.0", 0))
        outside.listen()
        sampler = Sampler()
        sampler.watch("tests", os.getpid(), children=False)
        sampler._check_sockets()
        ports = {int(r["local"].rsplit(":", 1)[1]) for r in sampler.outside_sockets}
        assert outside.getsockname()[1] in ports
        assert inside.getsockname()[1] not in ports
        theirs = {
            c.laddr.port
            for c in psutil.Process().net_connections(kind="inet")
            if not all(is_loopback(a.ip) for a in (c.laddr, c.raddr) if a)
        }
        assert ports == theirs
