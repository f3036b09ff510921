"""Combine parallel operators that read the same input into one wider operator, as classic
relay does (``CombineParallelConv2D``, ``CombineParallelDense``,
``CombineParallelBatchMatmul``, ``CombineParallelOpBatch``).

Branches start at calls of the op on the same first argument; a branch goes on through the
element-wise or broadcast calls that are its only consumer. Compatible branches (a group of at
least ``min_num_branches``) become one call of the combined op; the following ops they share
(same op, attributes and compatible other arguments) are combined too, and each branch's last
combined value is sliced (or split) back out of the result.
"""
from __future__ import annotations

from typing import Dict, List

from ...ir.structural import structural_equal
from ...ir.transform import Pass
from ..expr import Call, Expr, Function, Tuple, post_order, substitute, visit_children
from ..op import registry
from ..op.nn import batch_matmul
from ..op.registry import Op, OpPattern
from ..op.tensor import concatenate
from ..op.transform import expand_dims, repeat, split, squeeze, stack, strided_slice
from .function_pass import function_pass
from .infer_type import infer_type

Branch = List[Call]


def _shape(e) -> tuple:
    return tuple(int(d) for d in e.checked_type.shape)


class ParallelOpCombiner:
    """Classic ``ParallelOpCombiner``: subclasses say which calls can be combined and how."""

    op_name = ""

    def __init__(self, min_num_branches: int):
        self.op = registry.get(self.op_name)
        self.min_num_branches = int(min_num_branches)

    # ------------------------------------------------------------------ what subclasses give
    def is_supported_op(self, call: Call) -> bool:
        return True

    def can_ops_be_combined(self, a: Call, b: Call) -> bool:
        raise NotImplementedError

    def make_combined_op(self, branches: List[Branch]) -> Expr:
        raise NotImplementedError

    def is_arg_compatible(self, a: Call, b: Call, index: int) -> bool:
        raise NotImplementedError

    def make_combined_call_from_following_ops(self, data: Expr, branches: List[Branch],
                                              depth: int, parent_index: int) -> Expr:
        raise NotImplementedError

    def update_group_output(self, data: Expr, branches: List[Branch], depth: int,
                            subst: Dict[int, Expr]) -> None:
        raise NotImplementedError

    # -------------------------------------------------------------------------- the algorithm
    def _groups(self, func: Function) -> List[List[Branch]]:
        roots: Dict[int, Expr] = {}
        consumers: Dict[int, List[Call]] = {}
        for n in post_order(func, visit_children):
            if not isinstance(n, Call):
                continue
            if n.op is self.op and self.is_supported_op(n):
                roots.setdefault(id(n.args[0]), n.args[0])
                consumers.setdefault(id(n.args[0]), []).append(n)
            else:
                for a in n.args:
                    consumers.setdefault(id(a), []).append(n)

        def branch_of(call: Call) -> Branch:
            branch = [call]
            while True:
                users = consumers.get(id(branch[-1]), [])
                if len(users) != 1 or not isinstance(users[0].op, Op) \
                        or users[0].op.pattern > OpPattern.BROADCAST:
                    return branch
                branch.append(users[0])

        groups: List[List[Branch]] = []
        for key in roots:
            first = len(groups)
            for child in consumers[key]:
                if child.op is not self.op or not self.is_supported_op(child):
                    continue
                branch = branch_of(child)
                for group in groups[first:]:
                    if self.can_ops_be_combined(child, group[0][0]):
                        group.append(branch)
                        break
                else:
                    groups.append([branch])
        return groups

    def _check_level(self, branches: List[Branch], depth: int, parent_index: int) -> bool:
        call = branches[0][depth]
        for branch in branches[1:]:
            other = branch[depth]
            if other.op is not call.op or len(other.args) != len(call.args) \
                    or not structural_equal(other.attrs, call.attrs):
                return False
            if other.args[parent_index] is not branch[depth - 1]:
                return False
            for i in range(len(call.args)):
                if i != parent_index and not self.is_arg_compatible(call, other, i):
                    return False
        return True

    def combine(self, func: Function) -> Function:
        """``func`` with its parallel branches combined."""
        infer_type(func)
        subst: Dict[int, Expr] = {}
        for branches in self._groups(func):
            if len(branches) < self.min_num_branches:
                continue
            combined = self.make_combined_op(branches)
            depth = min(len(b) for b in branches)
            i = 1
            while i < depth:
                parent = branches[0][i - 1]
                parent_index = next(k for k, a in enumerate(branches[0][i].args) if a is parent)
                if not self._check_level(branches, i, parent_index):
                    break
                combined = self.make_combined_call_from_following_ops(combined, branches, i,
                                                                       parent_index)
                i += 1
            self.update_group_output(combined, branches, i - 1, subst)
        if not subst:
            return func
        return substitute(func, subst, into_values=True)


def _same_tensor_types(a: Expr, b: Expr) -> bool:
    ta, tb = a.checked_type, b.checked_type
    return ta.dtype == tb.dtype and tuple(ta.shape) == tuple(tb.shape)


class ParallelOpBatchCombiner(ParallelOpCombiner):
    """Combine into a batched op: arguments stacked on a new axis 0, outputs split back."""

    batch_op_name = ""

    def __init__(self, min_num_branches: int, op_name: str = "", batch_op_name: str = ""):
        if op_name:
            self.op_name = op_name
        if batch_op_name:
            self.batch_op_name = batch_op_name
        super().__init__(min_num_branches)

    def can_ops_be_combined(self, a: Call, b: Call) -> bool:
        return len(a.args) == len(b.args) and all(
            _same_tensor_types(x, y) for x, y in zip(a.args, b.args))

    def _stacked_args(self, branches: List[Branch]) -> List[Expr]:
        return [stack(Tuple([b[0].args[i] for b in branches]), 0)
                for i in range(len(branches[0][0].args))]

    def make_combined_op(self, branches: List[Branch]) -> Expr:
        return registry.make_call(self.batch_op_name, self._stacked_args(branches))

    def is_arg_compatible(self, a: Call, b: Call, index: int) -> bool:
        return _same_tensor_types(a.args[index], b.args[index])

    def make_combined_call_from_following_ops(self, data, branches, depth, parent_index):
        call = branches[0][depth]
        args = []
        for i in range(len(call.args)):
            if i == parent_index:
                args.append(data)
                continue
            items = []
            for b in branches:
                arg = b[depth].args[i]
                items.append(expand_dims(arg, 0, 1) if len(arg.checked_type.shape) == 1
                             else arg)
            args.append(stack(Tuple(items), 0))
        return Call(call.op, args, call.attrs)

    def update_group_output(self, data, branches, depth, subst):
        pieces = split(data, len(branches), 0)
        for k, b in enumerate(branches):
            subst[id(b[depth])] = squeeze(pieces[k], [0])


class ParallelDenseToBatchCombiner(ParallelOpBatchCombiner):
    """Parallel ``nn.dense`` -> one ``nn.batch_matmul`` of the stacked inputs and weights."""

    op_name = "nn.dense"
    batch_op_name = "nn.batch_matmul"

    def can_ops_be_combined(self, a: Call, b: Call) -> bool:
        return a.attrs.get("out_dtype", "") == b.attrs.get("out_dtype", "") and \
            _shape(a.args[1])[:2] == _shape(b.args[1])[:2]

    def make_combined_op(self, branches):
        x, w = self._stacked_args(branches)
        return batch_matmul(x, w, branches[0][0].attrs.get("out_dtype", ""), False, True)


class ParallelDenseToDenseCombiner(ParallelOpCombiner):
    """Parallel ``nn.dense`` -> one ``nn.dense`` of the concatenated weights."""

    op_name = "nn.dense"

    def can_ops_be_combined(self, a, b):
        return a.attrs.get("out_dtype", "") == b.attrs.get("out_dtype", "") and \
            _shape(a.args[1])[1] == _shape(b.args[1])[1]

    def make_combined_op(self, branches):
        weights = [b[0].args[1] for b in branches]
        units = sum(_shape(w)[0] for w in weights)
        root = branches[0][0]
        return Call(self.op, [root.args[0], concatenate(Tuple(weights), 0)],
                    {**dict(root.attrs.items()), "units": units})

    def is_arg_compatible(self, a, b, index):
        ta, tb = a.args[index].checked_type, b.args[index].checked_type
        if ta.dtype != tb.dtype or len(ta.shape) != len(tb.shape):
            return False
        if len(a.checked_type.shape) < len(ta.shape) or len(b.checked_type.shape) < len(tb.shape):
            return False
        return tuple(ta.shape)[:-1] == tuple(tb.shape)[:-1]

    def make_combined_call_from_following_ops(self, data, branches, depth, parent_index):
        call = branches[0][depth]
        args = []
        for i in range(len(call.args)):
            if i == parent_index:
                args.append(data)
                continue
            ndim = len(call.args[i].checked_type.shape)
            axis = max(ndim - 1, 0)
            items = []
            for b in branches:
                out_dim = _shape(b[depth].args[parent_index])[-1]
                arg = b[depth].args[i]
                rep = ndim == 0
                if rep:
                    arg = expand_dims(arg, -1, 1)
                elif out_dim > 1 and _shape(arg)[-1] == 1:
                    rep = True
                items.append(repeat(arg, out_dim, axis) if rep else arg)
            args.append(concatenate(Tuple(items), axis))
        return Call(call.op, args, call.attrs)

    def update_group_output(self, data, branches, depth, subst):
        widths = [_shape(b[0])[1] for b in branches]
        index = 0
        for b, width in zip(branches, widths):
            shape = _shape(b[depth])
            axis = max(i for i, d in enumerate(shape) if d == width)  # the last such axis
            begin, end = [0] * len(shape), [-1] * len(shape)
            begin[axis], end[axis] = index, width
            index += width
            subst[id(b[depth])] = strided_slice(data, begin, end, [1] * len(shape),
                                                slice_mode="size")


class ParallelConv2DCombiner(ParallelOpCombiner):
    """Parallel ``nn.conv2d`` (groups 1) -> one conv2d of the concatenated filters."""

    op_name = "nn.conv2d"

    def is_supported_op(self, call):
        return int(call.attrs.groups) == 1

    @staticmethod
    def _kernel_hw(call) -> tuple:
        kl = call.attrs.get("kernel_layout") or "OIHW"
        shape = _shape(call.args[1])
        return shape[kl.index("H")], shape[kl.index("W")]

    def can_ops_be_combined(self, a, b):
        keys = ("strides", "padding", "dilation", "groups", "data_layout", "kernel_layout",
                "out_dtype", "out_layout")
        return all(structural_equal(a.attrs.get(k), b.attrs.get(k)) for k in keys) and \
            self._kernel_hw(a) == self._kernel_hw(b)

    def _channel_pos(self, call) -> int:
        layout = call.attrs.get("out_layout") or call.attrs.get("data_layout") or "NCHW"
        return layout.index("C")

    def _channels(self, conv) -> int:
        kl = conv.attrs.get("kernel_layout") or "OIHW"
        return _shape(conv.args[1])[kl.index("O")]

    def make_combined_op(self, branches):
        root = branches[0][0]
        kl = root.attrs.get("kernel_layout") or "OIHW"
        weights = concatenate(Tuple([b[0].args[1] for b in branches]), kl.index("O"))
        channels = sum(self._channels(b[0]) for b in branches)
        self.channel_pos = self._channel_pos(root)
        return Call(self.op, [root.args[0], weights],
                    {**dict(root.attrs.items()), "channels": channels})

    def is_arg_compatible(self, a, b, index):
        ta, tb = a.args[index].checked_type, b.args[index].checked_type
        oa, ob = a.checked_type, b.checked_type
        if ta.dtype != tb.dtype or len(ta.shape) != len(tb.shape):
            return False
        pos = self.channel_pos - len(oa.shape) + len(ta.shape)
        if pos < 0 or ta.shape[pos] != oa.shape[self.channel_pos] \
                or tb.shape[pos] != ob.shape[self.channel_pos]:
            return False
        return all(ta.shape[i] == tb.shape[i] for i in range(len(ta.shape)) if i != pos)

    def make_combined_call_from_following_ops(self, data, branches, depth, parent_index):
        call = branches[0][depth]
        ndim = len(call.checked_type.shape)
        args = []
        for i in range(len(call.args)):
            if i == parent_index:
                args.append(data)
                continue
            pos = self.channel_pos - ndim + len(call.args[i].checked_type.shape)
            args.append(concatenate(Tuple([b[depth].args[i] for b in branches]), pos))
        return Call(call.op, args, call.attrs)

    def update_group_output(self, data, branches, depth, subst):
        index = 0
        for b in branches:
            channels = self._channels(b[0])
            begin = [0] * self.channel_pos + [index]
            end = [-1] * self.channel_pos + [channels]
            index += channels
            subst[id(b[depth])] = strided_slice(data, begin, end, [1] * len(begin),
                                                slice_mode="size")


class ParallelBatchMatmulCombiner(ParallelOpCombiner):
    """Parallel ``nn.batch_matmul`` (transpose_b) -> one of the weights concatenated."""

    op_name = "nn.batch_matmul"

    def can_ops_be_combined(self, a, b):
        for c in (a, b):
            if c.attrs.get("transpose_a") or not c.attrs.get("transpose_b", True):
                return False
        ra, rb = a.args[1].checked_type, b.args[1].checked_type
        return ra.dtype == rb.dtype and a.checked_type.dtype == b.checked_type.dtype \
            and len(ra.shape) == 3 and len(rb.shape) == 3 and ra.shape[0] == rb.shape[0] \
            and a.attrs.get("out_dtype", "") == b.attrs.get("out_dtype", "")

    def make_combined_op(self, branches):
        root = branches[0][0]
        weight = concatenate(Tuple([b[0].args[1] for b in branches]), 1)
        return batch_matmul(root.args[0], weight, root.attrs.get("out_dtype", ""),
                            bool(root.attrs.get("transpose_a")),
                            bool(root.attrs.get("transpose_b", True)))

    def is_arg_compatible(self, a, b, index):
        return True

    def make_combined_call_from_following_ops(self, data, branches, depth, parent_index):
        call = branches[0][depth]
        args = [data if i == parent_index else
                concatenate(Tuple([b[depth].args[i] for b in branches]), -1)
                for i in range(len(call.args))]
        return Call(call.op, args, call.attrs)

    def update_group_output(self, data, branches, depth, subst):
        index = 0
        for b in branches:
            features = _shape(b[0].args[1])[1]
            subst[id(b[depth])] = strided_slice(data, [0, 0, index], [-1, -1, features],
                                                [1, 1, 1], slice_mode="size")
            index += features


def _combine_pass(combiner: ParallelOpCombiner, name: str) -> Pass:
    return function_pass(lambda f, mod, ctx: combiner.combine(f), opt_level=4, name=name,
                         required=["InferType"])


def CombineParallelConv2D(min_num_branches: int = 3) -> Pass:  # noqa: N802
    """Combine at least ``min_num_branches`` parallel conv2d (``relay.transform``)."""
    return _combine_pass(ParallelConv2DCombiner(min_num_branches), "CombineParallelConv2d")


def CombineParallelDense(min_num_branches: int = 3, to_batch: bool = True) -> Pass:  # noqa: N802
    """Combine parallel dense ops into one batch_matmul (``to_batch``) or one wider dense."""
    combiner = ParallelDenseToBatchCombiner(min_num_branches) if to_batch else \
        ParallelDenseToDenseCombiner(min_num_branches)
    return _combine_pass(combiner, "CombineParallelDense")


def CombineParallelBatchMatmul(min_num_branches: int = 3) -> Pass:  # noqa: N802
    """Combine parallel batch_matmul ops sharing their first input."""
    return _combine_pass(ParallelBatchMatmulCombiner(min_num_branches),
                         "CombineParallelBatchMatmul")


def CombineParallelOpBatch(op_name: str, batch_op_name: str,  # noqa: N802
                           min_num_branches: int = 3) -> Pass:
    """Combine parallel ``op_name`` calls into one ``batch_op_name`` of stacked arguments."""
    return _combine_pass(ParallelOpBatchCombiner(min_num_branches, op_name, batch_op_name),
                         "CombineParallelOpBatch")
