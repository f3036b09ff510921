"""The relay text format: classic's printed forms, parse(astext(x)) == x on random programs,
and clear errors on bad input."""
import warnings

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relay, te
from tvmlite.error import DiagnosticError, TVMError

rng = np.random.default_rng(17)

SEMVER = '#[version = "0.0.5"]\n'
SHAPE = (2, 3)


def roundtrip(node):
    """astext, parse back, compare structurally; the text."""
    text = node.astext()
    back = relay.parse_expr(text) if isinstance(node, relay.Expr) else relay.fromtext(text)
    tvm.ir.assert_structural_equal(back, node, map_free_vars=True)
    return text


def _program(rng):
    """A random well-typed function over (2, 3) float32 tensors: operators with attributes,
    shared nodes, nested tuples and projections, lets, ifs, an inner function and constants
    (scalars inline, tensors in the metadata section)."""
    x = relay.var("x", shape=SHAPE)
    y = relay.var("y", shape=SHAPE)
    cond = relay.var("cond", "bool")
    pool = [x, y]

    def pick():
        return pool[rng.integers(len(pool))]

    for _ in range(int(rng.integers(4, 12))):
        kind = rng.integers(11)
        a, b = pick(), pick()
        if kind == 0:
            e = relay.add(a, b) if rng.integers(2) else relay.multiply(a, b)
        elif kind == 1:
            e = relay.nn.softmax(a, axis=int(rng.choice([0, 1, -1])))
        elif kind == 2:
            e = relay.transpose(relay.transpose(a, axes=(1, 0)), axes=[1, 0])
        elif kind == 3:
            e = relay.reshape(relay.reshape(a, newshape=(3, 2)), newshape=SHAPE)
        elif kind == 4:
            e = relay.squeeze(relay.expand_dims(a, axis=1, num_newaxis=2), axis=[1, 2])
        elif kind == 5:
            e = relay.clip(a, float(rng.uniform(-2, 0)), float(rng.uniform(0.1, 2)))
        elif kind == 6:  # nested tuple and projections
            t = relay.Tuple([a, relay.Tuple([b, a])])
            e = relay.subtract(relay.TupleGetItem(t, 0),
                               relay.TupleGetItem(relay.TupleGetItem(t, 1), 0))
        elif kind == 7:
            v = relay.var("v", shape=SHAPE)
            e = relay.Let(v, relay.nn.relu(a), relay.add(v, v))
        elif kind == 8:
            e = relay.If(cond, relay.nn.relu(a), relay.negative(b))
        elif kind == 9:
            p = relay.var("p", shape=SHAPE)
            e = relay.Call(relay.Function([p], relay.multiply(p, relay.const(2.0))), [a])
        else:
            data = rng.standard_normal(SHAPE).astype("float32")
            e = relay.add(a, relay.const(data) if rng.integers(2)
                          else relay.const(float(rng.standard_normal()), "float32"))
        pool.append(e)
    out = relay.Tuple([pool[-1], pick()]) if rng.integers(2) else pool[-1]
    return relay.Function([x, y, cond], out)


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_roundtrip(seed):
    rng = np.random.default_rng(seed)
    f = _program(rng)
    roundtrip(f)
    roundtrip(f.body)  # an expression with free variables: `free_var %x: ...;`
    mod = relay.transform.InferType()(tvm.IRModule.from_expr(f))
    text = roundtrip(mod)
    assert text.startswith(SEMVER + "def @main(%x: Tensor[(2, 3), float32] /* ty=")
    back = relay.fromtext(text)  # classic's parser infers the module's types
    assert back["main"].body.checked_type == mod["main"].body.checked_type


def test_classic_printed_forms():
    assert relay.const(42, "int16").astext() == SEMVER + "42i16"
    assert relay.const(42, "int64").astext() == SEMVER + "42i64"
    assert relay.const(3.0, "float16").astext() == SEMVER + "3f16"
    assert relay.const(3.0, "float64").astext() == SEMVER + "3f64"
    assert relay.const(True).astext() == SEMVER + "True"
    tup = relay.Tuple([relay.const(0), relay.const(0)])
    x = relay.var("x")
    assert roundtrip(relay.Let(x, tup, tup)) == SEMVER + "%0 = (0, 0);\nlet %x = %0;\n%0"
    assert roundtrip(relay.Let(x, tup, x)) == SEMVER + "let %x = (0, 0);\n%x"
    assert roundtrip(relay.var("1")) == SEMVER + "free_var %v1;\n%v1"
    y = relay.var("y")
    inner = relay.Call(relay.Function([y], y), [relay.const(1)])
    prog = relay.Call(relay.Function([x], x), [inner])
    assert roundtrip(prog) == SEMVER + (
        "%0 = fn (%y) {\n  %y\n};\n%1 = %0(1);\n%2 = fn (%x) {\n  %x\n};\n%2(%1)")
    # two variables of one name print as %x, %x1 and parse back as two
    a, b = relay.var("x", shape=(2,)), relay.var("x", shape=(2,))
    assert "%x1" in roundtrip(relay.Function([a, b], relay.add(a, b)))


def test_attrs_print_when_not_default():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.var("w", shape=(2, 4, 3, 3))
    body = relay.nn.max_pool2d(relay.nn.conv2d(x, w, padding=(1, 1), channels=2,
                                               kernel_size=(3, 3)), pool_size=(2, 2),
                               strides=(2, 2))
    body = relay.transpose(relay.reshape(body, newshape=(2, 9)), axes=[1, 0])
    text = roundtrip(relay.Function([x, w], body))
    assert "padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3]" in text
    assert "nn.max_pool2d(%0, pool_size=[2, 2], strides=[2, 2])" in text
    assert "reshape(%1, newshape=[2, 9])" in text
    assert "transpose(%2, axes=[1, 0])" in text
    assert "layout" not in text  # defaults are left out (the parser fills them in)
    assert "softmax(%x)" in relay.nn.softmax(relay.var("x")).astext()
    assert "axis=2" in roundtrip(relay.nn.softmax(relay.var("x"), axis=2))
    # a float attribute prints so that it reads back exactly
    c = relay.clip(relay.var("x", shape=(2,)), 1 / 3, 0.5)
    assert "a_min=0.3333333333333333f, a_max=0.5f" in roundtrip(c)


def test_function_attrs_and_null_attribute():
    x = relay.var("x", shape=(2,))
    f = relay.Function([x], relay.nn.relu(x)).with_attr("Primitive", 1)
    f = f.with_attr("Name", "k").with_attr("TestAttribute", None)
    text = roundtrip(f)
    assert 'Primitive=1, Name="k", TestAttribute=None) {' in text


def test_metadata_section():
    n = te.size_var("n")
    x = relay.var("x", shape=(n, 10))
    data = np.arange(10, dtype="float32")
    f = relay.Function([x], relay.add(x, relay.const(data)))
    text = roundtrip(f)
    assert "meta[tir.SizeVar][0]" in text and "meta[relay.Constant][0]" in text
    assert "#[metadata]" in text and "type_key" in text
    brief = str(f)
    assert "meta[tir.SizeVar][0]" in brief and "#[metadata]" not in brief
    assert "type_key" not in f.astext(show_meta_data=False)
    assert "metadata section has been omitted" in f.astext(show_meta_data=False)
    # classic's init_meta_table supplies the objects of a text without a metadata section
    src = SEMVER + "def @main(%a: Tensor[(10), float32]) {\n  add(%a, meta[relay.Constant][0])\n}"
    mod = relay.parse(src, init_meta_table={"relay.Constant": [relay.const(data)]})
    np.testing.assert_array_equal(mod["main"].body.args[1].data.numpy(), data)


def test_module_with_global_calls_and_annotate():
    x = relay.var("x", "float32")
    y = relay.var("y", "float32")
    mod = tvm.IRModule()
    z = relay.add(x, y)
    mod["myf"] = relay.Function([x, y], relay.add(z, z))
    mod = relay.transform.InferType()(mod)
    text = roundtrip(mod)
    assert "def @myf(%x: float32 /* ty=float32 */" in text
    assert "add(%0, %0) /* ty=float32 */" in text and "add(%0, %0) /* ty=float32 */" in str(mod)
    shown = mod.astext(annotate=lambda e: " #call" if isinstance(e, relay.Call) else "")
    assert "add(%x, %y) #call;" in shown and "ty=" not in shown
    src = SEMVER + ("def @f(%a: float32) -> float32 {\n  %a\n}\n\n"
                    "def @main(%b: float32) -> float32 {\n  @f(%b)\n}\n")
    two = relay.parse(src)
    call = two["main"].body
    assert isinstance(call.op, tvm.ir.GlobalVar) and call.op.name_hint == "f"
    assert relay.parse(relay.parse(src).astext()).astext() == two.astext()


def test_operators_and_sequences():
    one = relay.const(1)
    assert tvm.ir.structural_equal(relay.parse_expr("1 * 1 + 1"),
                                   relay.add(relay.multiply(one, one), one))
    assert not tvm.ir.structural_equal(relay.parse_expr("1 * 1 + 1"),
                                       relay.parse_expr("1 * (1 + 1)"))
    assert tvm.ir.structural_equal(relay.parse_expr("1 - 1 - 1"),
                                   relay.parse_expr("(1 - 1) - 1"))
    assert tvm.ir.structural_equal(relay.parse_expr("1 == 1 < 1 + 1 * 1"),
                                   relay.parse_expr("1 == (1 < (1 + (1 * 1)))"))
    assert relay.parse_expr("1 >= 2").op.name == "greater_equal"
    assert relay.parse_expr("--10").data.numpy() == 10
    seq = relay.parse_expr("(); ()")
    assert isinstance(seq, relay.Let) and isinstance(seq.body, relay.Tuple)
    c = relay.parse_expr("/* a /* nested */ comment */ 2147483648 // int64 past int32")
    assert c.data.dtype == "int64"


def test_tvm_parser_is_the_deprecated_alias():
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        e = tvm.parser.parse_expr("add(1, 2)")
    assert e.op.name == "add" and any("deprecated" in str(w.message) for w in got)


def test_long_chain_roundtrip_without_recursion():
    x = relay.var("x", shape=(2,))
    z = x
    for _ in range(5000):
        z = relay.add(z, relay.const(1.0))
    text = roundtrip(relay.Function([x], z))
    assert "%4998 = add(%4997, 1f);" in text


@pytest.mark.parametrize("src, where, msg", [
    ("fn (%x) {\n  add(%x, ;)\n}", ":2:11:", "expected an expression"),
    ("let %x = 1;\n%y", ":2:1:", "unbound local variable `%y`"),
    ("nn.nope(1)", ":1:1:", "operator `nn.nope` not found"),
    ("32768i16", ":1:1:", "unrepresentable in width 16"),
    ("2147483648i32", ":1:1:", "unrepresentable in width 32"),
    ("1.5", ":1:1:", "a float literal needs the suffix f"),
    ("3.5e38f", ":1:1:", "unrepresentable in width 32"),
    ("(1, 2", ":1:6:", "expected `,` or `)` in a tuple"),
    ("let x = 1; ()", ":1:5:", "a let binds a local variable"),
    ("1 2", ":1:3:", "expected the end of the input"),
    ("nn.softmax(%x, axis=1)", ":1:12:", "unbound local variable `%x`"),
    ("free_var %x;\nnn.softmax(%x, axs=1)", ":2:", "has no attribute(s) ['axs']"),
    ("meta[relay.Constant][0]", ":1:1:", "not in the metadata table"),
    ("%0", ":1:1:", "`%0` is not bound"),
    ("/* open", ":1:1:", "unterminated comment"),
])
def test_syntax_errors_name_line_and_column(src, where, msg):
    with pytest.raises(DiagnosticError) as err:
        relay.parse_expr(src)
    assert where in str(err.value) and msg in str(err.value)


def test_module_errors_and_unsupported():
    with pytest.raises(DiagnosticError, match="version header"):
        relay.parse("def @main() { 0 }")
    with pytest.raises(DiagnosticError, match=r"from_string:2:1: .*expected a definition"):
        relay.parse(SEMVER + "%x")
    with pytest.raises(DiagnosticError, match="duplicate definition of `List`"):
        relay.parse(SEMVER + "type List[A] { Nil }\ntype List[A] { Cons(A) }\n")
    with pytest.raises(DiagnosticError, match="duplicate constructor `Lmao`"):
        relay.parse(SEMVER + "type Ayy { Lmao }\ntype Haha { Lmao }\n")
    with pytest.raises(DiagnosticError, match="unknown constructor `Cons`"):
        relay.parse_expr("match (1) { Cons(_) => 0 }")
    with pytest.raises(DiagnosticError, match="unknown type `B`"):
        relay.parse(SEMVER + "def @id[A](%x: B) -> A { %x }")
    with pytest.raises(DiagnosticError, match="duplicate global function"):
        relay.parse(SEMVER + "def @id[A](%x: A) -> A { %x }\ndef @id[A](%x: A) -> A { %x }")


_LIST_PROGRAM = SEMVER + """type List[A] {
  Cons(A, List[A]),
  Nil,
}

def @length[A](%xs: List[A]) -> int32 {
  match (%xs) {
    Cons(_, %rest: List[A]) => {
      %0 = @length(%rest);
      add(1, %0)
    },
    Nil => {
      0
    },
  }
}

def @main(%d: Tensor[(?), float32], %n: int32) -> (int32, float32) {
  %1 = Cons(%n, Nil);
  %2 = Cons(%n, %1);
  %3 = @length(%2);
  %4 = ref(%d);
  %5 = ref_read(%4);
  %6 = sum(%5);
  let %_: () = ref_write(%4, %5);
  match? (Cons(%6, Nil)) {
    Cons(%h, _) => (%3, %h),
  }
}
"""


def test_adts_match_references_and_polymorphic_functions_parse_print_and_run():
    mod = relay.parse(_LIST_PROGRAM)
    lst, cons, nil = mod.get_type("List")
    a = relay.TypeVar("a")
    mod = relay.transform.InferType()(mod)
    assert mod["length"].checked_type == relay.FuncType([lst(a)], relay.scalar_type("int32"),
                                                        [a])
    main = mod["main"]
    assert not main.body.body.complete and len(main.body.body.clauses) == 1
    # printed and parsed back: the same module
    text = mod.astext()
    assert "def @length[A](%xs: List[A]" in text and "match? (" in text
    assert "type List[A] {" in text and "ref_write(" in text
    tvm.ir.assert_structural_equal(relay.parse(text), mod)
    d = rng.standard_normal(7).astype("float32")
    out = relay.create_executor("vm", mod=mod, target="llvm").evaluate()(d, 5)
    assert int(out[0].numpy()) == 2
    np.testing.assert_allclose(out[1].numpy(), d.sum(), rtol=1e-5)


def test_span_prints_in_the_type_comment():
    x = relay.var("x", shape=(2,))
    add = relay.add(x, x)
    z = relay.Call(add.op, add.args, add.attrs, add.type_args,
                   relay.Span(relay.SourceName("Add0"), 3, 3, 7, 9))
    text = roundtrip(relay.Function([x], z))
    assert "add(%x, %x) /* span=Add0:3:7 */" in text


def test_function_types_roundtrip():
    f_ty = relay.FuncType([relay.TensorType((2,), "float32")], relay.scalar_type("int32"))
    g = relay.var("g", f_ty)
    text = roundtrip(relay.Function([g], g))
    assert "%g: fn (Tensor[(2), float32]) -> int32" in text
    with pytest.raises(TVMError, match="type parameters must be relay.TypeVar"):
        relay.FuncType([], f_ty, [relay.var("t")], [])


def _diamonds(depth, last=1.0):
    x = relay.var("x", shape=(2,))
    z = x
    for _ in range(depth):  # each level uses the one below twice: 2**depth paths
        z = relay.add(relay.nn.relu(z), relay.negative(z))
    return relay.Function([x], relay.add(z, relay.const(last)))


def test_structural_equality_of_shared_graphs_and_its_mismatch_path():
    # a shared node is compared once (without that this would take 2**60 steps)
    tvm.ir.assert_structural_equal(_diamonds(60), relay.parse_expr(_diamonds(60).astext()))
    with pytest.raises(ValueError, match=r"at root\.body\.args\[1\]"):
        tvm.ir.assert_structural_equal(_diamonds(60), _diamonds(60, last=2.0))


def test_bare_dtype_names_parse_as_their_32_bit_types():
    mod = relay.parse(SEMVER + "def @f(%a: int, %b: float) -> (int, float) { (%a, %b) }")
    assert mod["f"].checked_type == relay.FuncType(
        [relay.scalar_type("int32"), relay.scalar_type("float32")],
        relay.TupleType([relay.scalar_type("int32"), relay.scalar_type("float32")]))


def test_underscore_types_are_left_to_inference():
    mod = relay.parse(SEMVER + "def @f(%x: float32, %y: _) -> _ { add(%x, %y) }")
    assert mod["f"].params[1].type_annotation is None and mod["f"].ret_type is None
    assert relay.parse_expr("free_var %z: _; %z").type_annotation is None
    with pytest.raises(TVMError, match="%y has no type annotation"):
        relay.transform.InferType()(mod)  # broadcasting does not determine %y
