"""Tensor Expression Debug Display (``tvm.contrib.tedd``): a TE schedule as Graphviz DOT —
its dataflow, its schedule tree (stages, loops, attachments) and each stage's IterVar
relations. The DOT text is built here; rendering (``show_svg``) needs the ``graphviz`` package."""
from __future__ import annotations

from typing import Dict, List

from .._classic import unsupported
from ..tir.expr import IterVarType

_TYPE_NAMES = {v: k for k, v in vars(IterVarType).items() if isinstance(v, int)}
_ATTACH = {1: "root", 2: "inline", 3: "inlined_already", 4: "scope"}


def _q(text) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Dot:
    def __init__(self, name: str):
        self.lines: List[str] = [f"digraph {_q(name)} {{", "  rankdir=TB;",
                                 "  node [shape=box, fontname=Courier];"]

    def node(self, nid: str, label: str, **attrs) -> None:
        extra = "".join(f", {k}={_q(v)}" for k, v in attrs.items())
        self.lines.append(f"  {_q(nid)} [label={_q(label)}{extra}];")

    def edge(self, a: str, b: str, label: str = "", **attrs) -> None:
        extra = "".join(f", {k}={_q(v)}" for k, v in attrs.items())
        self.lines.append(f"  {_q(a)} -> {_q(b)} [label={_q(label)}{extra}];")

    def text(self) -> str:
        return "\n".join(self.lines + ["}"]) + "\n"


def _stage_id(sch, stage) -> str:
    return f"stage_{sch.stages.index(stage)}_{stage.op.name}"


def _iv_label(stage, iv) -> str:
    attr = stage.iter_var_attrs.get(iv)
    kind = _TYPE_NAMES.get(attr.iter_type if attr else iv.iter_type, str(iv.iter_type))
    label = f"{iv.var.name}({kind})"
    if attr is not None and attr.bind_thread is not None:
        label += f" bind={attr.bind_thread.thread_tag or attr.bind_thread.var.name}"
    if iv.dom is not None:
        label += f" [{iv.dom.min}, {iv.dom.min + iv.dom.extent})"
    return label


def _finish(dot: _Dot, show_svg: bool, dot_file_path: str, output_dot_string: bool):
    text = dot.text()
    if dot_file_path:
        with open(dot_file_path, "w") as f:
            f.write(text)
    if show_svg:
        try:
            import graphviz
            from IPython.display import SVG, display
        except ImportError:
            raise unsupported("tedd show_svg without the graphviz and IPython packages "
                              "(write a .dot file with dot_file_path instead)") from None
        display(SVG(graphviz.Source(text).pipe(format="svg")))
    return text if output_dot_string else None


def viz_dataflow_graph(sch, show_svg: bool = False, dot_file_path: str = "",
                       output_dot_string: bool = False):
    """The schedule's dataflow: one node per stage, an edge per tensor a stage reads."""
    dot = _Dot("dataflow")
    producer: Dict[object, object] = {st.op: st for st in sch.stages}
    for st in sch.stages:
        dot.node(_stage_id(sch, st), f"{st.op.name}\n{type(st.op).__name__}"
                 + ("\n(output)" if st.is_output else ""))
    for st in sch.stages:
        for t in getattr(st.op, "input_tensors", []):
            src = producer.get(t.op)
            if src is not None:
                shape = [int(x) if hasattr(x, "value") else x for x in t.shape]
                dot.edge(_stage_id(sch, src), _stage_id(sch, st), f"{t.op.name}{shape}")
    return _finish(dot, show_svg, dot_file_path, output_dot_string)


def viz_schedule_tree(sch, show_svg: bool = False, dot_file_path: str = "",
                      output_dot_string: bool = False):
    """The schedule tree: each stage with its leaf loops in order, attached under the loop
    it is computed at (or under the root)."""
    dot = _Dot("schedule_tree")
    dot.node("root", "Schedule", shape="oval")
    for st in sch.stages:
        loops = "\n".join(f"{i}: {_iv_label(st, iv)}" for i, iv in enumerate(st.leaf_iter_vars))
        scope = f" scope={st.scope}" if st.scope else ""
        dot.node(_stage_id(sch, st), f"{st.op.name} [{_ATTACH.get(st.attach_type, '?')}]"
                 f"{scope}\n{loops}")
    for st in sch.stages:
        if st.attach_stage is not None and st.attach_ivar is not None:
            dot.edge(_stage_id(sch, st.attach_stage), _stage_id(sch, st),
                     f"compute_at {st.attach_ivar.var.name}")
        elif st.attach_type != 2:
            dot.edge("root", _stage_id(sch, st))
    return _finish(dot, show_svg, dot_file_path, output_dot_string)


def viz_itervar_relationship_graph(sch, show_svg: bool = False, dot_file_path: str = "",
                                   output_dot_string: bool = False):
    """Each stage's IterVars and the Split/Fuse relations between them."""
    dot = _Dot("itervar_relationship")
    for si, st in enumerate(sch.stages):
        ids = {iv: f"s{si}_iv{k}" for k, iv in enumerate(st.all_iter_vars)}
        dot.node(f"s{si}", f"stage {st.op.name}", shape="oval")
        for iv, nid in ids.items():
            leaf = any(iv is x for x in st.leaf_iter_vars)
            dot.node(nid, _iv_label(st, iv), style="bold" if leaf else "dashed")
        for iv in st.all_iter_vars[:len(getattr(st.op, "axis", [])) +
                                   len(getattr(st.op, "reduce_axis", []))]:
            dot.edge(f"s{si}", ids[iv])
        for ri, rel in enumerate(st.relations):
            rid = f"s{si}_rel{ri}"
            kind = type(rel).__name__
            dot.node(rid, kind, shape="diamond")
            if kind == "Split":
                dot.edge(ids[rel.parent], rid)
                dot.edge(rid, ids[rel.outer], "outer")
                dot.edge(rid, ids[rel.inner], "inner")
            elif kind == "Fuse":
                dot.edge(ids[rel.outer], rid, "outer")
                dot.edge(ids[rel.inner], rid, "inner")
                dot.edge(rid, ids[rel.fused])
    return _finish(dot, show_svg, dot_file_path, output_dot_string)
