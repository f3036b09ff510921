"""relay.TypeFunctor / TypeVisitor / TypeMutator over tensor, tuple, function, incomplete and
reference types, type variables, ADT names and applications, and type relations."""
import pytest

import tvmlite as tvm
from tvmlite import relay


def _types():
    t = relay.TensorType((3, 4), "float32")
    tup = relay.TupleType([t, relay.TensorType((), "int32")])
    return [t, tup, relay.FuncType([t, tup], tup), relay.IncompleteType()]


@pytest.mark.parametrize("typ", _types(), ids=["tensor", "tuple", "func", "incomplete"])
def test_visit_and_identity_mutation(typ):
    with pytest.raises(NotImplementedError):
        relay.TypeFunctor().visit(typ)
    relay.TypeVisitor().visit(typ)
    assert relay.TypeMutator().visit(typ) is typ


def test_mutator_rewrites_nested_dtypes():
    class ToHalf(relay.TypeMutator):
        def visit_tensor_type(self, tt):
            return relay.TensorType(tt.shape, "float16") if tt.dtype == "float32" else tt

    seen = []

    class Count(relay.TypeVisitor):
        def visit_tensor_type(self, tt):
            seen.append(tt.dtype)

    t = relay.TensorType((2,), "float32")
    ft = relay.FuncType([t, relay.TupleType([t, relay.TensorType((), "int8")])], t)
    out = ToHalf().visit(ft)
    Count().visit(out)
    assert seen == ["float16", "int8"]  # each distinct type object visited once
    assert out.ret_type == relay.TensorType((2,), "float16")
    assert tvm.ir.structural_equal(out.arg_types[1].fields[1], relay.TensorType((), "int8"))


def test_adt_and_polymorphic_types_are_visited_and_rewritten():
    a = relay.TypeVar("a")
    lst = relay.GlobalTypeVar("List")
    ft = relay.FuncType([lst(a), relay.RefType(relay.TensorType((2,), "float32"))], a, [a])
    rel = relay.TypeRelation(None, [a, relay.TensorType((), "float32")], 1, None)
    for typ in (a, lst, lst(a), relay.RefType(a), ft, rel):
        with pytest.raises(NotImplementedError):
            relay.TypeFunctor().visit(typ)
        relay.TypeVisitor().visit(typ)
        assert relay.TypeMutator().visit(typ) is typ
    seen = []

    class Vars(relay.TypeVisitor):
        def visit_type_var(self, tv):
            seen.append(tv)

    Vars().visit(ft)
    assert seen == [a]  # the type parameter (once: visits are memoized)

    class ToHalf(relay.TypeMutator):
        def visit_tensor_type(self, tt):
            return relay.TensorType(tt.shape, "float16")

    out = ToHalf().visit(ft)
    b = relay.TypeVar("b")
    assert out == relay.FuncType([lst(b), relay.RefType(relay.TensorType((2,), "float16"))],
                                 b, [b])

    class Bad(relay.TypeMutator):
        def visit_type_var(self, tv):
            return relay.TensorType((), "int32")

    with pytest.raises(tvm.error.TVMError, match="must stay a TypeVar"):
        Bad().visit(ft)
