"""Compare measurements with the facts the site states, and say precisely what changed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from semantics.catalogue import BY_ID, FIELDS
from semantics.measurement import Measurement


def show(value: object) -> str:
    """Write a fact as readers see it: yes, no, n/a, or the value itself."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value is None:
        return "n/a"
    return str(value)


def error_type(error: str | None) -> str | None:
    """The exception type of a recorded error (``"TypeError: ..."`` gives ``TypeError``)."""
    return None if error is None else error.split(":", 1)[0]


@dataclass(frozen=True)
class Difference:
    """One fact measured differently from what the site states."""

    op: str
    code: str
    device: str
    field: str
    expected: object
    measured: object

    def __str__(self) -> str:
        return (
            f"{self.op} ({self.code}) on {self.device}: {self.field} is "
            f"{show(self.measured)}, but the site states {show(self.expected)}"
        )


def _torch_version() -> str:
    from importlib import metadata

    return metadata.version("torch")


def differences(measurement: Measurement) -> list[Difference]:
    """Return every field of ``measurement`` that differs from the catalogue's facts."""
    op = BY_ID[measurement.op]
    expected = op.expected(measurement.device)
    found = []

    def differ(name: str, want: object, got: object) -> None:
        if want != got:
            found.append(
                Difference(op.id, op.code, measurement.device, name, want, got)
            )

    # An error is compared by exception type: messages are reworded between releases.
    differ("error", expected.error_on(_torch_version()), error_type(measurement.error))
    for name in FIELDS:
        differ(name, getattr(expected, name), getattr(measurement, name))
    return found


def all_differences(measurements: Iterable[Measurement]) -> list[Difference]:
    """Return the differences of every measurement, in order."""
    return [d for m in measurements for d in differences(m)]
