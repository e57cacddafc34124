"""The lab's user-facing error: what went wrong and, where known, the exact fix."""

from __future__ import annotations


class LabError(Exception):
    """An error the CLI prints as a clear message (no traceback) and exits non-zero for."""

    def __init__(self, message: str, fix: str | None = None, details: str | None = None):
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.details = details

    def render(self) -> str:
        text = f"error: {self.message}"
        if self.details:
            text += "\n" + "\n".join("  " + line for line in self.details.rstrip().splitlines())
        if self.fix:
            text += f"\nfix: {self.fix}"
        return text


class RunStopped(LabError):
    """The run cannot go on at all (its work directory's disk is nearly full, ...): it stops as a
    whole, every figure so far kept, and `--resume` goes on once the cause is gone. Never taken for
    one app/mode's failure, which the run records and goes on from."""


class AppFailed(Exception):
    """This app/mode cannot be measured further in this run (the reason is recorded)."""


class BudgetRefused(AppFailed):
    """One more instance does not fit a budget that counts what instances may use (a cluster's
    ResourceQuota): the budget's verdict, before any instance runs out of memory."""
