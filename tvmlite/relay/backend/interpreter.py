"""Classic ``relay.backend.interpreter``: the values the interpreter (``create_executor``
kind "debug", run by the relay VM here) gives back."""
from .vm import Closure, ConstructorValue, RefValue

__all__ = ["ConstructorValue", "RefValue", "Closure"]
