"""Sockets outside loopback: the kernel's socket tables read once, then matched to processes.

Asking psutil for each watched process's connections parses the whole of /proc/net/tcp
(and tcp6, udp, udp6) once per process: with a few dozen PostgreSQL backends and
thousands of loopback sockets under load, the check every two seconds took most of a
core of the load generator, CPU the servers under test then lacked. Here the tables are
read once per check; a process's descriptors are read only when some socket is outside.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

TABLES = ("/proc/net/tcp", "/proc/net/tcp6", "/proc/net/udp", "/proc/net/udp6")

_TCP_STATES = {
    "01": "ESTABLISHED",
    "02": "SYN_SENT",
    "03": "SYN_RECV",
    "04": "FIN_WAIT1",
    "05": "FIN_WAIT2",
    "06": "TIME_WAIT",
    "07": "CLOSE",
    "08": "CLOSE_WAIT",
    "09": "LAST_ACK",
    "0A": "LISTEN",
    "0B": "CLOSING",
}


@dataclass(frozen=True)
class OutsideSocket:
    """A socket with an address that is not loopback (the unspecified address included)."""

    local: str
    remote: str
    status: str


def parse_address(text: str) -> tuple[str, int]:
    """Return the IP and port of a /proc/net table's `hex-address:hex-port`."""
    address, port = text.split(":")
    raw = bytes.fromhex(address)
    # Each 32-bit word is in the host's (little-endian) order.
    packed = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(packed)), int(port, 16)


def is_loopback(ip: str) -> bool:
    """Whether `ip` is loopback (IPv4-mapped IPv6 included)."""
    try:
        parsed = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return False
    mapped = getattr(parsed, "ipv4_mapped", None)
    return (mapped or parsed).is_loopback


def outside_sockets(table_text: str, *, udp: bool = False) -> dict[int, OutsideSocket]:
    """Return inode → socket for each line of a /proc/net table with an address outside."""
    found: dict[int, OutsideSocket] = {}
    for line in table_text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 10:
            continue
        local, remote = parse_address(fields[1]), parse_address(fields[2])
        # A remote of 0.0.0.0:0 is "none" (a listening or unconnected socket).
        addresses = [local] + ([remote] if remote[1] else [])
        if all(is_loopback(ip) for ip, _ in addresses):
            continue
        status = "NONE" if udp else _TCP_STATES.get(fields[3], fields[3])
        found[int(fields[9])] = OutsideSocket(
            f"{local[0]}:{local[1]}", f"{remote[0]}:{remote[1]}" if remote[1] else "", status
        )
    return found


def outside_socket_table() -> dict[int, OutsideSocket]:
    """Return inode → socket for every inet socket of this network namespace outside loopback."""
    found: dict[int, OutsideSocket] = {}
    for path in TABLES:
        try:
            with open(path) as table:
                found.update(outside_sockets(table.read(), udp="udp" in path))
        except OSError:
            continue
    return found


def socket_inodes(pid: int) -> set[int]:
    """Return the inodes of the sockets process `pid` holds (none if it is gone)."""
    inodes: set[int] = set()
    fd_dir = f"/proc/{pid}/fd"
    try:
        names = os.listdir(fd_dir)
    except OSError:
        return inodes
    for name in names:
        try:
            target = os.readlink(f"{fd_dir}/{name}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes
