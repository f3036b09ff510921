"""Errors raised to users."""


class TVMError(RuntimeError):
    """Base error of tvmlite (``tvm.TVMError``)."""


class InternalError(TVMError):
    """A bug in tvmlite itself."""


class CompileError(TVMError):
    """The C compiler failed; the message holds the command and its output."""


class DiagnosticError(TVMError):
    """A TVMScript program is malformed; the message points at the source line."""
