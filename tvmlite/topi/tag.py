"""Operator tags (``topi.tag``): schedules use them to recognise operator patterns."""
ELEMWISE = "elemwise"
BROADCAST = "broadcast"
INJECTIVE = "injective"
COMM_REDUCE = "comm_reduce"
COMM_REDUCE_IDX = "comm_reduce_idx"


def is_broadcast(tag: str) -> bool:
    """Whether ``tag`` is an elementwise or broadcast tag (``injective`` prefixes excluded)."""
    if tag in (ELEMWISE, BROADCAST):
        return True
    return tag.startswith(ELEMWISE) or tag.startswith(BROADCAST)


def is_injective(tag: str) -> bool:
    """Whether ``tag`` marks an injective operator (elementwise and broadcast included)."""
    if tag in (ELEMWISE, BROADCAST, INJECTIVE):
        return True
    return tag.startswith((ELEMWISE, BROADCAST, INJECTIVE))
