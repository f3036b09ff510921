"""Run classic TVM v0.12.0's own tests and CPU tutorials unmodified through the alias.

The files are read from a git directory of apache/tvm (the search tool's ``fetch`` of
``github:apache/tvm`` puts one at ``/work/.mirror/apache+tvm/repo``) into a scratch folder
outside the project; nothing of them is kept. Each file runs in its own process
(``python -m tvmlite -m pytest FILE`` for tests, ``python -m tvmlite FILE`` for tutorials; a
tutorial that requires CUDA runs on the emulated GPU, ``TVMLITE_GPU_EMULATION=1``) with a time
limit, and a table of passed / failed / skipped per file is printed, with the totals.

    python tools/run_classic.py [--suite core topi relay] [--repo DIR] [--jobs 2]
                                [--only SUBSTR ...] [--json OUT]
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TAG = "refs/tags/v0.12.0"
UNIT = "tests/python/unittest/"
UNIT_PREFIXES = ("test_te_", "test_tir_nodes", "test_tir_buffer", "test_tir_ir_builder",
                 "test_tir_schedule", "test_tir_te_extern", "test_lower_build",
                 "test_target_codegen_c_host", "test_target_codegen_extern",
                 "test_target_codegen_bool", "test_autotvm_")
INTEGRATION = ["test_dot.py", "test_ewise.py", "test_gemm.py", "test_lower.py", "test_reduce.py",
               "test_scan.py", "test_tuning.py", "test_legacy_tuning.py"]
TUTORIALS = ["tutorial/tensor_expr_get_started.py", "how_to/optimize_operators/opt_gemm.py",
             "how_to/work_with_schedules/schedule_primitives.py",
             "how_to/work_with_schedules/reduction.py", "how_to/work_with_schedules/scan.py",
             "how_to/work_with_schedules/extern_op.py",
             "how_to/work_with_schedules/intrin_math.py",
             "how_to/work_with_schedules/tensorize.py",
             "how_to/work_with_schedules/tuple_inputs.py",
             "how_to/extend_tvm/low_level_custom_pass.py", "tutorial/autotvm_matmul_x86.py",
             "how_to/work_with_schedules/tedd.py",
             # relay: the pass infrastructure, instruments, and the x86 tuning tutorial
             # (as shipped it defines the flow and imports the graph tuner; session 26 ran
             # tune_and_evaluate itself, 8 trials per task, end to end)
             "how_to/extend_tvm/use_pass_infra.py", "how_to/extend_tvm/use_pass_instrument.py",
             "how_to/tune_with_autotvm/tune_relay_x86.py"]


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True,
                          text=True).stdout


TOPI = "tests/python/topi/python/"
#: TOPI test files about GPUs, integer/bit-serial kernels or ops tvmlite does not have
TOPI_SKIP = ("tensorcore", "int8", "bitserial", "_rasp", "hwnc", "_qnn", "sparse", "prng",
             "tensordot")
RELAY = "tests/python/relay/"
RELAY_FILES = ["test_op_level1.py", "test_op_level2.py", "test_op_level3.py", "test_op_level4.py",
               "test_op_level5.py", "test_op_level10.py", "test_type_infer.py",
               "test_ir_nodes.py", "test_ir_module.py", "test_ir_text_printer.py",
               "test_expr_functor.py", "test_param_dict.py", "test_backend_graph_executor.py",
               "test_build_module.py", "test_pass_fold_constant.py", "test_pass_fuse_ops.py",
               "test_pass_alter_op_layout.py", "test_pass_convert_op_layout.py",
               "test_pass_dead_code_elimination.py", "test_pass_simplify_inference.py",
               "test_pass_eliminate_common_subexpr.py", "test_pass_fold_scale_axis.py",
               "test_pass_manager.py", "test_autotvm_task_extraction.py",
               "test_analysis_basic_block_normal_form.py", "test_debug.py", "test_ir_parser.py",
               # added in session 26: the VM and dynamic shapes, qnn, autodiff, more passes
               "test_vm.py", "test_vm_serialization.py", "test_any.py",
               "test_backend_interpreter.py", "test_adt.py",
               "test_op_qnn_add.py", "test_op_qnn_batch_matmul.py",
               "test_op_qnn_concatenate.py", "test_op_qnn_conv2_transpose.py",
               "test_op_qnn_conv2d.py", "test_op_qnn_dense.py", "test_op_qnn_dequantize.py",
               "test_op_qnn_leaky_relu.py", "test_op_qnn_mul.py", "test_op_qnn_quantize.py",
               "test_op_qnn_requantize.py", "test_op_qnn_simulated_dequantize.py",
               "test_op_qnn_simulated_quantize.py", "test_op_qnn_subtract.py",
               "test_op_qnn_unary_elementwise.py", "test_pass_qnn_legalize.py",
               "test_op_grad_level1.py", "test_op_grad_level2.py", "test_op_grad_level3.py",
               "test_op_grad_level4.py", "test_op_grad_level10.py", "test_pass_gradient.py",
               "test_dataflow_pattern.py", "test_pass_simplify_expr.py",
               "test_pass_combine_parallel_conv2d.py", "test_pass_combine_parallel_dense.py",
               "test_pass_combine_parallel_batch_matmul.py", "test_pass_to_a_normal_form.py",
               "test_pass_to_graph_normal_form.py", "test_pass_inline.py", "test_call_graph.py",
               "test_change_batch.py", "test_op_level6.py", "test_op_fast_math.py",
               "test_pass_eta_expand.py", "test_pass_mac_count.py", "test_pass_legalize.py",
               "test_pass_remove_unused_functions.py", "test_const.py", "test_cmp_op.py",
               "test_op_floordiv.py", "test_ir_bind.py", "test_ir_op.py",
               "test_ir_structural_equal_hash.py", "test_ir_well_formed.py",
               "test_type_functor.py", "test_pass_canonicalize_cast.py",
               "test_pass_fold_explicit_padding.py", "test_pass_flatten_atrous_conv.py",
               "test_simplify_fc_transpose.py", "test_layer_count.py",
               "test_analysis_extract_operators.py", "test_analysis_extract_fused_functions.py",
               "test_pass_vars.py", "test_pass_check_kind.py", "test_executor.py",
               "test_pass_fast_math.py", "test_pass_defuse_ops.py",
               "test_pass_dynamic_to_static.py", "test_pass_lambda_lift.py",
               "test_pass_partial_eval.py", "test_pass_to_cps.py", "test_pass_auto_quantize.py",
               "test_pass_fake_quantization_to_integer.py", "test_type_solver.py",
               "test_typecall.py", "test_pass_unmatched_cases.py", "test_tensor_array.py"]
#: what the selected tests import from beside them (copied, never run)
SUPPORT = {"topi": [TOPI + "common.py"],
           "relay": [RELAY + "utils/" + f for f in ("__init__.py", "assert_diagnostic.py",
                                                   "ref_funcs.py", "tag_span.py")]}
SUITES = ("core", "topi", "relay")


def select(repo: str, suites=("core",)) -> list[tuple[str, str]]:
    """(kind, path in the repository) of every file the run covers: ``core`` (TE, TIR,
    AutoTVM unit and integration tests, the CPU tutorials), ``topi`` (classic TOPI's CPU
    tests) and ``relay`` (relay ops, passes and the graph executor)."""
    files = []
    if "core" in suites:
        unit = [p for p in _git(repo, "ls-tree", "--name-only", TAG, UNIT).split()
                if os.path.basename(p).startswith(UNIT_PREFIXES) and p.endswith(".py")]
        files += [("test", p) for p in sorted(unit)]
        files += [("test", "tests/python/integration/" + f) for f in INTEGRATION]
        files += [("tutorial", "gallery/" + f) for f in TUTORIALS]
    if "topi" in suites:
        topi = [p for p in _git(repo, "ls-tree", "--name-only", TAG, TOPI).split()
                if os.path.basename(p).startswith("test_topi_")
                and not any(k in p for k in TOPI_SKIP)]
        files += [("test", p) for p in sorted(topi)]
    if "relay" in suites:
        files += [("test", RELAY + f) for f in RELAY_FILES]
    return files


def _write_support(repo: str, scratch: str, suites) -> None:
    for suite in suites:
        for path in SUPPORT.get(suite, ()):
            dest = os.path.join(scratch, path)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            try:
                text = _git(repo, "show", f"{TAG}:{path}")
            except subprocess.CalledProcessError:
                text = ""  # a package marker the tag lacks
            with open(dest, "w") as f:
                f.write(text)


def _counts(text: str) -> dict:
    lines = [ln for ln in text.splitlines() if re.search(r"\bin [\d.]+s\b", ln)]
    last = lines[-1] if lines else ""
    got = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", last)}
    got["failed"] = got.get("failed", 0) + got.pop("error", 0) + got.pop("errors", 0)
    return got


def run_one(repo: str, scratch: str, kind: str, path: str, timeout: float) -> dict:
    dest = os.path.join(scratch, path)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    text = _git(repo, "show", f"{TAG}:{path}")
    with open(dest, "w") as f:
        f.write(text)
    if kind == "test":
        cmd = [sys.executable, "-m", "tvmlite", "-m", "pytest", "-q",
               "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", os.path.dirname(dest),
               dest]
    else:
        cmd = [sys.executable, "-m", "tvmlite", dest]
    env = dict(os.environ, MPLBACKEND="Agg", TVM_NUM_THREADS="1")
    if "sphinx_gallery_requires_cuda = True" in text:  # no GPU here: tvmlite's emulated one
        env["TVMLITE_GPU_EMULATION"] = "1"
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(dest), env=env)
        out, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = f"TIMEOUT after {timeout} s\n" + str(e.stdout or "")[-2000:], -1
    res = {"path": path, "kind": kind, "rc": rc, "seconds": round(time.time() - t0, 1),
           "tail": out[-4000:]}
    if kind == "test":
        c = _counts(out)
        if not c.get("passed") and not c.get("failed") and not c.get("skipped"):
            c = {"passed": 0, "failed": 1, "skipped": 0}  # the file did not even collect
        res.update(passed=c.get("passed", 0), failed=c.get("failed", 0),
                   skipped=c.get("skipped", 0))
    else:
        ok = rc == 0
        res.update(passed=int(ok), failed=int(not ok), skipped=0)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default="/work/.mirror/apache+tvm/repo")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--json", default=None)
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--suite", nargs="*", choices=SUITES, default=["core"],
                    help="which classic files to run (default: core)")
    args = ap.parse_args()
    files = [f for f in select(args.repo, args.suite)
             if not args.only or any(s in f[1] for s in args.only)]
    scratch = tempfile.mkdtemp(prefix="tvm_classic_")
    _write_support(args.repo, scratch, args.suite)
    results = []
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(run_one, args.repo, scratch, k, p, args.timeout) for k, p in files]
        for fut in cf.as_completed(futs):
            r = fut.result()
            results.append(r)
            print(f"{r['passed']:5d} {r['failed']:5d} {r['skipped']:5d} {r['seconds']:7.1f}s "
                  f"{r['path']}", flush=True)
            if args.show_failures and r["failed"]:
                print(r["tail"][-1500:])
    tot = {k: sum(r[k] for r in results) for k in ("passed", "failed", "skipped")}
    n = tot["passed"] + tot["failed"]
    print(f"TOTAL {tot['passed']} passed, {tot['failed']} failed, {tot['skipped']} skipped: "
          f"{100.0 * tot['passed'] / max(n, 1):.1f}% of run cases pass; "
          f"{sum(r['kind'] == 'tutorial' and r['passed'] for r in results)}/"
          f"{sum(r['kind'] == 'tutorial' for r in results)} tutorials run")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(sorted(results, key=lambda r: r["path"]), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
