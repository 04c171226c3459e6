"""One measured operation: the entry ``semantics.json`` holds, readable without torch.

The site renders its pages from these entries; a rebuild that reuses the previous
build's measurements therefore never imports torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from semantics.catalogue import FIELDS


@dataclass(frozen=True)
class Measurement:
    """Every measured fact about one operation on one device (one JSON entry)."""

    op: str
    code: str
    device: str
    shares_storage: bool | None
    writes_propagate: bool | None
    returns_self: bool | None
    result_requires_grad: bool | None
    result_is_leaf: bool | None
    grad_flows_to_source: bool | None
    shares_version_counter: bool | None
    error: str | None

    def to_json(self) -> dict[str, object]:
        """Return the entry as the ``semantics.json`` schema orders it."""
        entry: dict[str, object] = {
            "op": self.op,
            "code": self.code,
            "device": self.device,
        }
        entry.update({name: getattr(self, name) for name in FIELDS})
        entry["error"] = self.error
        return entry


def from_json(entry: dict[str, object]) -> Measurement:
    """Rebuild a measurement from its ``semantics.json`` entry."""
    return Measurement(**entry)  # type: ignore[arg-type]
