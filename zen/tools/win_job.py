"""Windows Job objects: a command's whole process tree, ended as one, and with zen.

Windows has no process groups that a kill reaches (`taskkill /T` walks parent links, which
break as soon as a parent exits, and Wine's has no `/T` at all). A Job object holds every
process started inside it, whatever becomes of their parents: the command starts suspended
(CREATE_SUSPENDED), joins a new job and only then runs, so nothing it starts can be outside.
`TerminateJobObject` ends them all; the job is kill-on-close, so when zen dies, however it
dies, Windows closes the last handle and ends them too. ctypes only (no pywin32 needed).
"""

from __future__ import annotations

import codecs
import ctypes
import functools
import sys
import time

assert sys.platform == "win32"  # imported on Windows only; mypy checks the rest only there
from ctypes import wintypes  # noqa: E402

CREATE_SUSPENDED = 0x00000004
CREATE_NEW_PROCESS_GROUP = 0x00000200
CREATE_NO_WINDOW = 0x08000000
CREATION_FLAGS = CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW | CREATE_SUSPENDED
"""A process group of its own, a hidden console of its own (a child can neither read nor write
zen's console, nor get its Ctrl-C), and suspended until it is in its job."""

_KILL_ON_JOB_CLOSE = 0x2000
_EXTENDED_LIMITS = 9
_ACCOUNTING = 1
_PROCESS_ID_LIST = 3
_PROCESS_SET_QUOTA = 0x0100
_PROCESS_TERMINATE = 0x0001
_PROCESS_SUSPEND_RESUME = 0x0800


class _BasicLimits(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_int64),
        ("PerJobUserTimeLimit", ctypes.c_int64),
        ("LimitFlags", wintypes.DWORD),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", wintypes.DWORD),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", wintypes.DWORD),
        ("SchedulingClass", wintypes.DWORD),
    ]


class _ExtendedLimits(ctypes.Structure):
    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", ctypes.c_uint64 * 6),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


class _Accounting(ctypes.Structure):
    _fields_ = [
        ("TotalUserTime", ctypes.c_int64),
        ("TotalKernelTime", ctypes.c_int64),
        ("ThisPeriodTotalUserTime", ctypes.c_int64),
        ("ThisPeriodTotalKernelTime", ctypes.c_int64),
        ("TotalPageFaultCount", wintypes.DWORD),
        ("TotalProcesses", wintypes.DWORD),
        ("ActiveProcesses", wintypes.DWORD),
        ("TotalTerminatedProcesses", wintypes.DWORD),
    ]


class _PidList(ctypes.Structure):
    _fields_ = [
        ("NumberOfAssignedProcesses", wintypes.DWORD),
        ("NumberOfProcessIdsInList", wintypes.DWORD),
        ("ProcessIdList", ctypes.c_size_t * 64),
    ]


@functools.cache
def _kernel32() -> ctypes.WinDLL:
    k = ctypes.WinDLL("kernel32", use_last_error=True)
    k.CreateJobObjectW.restype = wintypes.HANDLE
    k.CreateJobObjectW.argtypes = [ctypes.c_void_p, wintypes.LPCWSTR]
    k.OpenProcess.restype = wintypes.HANDLE
    k.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
    for name in ("SetInformationJobObject", "QueryInformationJobObject"):
        getattr(k, name).restype = wintypes.BOOL
    k.AssignProcessToJobObject.argtypes = [wintypes.HANDLE, wintypes.HANDLE]
    k.TerminateJobObject.argtypes = [wintypes.HANDLE, wintypes.UINT]
    k.TerminateProcess.argtypes = [wintypes.HANDLE, wintypes.UINT]
    k.CloseHandle.argtypes = [wintypes.HANDLE]
    return k


def _error(what: str) -> OSError:
    code = ctypes.get_last_error()  # type: ignore[attr-defined]
    return OSError(code, f"{what} failed ({ctypes.FormatError(code).strip()})")  # type: ignore[attr-defined]


class Job:
    """One command's job. Made by `contain`; `terminate` ends every process in it."""

    def __init__(self, handle: int) -> None:
        self.handle = handle

    def active(self) -> list[int]:
        """The pids of the processes still in the job (at most 64 listed)."""
        found = _PidList()
        k = _kernel32()
        ok = k.QueryInformationJobObject(
            wintypes.HANDLE(self.handle),
            _PROCESS_ID_LIST,
            ctypes.byref(found),
            ctypes.sizeof(found),
            None,
        )
        if not ok:
            counts = _Accounting()
            if not k.QueryInformationJobObject(
                wintypes.HANDLE(self.handle),
                _ACCOUNTING,
                ctypes.byref(counts),
                ctypes.sizeof(counts),
                None,
            ):
                return []
            return [0] * counts.ActiveProcesses  # how many, not which
        return list(found.ProcessIdList[: found.NumberOfProcessIdsInList])

    def terminate(self, within: float = 0.5) -> tuple[int, list[int]]:
        """End every process in the job; (how many there were, pids still alive after
        `within` seconds). Ending is asynchronous in Windows, usually done in milliseconds."""
        before = len(self.active())
        _kernel32().TerminateJobObject(wintypes.HANDLE(self.handle), 1)
        deadline = time.monotonic() + within
        while (left := self.active()) and time.monotonic() < deadline:
            time.sleep(0.01)
        return before, left

    def close(self) -> None:
        """Close the handle. Kill-on-close: anything still in the job ends now."""
        if self.handle:
            _kernel32().CloseHandle(wintypes.HANDLE(self.handle))
            self.handle = 0


def contain(pid: int) -> Job | None:
    """Put the suspended process `pid` (started with CREATION_FLAGS) into a new kill-on-close
    job, then let it run. None, and the process runs outside any job, when Windows refuses a
    job; OSError, with the process ended, when it cannot be resumed."""
    k = _kernel32()
    process = k.OpenProcess(
        _PROCESS_SET_QUOTA | _PROCESS_TERMINATE | _PROCESS_SUSPEND_RESUME, False, pid
    )
    if not process:
        raise _error(f"OpenProcess({pid})")
    job: Job | None = None
    try:
        job = _new_job(k)
        if job is not None and not k.AssignProcessToJobObject(
            wintypes.HANDLE(job.handle), wintypes.HANDLE(process)
        ):
            job.close()
            job = None
        # NtResumeProcess (ntdll; what psutil uses) resumes the main thread, whose handle
        # subprocess.Popen does not keep.
        if ctypes.WinDLL("ntdll").NtResumeProcess(wintypes.HANDLE(process)) != 0:
            k.TerminateProcess(wintypes.HANDLE(process), 1)
            if job is not None:
                job.close()
            raise OSError(f"could not resume process {pid}")
        return job
    finally:
        k.CloseHandle(wintypes.HANDLE(process))


def _new_job(k: ctypes.WinDLL) -> Job | None:
    handle = k.CreateJobObjectW(None, None)
    if not handle:
        return None
    limits = _ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = _KILL_ON_JOB_CLOSE
    job = Job(handle)
    if not k.SetInformationJobObject(
        wintypes.HANDLE(handle), _EXTENDED_LIMITS, ctypes.byref(limits), ctypes.sizeof(limits)
    ):
        job.close()
        return None
    return job


def oem_code_page() -> str:
    """The codec of the OEM code page: what a new console (a command's hidden one) starts in."""
    try:
        return codecs.lookup(f"cp{_kernel32().GetOEMCP()}").name
    except LookupError:
        return "cp437"
