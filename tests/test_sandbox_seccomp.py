"""The seccomp programs, run through a small classic-BPF interpreter: x86-64's is also tested
for real (test_sandbox_wall_e2e.py), arm64's only here."""

from __future__ import annotations

import struct

import pytest

from zen.tools.sandbox.seccomp import ALLOW, ARCHES, EPERM, KILL, program

AUDIT_I386 = 0x40000003
AUDIT_ARM = 0x40000028


def run(prog: bytes, nr: int, arch: int, arg0: int = 0) -> int:
    """What the kernel would do for one call: a classic BPF interpreter for the instructions
    seccomp programs use (load word absolute, jeq/jge with a constant, return a constant)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    code = [struct.unpack("<HBBI", prog[i : i + 8]) for i in range(0, len(prog), 8)]
    acc, pc = 0, 0
    for _ in range(len(code) + 1):
        op, jt, jf, k = code[pc]
        if op == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x35):
            hit = acc == k if op == 0x15 else acc >= k
            pc += 1 + (jt if hit else jf)
        elif op == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected instruction {op:#x}")
    raise AssertionError("the program did not return")


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_unix_sockets_refused_with_the_network_off(machine: str) -> None:
    arch = ARCHES[machine]
    prog = program(machine, deny_unix=True)
    assert prog is not None
    assert run(prog, arch.socket, arch.audit, arg0=1) == EPERM  # AF_UNIX
    assert run(prog, arch.socket, arch.audit, arg0=(7 << 32) | 1) == EPERM  # the int is 1
    assert run(prog, arch.socket, arch.audit, arg0=2) == ALLOW  # AF_INET (no network anyway)
    assert run(prog, arch.socket, arch.audit, arg0=10) == ALLOW
    socketpair = {"x86_64": 53, "aarch64": 199}[machine]
    assert run(prog, socketpair, arch.audit, arg0=1) == ALLOW
    assert run(prog, 0, arch.audit) == ALLOW
    for nr in arch.io_uring:
        assert run(prog, nr, arch.audit) == EPERM
    networked = program(machine, deny_unix=False)
    assert networked is not None
    assert run(networked, arch.socket, arch.audit, arg0=1) == ALLOW
    assert run(networked, arch.io_uring[0], arch.audit) == EPERM


def test_other_architectures_and_x32_are_denied() -> None:
    x86 = ARCHES["x86_64"]
    prog = program("x86_64", deny_unix=True)
    assert prog is not None
    assert run(prog, 102, AUDIT_I386) == KILL  # i386 socketcall
    assert run(prog, 20, AUDIT_I386) == KILL
    assert run(prog, 0x40000000 | x86.socket, x86.audit, arg0=1) == EPERM  # x32 socket
    assert run(prog, 0x40000000 | 39, x86.audit) == EPERM
    arm = program("aarch64", deny_unix=False)
    assert arm is not None
    assert run(arm, 281, AUDIT_ARM) == KILL  # arm32 compat calls
    assert run(arm, 39, x86.audit) == KILL


def test_no_filter_where_zen_has_none() -> None:
    assert program("riscv64", deny_unix=True) is None
