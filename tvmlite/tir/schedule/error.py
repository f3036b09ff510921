"""The error every schedule primitive raises when its legality conditions do not hold."""
from __future__ import annotations

from ...error import TVMError

RENDER_LEVELS = ("detail", "fast", "none")


class ScheduleError(TVMError):
    """An illegal schedule request (``tvm.tir.ScheduleError``).

    The message names the primitive, the block or loop, and the violated condition; the same
    three parts are kept as ``primitive``, ``what`` and ``condition``.
    """

    def __init__(self, message: str, primitive: str = "", what: str = "",
                 condition: str = ""):
        super().__init__(message)
        self.primitive, self.what, self.condition = primitive, what, condition

    def render(self, level: str) -> None:
        """Set the message for ``error_render_level`` ``level`` (classic TVM's levels):
        "detail" names primitive, block or loop and condition; "fast" the primitive and the
        condition; "none" is ``ScheduleError: (not rendered)``."""
        if level == "none":
            self.args = ("ScheduleError: (not rendered)",)
        elif level == "fast" and self.primitive:
            # classic's generic text for the kind of error, where one is set
            fast = getattr(self, "fast_text", None) or self.condition
            self.args = (f"ScheduleError: {self.primitive}: {fast}",)


class HandleError(ScheduleError, IndexError):
    """A handle that names nothing in this schedule (removed, or made by another schedule);
    an ``IndexError`` too, as classic TVM's symbol-table lookup raises."""


def fail(primitive: str, what: str, condition: str) -> "ScheduleError":
    """Build the error for ``primitive`` applied to ``what`` (a block or loop description)."""
    return ScheduleError(f"ScheduleError: {primitive}: {what}: {condition}", primitive, what,
                         condition)


def allocated_write(state, block, buffer_index, prim: str, what: str, action: str):
    """The ``buffer_index``-th buffer ``block`` writes (or the written buffer of that name, or
    that buffer itself); it must be allocated in the function (not a parameter), since
    ``action`` changes how it is stored."""
    if not isinstance(buffer_index, int):
        named = [k for k, w in enumerate(block.writes)
                 if w.buffer is buffer_index or w.buffer.name == buffer_index]
        if len(named) != 1:
            raise fail(prim, what, f"the block writes {len(named) or 'no'} buffers called "
                       f"{getattr(buffer_index, 'name', buffer_index)!r}")
        buffer_index = named[0]
    if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(block.writes):
        raise fail(prim, what, f"buffer_index {buffer_index!r} is out of range (the block "
                   f"writes {len(block.writes)} buffers)")
    buf = block.writes[buffer_index].buffer
    if state.is_output_buffer(buf):
        raise fail(prim, what, f'"{buf.name}" is a function parameter; only an allocated '
                   f"buffer can {action}")
    return buf
