"""The schedule state's statement walks (functor Visitors): parents first, a block's init not
entered, paths and child blocks as the primitives expect them."""
from test_tir_analysis_regions import chain, matmul

from tvmlite.tir.schedule import Schedule
from tvmlite.tir.schedule.state import child_blocks, children, find_path, walk_stmts
from tvmlite.tir.stmt import Block, BlockRealize, For, SeqStmt


def test_children_and_parents_first_walk():
    root = chain.body
    assert [type(c) for c in children(root)] == [Block]
    assert [type(c) for c in children(root.block)] == [SeqStmt]
    assert [type(c) for c in children(root.block.body)] == [For, For]
    seen = []
    walk_stmts(root, seen.append)
    assert seen[0] is root and len(seen) == 3 + 2 * 5  # root, its block, seq; 2 nests
    names = [s.block.name_hint for s in seen if isinstance(s, BlockRealize)]
    assert names == ["root", "B", "C"]


def test_init_is_not_entered_and_paths():
    s = Schedule(matmul)
    i, j, k = s.get_loops(s.get_block("C"))
    _, k1 = s.split(k, [None, 3])
    s.blockize(k1)
    body = s.mod["main"].body
    names = []
    walk_stmts(body, lambda x: names.append(x.block.name_hint)
               if isinstance(x, BlockRealize) else None)
    assert names == ["root", "C_o", "C"]  # "C_init" lives in C_o's init
    path = find_path(body, lambda x: isinstance(x, BlockRealize) and x.block.name_hint == "C")
    assert [type(x) for x in path] == [BlockRealize, Block, For, For, For, BlockRealize, Block,
                                       For, BlockRealize]
    assert path[-1].block.name_hint == "C" and path[5].block.name_hint == "C_o"
    assert find_path(body, lambda x: False) is None
    assert [r.block.name_hint for r in child_blocks(path[5])] == ["C"]
    assert [r.block.name_hint for r in child_blocks(body)] == ["C_o"]
    assert [r.block.name_hint for r in child_blocks(path[2])] == ["C_o"]
