"""Writing API records into the mirror in bulk: one code path for sync, webhook and staff."""

from dataclasses import dataclass, field


@dataclass
class UpsertCounts:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    missing: int = 0
    failed: int = 0
    changed_ids: list = field(default_factory=list)

    def add(self, other: "UpsertCounts") -> None:
        for name in ("created", "updated", "unchanged", "missing", "failed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict:
        return {n: getattr(self, n) for n in ("created", "updated", "unchanged", "missing", "failed")}


def is_stale(incoming_updated_at, stored_updated_at) -> bool:
    """An older copy of a record (a late event, a slow page) must not roll the mirror back."""
    return bool(incoming_updated_at and stored_updated_at and incoming_updated_at < stored_updated_at)
