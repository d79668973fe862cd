"""This machine's network addresses: the one to print in the page's link, and every one it has, for the
check that a request's ``Host`` names this machine."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from pathlib import Path

__all__ = ["is_loopback", "lan_address", "machine_addresses"]

_IF_INET6 = Path("/proc/net/if_inet6")  # Linux lists every IPv6 address of every interface here


def is_loopback(host: str) -> bool:
    """Whether a listening address is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """An address of this machine that others on the LAN can reach (127.0.0.1 when none is known).

    The address the kernel would send from towards another network (a UDP socket's connect sends
    nothing), else the first IPv4 address of an interface other than loopback. Not the host name's:
    board images map it to 127.0.1.1 in /etc/hosts.
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: any address off this machine picks the route
        routed = str(probe.getsockname()[0])
        if not routed.startswith(("127.", "0.")):
            return routed
    for address in _ipv4_addresses():
        if not address.startswith("127."):
            return address
    return "127.0.0.1"


def machine_addresses() -> set[str]:
    """Every IP address of this machine's interfaces, IPv4 and IPv6, in their compressed text form."""
    found = set(_ipv4_addresses())
    with contextlib.suppress(OSError):
        for line in _IF_INET6.read_text(encoding="ascii").splitlines():
            digits = line.split()[0] if line.split() else ""
            if len(digits) == 32:
                found.add(str(ipaddress.IPv6Address(bytes.fromhex(digits))))
    return found


def _ipv4_addresses() -> list[str]:
    addresses = []
    for _index, name in socket.if_nameindex():
        address = _interface_address(name)
        if address:
            addresses.append(address)
    return addresses


def _interface_address(name: str) -> str | None:
    """The IPv4 address of network interface ``name`` (SIOCGIFADDR), None if it has none."""
    import fcntl
    import struct

    siocgifaddr = 0x8915
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("256s", name.encode()[:15])
        return socket.inet_ntoa(fcntl.ioctl(probe.fileno(), siocgifaddr, request)[20:24])
    return None
