"""spawn and start_processes: run ``fn(i, *args)`` in ``nprocs`` processes, and if one fails, stop the others and
raise why in the parent (see torch.multiprocessing.spawn)."""

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import time
import traceback
import warnings

__all__ = [
    "ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
    "start_processes",
]


class ProcessException(Exception):
    """A process of a spawn failed: which one (its index and pid)."""

    __slots__ = ("error_index", "error_pid")

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """The function raised in a process; the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a nonzero code, or was killed by a signal."""

    __slots__ = ("exit_code",)

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _run(fn, index, args, error_file):
    """A child's entry point: ``fn(index, *args)``; if it raises, the traceback goes to ``error_file``."""
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass  # stopped on purpose
    except Exception:
        with open(error_file, "w") as file:
            file.write(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes of one spawn; ``join()`` waits for them and raises the first failure (see
    torch.multiprocessing.ProcessContext)."""

    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Wait up to ``timeout`` for a process to end: True once all ended well, False while some still run. When
        one failed, the others get ``grace_period`` to end, then SIGTERM, then SIGKILL, and the failure is raised."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(failed)

    def _wait_all(self, seconds):
        """Join the processes for ``seconds`` in all (one deadline, not ``seconds`` each)."""
        deadline = time.monotonic() + seconds
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))

    def _stop_others(self, grace_period):
        if grace_period is not None:
            self._wait_all(grace_period)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        self._wait_all(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()

    def _failure(self, index):
        process, error_file = self.processes[index], self.error_files[index]
        if os.access(error_file, os.R_OK):
            with open(error_file) as file:
                trace = file.read()
            message = f"\n\n-- Process {index:d} terminated with the following error:\n{trace}"
            return ProcessRaisedException(message, index, process.pid)
        code = process.exitcode
        if code >= 0:
            return ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", index, process.pid,
                                          code)
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"<Unknown signal {-code}>"
        return ProcessExitedException(f"process {index:d} terminated with signal {name}", index, process.pid, code,
                                      name)


def _error_file():
    """A path no file has yet, where a failing child writes its traceback (its existence says the child raised)."""
    descriptor, path = tempfile.mkstemp(prefix="ndgrad-errorfile-", suffix=".txt")
    os.close(descriptor)
    os.unlink(path)
    return path


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``; join them unless ``join`` is
    False, in which case the ProcessContext is returned (see torch.multiprocessing.start_processes)."""
    context = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for index in range(nprocs):
        error_files.append(_error_file())
        process = context.Process(target=_run, args=(fn, index, args, error_files[-1]), daemon=daemon)
        process.start()
        processes.append(process)
    spawned = ProcessContext(processes, error_files)
    if not join:
        return spawned
    while not spawned.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """start_processes with the spawn start method, the only one it takes (see torch.multiprocessing.spawn)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different start_method "
            "use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
