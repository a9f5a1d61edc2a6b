"""The seccomp filter bwrap loads (`--seccomp FD`) before it starts a sandboxed command.

A network namespace cuts TCP and abstract unix sockets, but not a socket file on disk: the
ssh-agent in /tmp, /var/run/docker.sock and the session bus in $XDG_RUNTIME_DIR stay a
`connect` away. So with the network off, `socket(AF_UNIX, …)` fails with EPERM;
`socketpair` stays allowed (asyncio and multiprocessing need it, and its sockets reach
nothing). Always: `io_uring_*` fail with EPERM (io_uring opens sockets without passing the
filter), x32 calls on x86-64 fail with EPERM, and any other architecture's calls (i386's
`int 0x80`, whose `socketcall` would get past a filter on `socket`) kill the process.

Hand-written classic BPF, a dozen instructions, rather than libseccomp through `pyseccomp`: the
program is short enough to read whole, it needs no C library at run time, and it is a pure
function of its inputs, so the arm64 program is unit-tested here on x86-64
(tests/test_sandbox_seccomp.py runs both through a small BPF interpreter). docs/sandbox.md
says more.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06

ALLOW = 0x7FFF0000
EPERM = 0x00050000 | 1
KILL = 0x80000000
"""SECCOMP_RET_KILL_PROCESS (a kernel before 4.14 kills the thread: still denied)."""
AF_UNIX = 1
X32_BIT = 0x40000000


@dataclass(frozen=True)
class Arch:
    audit: int
    socket: int
    io_uring: tuple[int, ...]
    x32: bool = False


ARCHES = {
    "x86_64": Arch(0xC000003E, socket=41, io_uring=(425, 426, 427), x32=True),
    "aarch64": Arch(0xC00000B7, socket=198, io_uring=(425, 426, 427)),
}
"""`platform.machine()` → the calls to filter. Elsewhere no filter is loaded (the status
line says so)."""
ARCHES["amd64"] = ARCHES["x86_64"]
ARCHES["arm64"] = ARCHES["aarch64"]


def program(machine: str, deny_unix: bool) -> bytes | None:
    """The filter for `machine`, as the bytes of a `struct sock_filter[]`; None if zen has no
    filter for it."""
    arch = ARCHES.get(machine)
    if arch is None:
        return None
    # (code, true-label or None, false-label or None, k); a label is an instruction's index
    code: list[tuple[int, str | None, str | None, int]] = [
        (_LD_W_ABS, None, None, 4),  # seccomp_data.arch
        (_JEQ_K, None, "kill", arch.audit),
        (_LD_W_ABS, None, None, 0),  # seccomp_data.nr
    ]
    if arch.x32:
        code.append((_JGE_K, "eperm", None, X32_BIT))
    code += [(_JEQ_K, "eperm", None, nr) for nr in arch.io_uring]
    if deny_unix:
        code += [
            (_JEQ_K, None, "allow", arch.socket),
            (_LD_W_ABS, None, None, 16),  # the low 32 bits of args[0]: the int the kernel reads
            (_JEQ_K, "eperm", "allow", AF_UNIX),
        ]
    labels = {"allow": len(code), "eperm": len(code) + 1, "kill": len(code) + 2}
    code += [(_RET_K, None, None, ALLOW), (_RET_K, None, None, EPERM), (_RET_K, None, None, KILL)]
    out = bytearray()
    for index, (op, true, false, k) in enumerate(code):
        jt = labels[true] - index - 1 if true else 0
        jf = labels[false] - index - 1 if false else 0
        out += struct.pack("<HBBI", op, jt, jf, k)
    return bytes(out)
