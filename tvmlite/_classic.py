"""Classic TVM names tvmlite does not provide, and the module ``__getattr__`` that reports
them: ``tvm.te.gradient`` from user code raises :class:`UnsupportedError` (a ``TVMError``
naming the feature); any other missing name, and every miss from inside tvmlite itself, stays
a plain ``AttributeError`` so typos are not hidden. Submodules load on first attribute use, as
classic TVM imports them eagerly."""
from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import types
from typing import Callable, Optional

from ._classic_topi import BACKENDLESS, TOPI_FUNCTIONS
from .error import TVMError

# Under the alias (classic programs), TVMScript parses as v0.12 did: a ``@T.prim_func`` gets no
# implicit ``global_symbol`` attribute (classic tests compare scheduled functions with expected
# ones of other names).
PARSER_V012 = False


class UnsupportedError(TVMError):
    """A classic TVM feature tvmlite does not implement."""


# The public names of classic TVM v0.12.0 packages (facts about its API, keyed by the tvmlite
# module that stands for each).
CLASSIC_NAMES = {
    "tvmlite": frozenset("""
        ConstantMemoryPools ConstantPoolInfo DataType DataTypeCode IRModule Object PoolInfo
        PoolInfoProperties TVMError WorkspaceMemoryPools WorkspacePoolInfo arith auto_scheduler
        autotvm build cl container contrib cpu cuda device driver error exec ext_dev generic
        get_global_func gpu hexagon instrument ir lower meta_schedule metal micro mtl nd opencl
        parser register_extension register_func register_object relay rocm rpc runtime script
        support target te testing tir topi transform tvm_wrap_excepthook utils vpi vulkan
    """.split()),
    "tvmlite.te": frozenset("""
        AXIS_SEPARATOR ComputeOp ExternOp PlaceholderOp ScanOp Schedule
        SpecializedCondition Stage Tensor TensorComputeOp TensorSlice abs acos acosh add all any
        asin asinh atan atanh autodiff ceil comm_reducer compute const cos cosh create_prim_func
        create_schedule decl_tensor_intrin div erf exp extern extern_primfunc floor floordiv
        floormod fmod gradient if_then_else indexdiv indexmod isfinite isinf isnan log
        log10 log2 max max_value min min_value multiply nearbyint operation placeholder popcount
        power reduce_axis round rsqrt scan schedule sigmoid sin sinh size_var sqrt subtract sum
        tag tag_scope tan tanh tensor tensor_intrin thread_axis trace trunc truncdiv truncmod
        var
    """.split()),
    "tvmlite.tir": frozenset("""
        Add Allocate AllocateConst And Any AssertStmt AttrStmt BijectiveLayout Block
        BlockRealize BlockScope Broadcast Buffer BufferLoad BufferRealize BufferRegion
        BufferStore Call CallEffectKind Cast CommReducer DataProducer DeclBuffer Div EQ Evaluate
        FloatImm FloorDiv FloorMod For ForKind GE GT IfThenElse IndexMap IntImm IterVar LE LT
        Layout Let LetStmt MatchBufferRegion Max Min Mod Mul NE Not Or Prefetch PrimExpr
        PrimFunc ProducerLoad ProducerRealize ProducerStore Ramp Reduce Schedule ScheduleError
        ScheduleState Select SeqStmt Shuffle SizeVar Stmt StmtSRef StringImm Sub
        TVMBackendAllocWorkspace TVMBackendFreeWorkspace TensorIntrin Var While abs acos acosh
        add address_of all analysis any asin asinh assume atan atan2 atanh bijective_layout
        bitwise_and bitwise_not bitwise_or bitwise_xor buffer call_cpacked call_cpacked_lowered
        call_extern call_intrin call_llvm_intrin call_llvm_pure_intrin call_packed
        call_packed_lowered call_pure_extern ceil ceildiv clz comm_reducer const copysign cos
        cosh data_layout decl_buffer div end_profile_intrinsic erf exp exp10 exp2 expr floor
        floordiv floormod fmod function generic hypot if_then_else indexdiv indexmod infinity
        ir_builder isfinite isinf isnan isnullptr layout ldexp likely log log10 log1p log2
        lookup_param max max_value min min_value mma_fill mma_store multiply nearbyint nextafter
        op popcount pow power ptx_commit_group ptx_cp_async ptx_ldmatrix ptx_mma ptx_mma_sp
        ptx_wait_group q_multiply_shift q_multiply_shift_per_axis reinterpret ret round rsqrt
        schedule shift_left shift_right sigmoid sin sinh sqrt start_profile_intrinsic stmt
        stmt_functor stmt_list stmt_seq subtract sum tan tanh tensor_intrin trace transform
        trunc truncdiv truncmod tvm_access_ptr tvm_bmma_sync tvm_check_return tvm_fill_fragment
        tvm_load_matrix_sync tvm_mma_sync tvm_stack_alloca tvm_stack_make_array
        tvm_stack_make_shape tvm_store_matrix_sync tvm_struct_get tvm_struct_set
        tvm_thread_allreduce tvm_throw_last_error tvm_tuple type_annotation undef usmp
        vectorcombine vectorhigh vectorlow
    """.split()),
    "tvmlite.ir": frozenset("""
        Array Attrs BaseExpr BaseFunc CallingConv ConstantMemoryPools ConstantPoolInfo
        Constructor DictAttrs EnvFunc FuncType GlobalTypeVar GlobalVar IRModule IncompleteType
        Map Node Op PointerType PoolInfo PoolInfoProperties PrimExpr PrimType Range RelayExpr
        RelayRefType SourceName Span TensorAffineType TensorType TupleAffineType TupleType Type
        TypeCall TypeConstraint TypeData TypeKind TypeRelation TypeVar WorkspaceMemoryPools
        WorkspacePoolInfo adt affine_type assert_structural_equal attrs base container
        diagnostics expr function instrument json_compact load_json make_node memory_pools
        module op register_intrin_lowering register_op_attr save_json structural_equal
        structural_hash supply tensor_type transform type type_relation
    """.split()),
    "tvmlite.runtime": frozenset("""
        DataType DataTypeCode Device Module NDArray Object ObjectGeneric ObjectPath
        ObjectPathPair ObjectTypes PackedFunc Report Scriptable ShapeTuple String cl const
        container convert convert_to_object cpu cuda device enabled executor ext_dev gpu
        load_module load_param_dict load_param_dict_from_file load_static_library metal module
        mtl name_transforms ndarray num_threads object object_generic object_path opencl
        packed_func params profiler_vm profiling rocm save_param_dict save_param_dict_to_file
        script_printer system_lib vm vpi vulkan
    """.split()),
    "tvmlite.arith": frozenset("""
        Analyzer ConstIntBound IntSet IntervalSet IterMapExpr IterMark IterSplitExpr IterSumExpr
        ModularSet ProofStrength analyzer bound deduce_bound detect_clip_bound
        detect_common_subexpr detect_iter_map detect_linear_equation estimate_region_lower_bound
        estimate_region_strict_bound estimate_region_upper_bound int_set int_solver
        inverse_affine_iter_map iter_affine_map normalize_iter_map_to_expr pattern
        solve_linear_equations solve_linear_inequalities subspace_divide
    """.split()),
    "tvmlite.target": frozenset("""
        GenericFunc Target TargetKind VirtualDevice arm_cpu bifrost codegen compilation_config
        create cuda datatype generic_func get_native_generic_func hexagon intel_graphics intrin
        list_tags make_compilation_config mali override_native_generic_func rasp riscv_cpu rocm
        stm32 tag target virtual_device vta x86
    """.split()),
    "tvmlite.driver": frozenset("""
        build build_module lower tvmc
    """.split()),
    "tvmlite.tir.schedule": frozenset("""
        BlockRV BlockScope DepKind Dependency ExprRV Instruction InstructionKind LoopRV Schedule
        ScheduleDebugMask ScheduleError ScheduleState StmtSRef Trace analysis block_scope
        instruction schedule state testing trace transform
    """.split()),
    "tvmlite.autotvm": frozenset("""
        ConfigEntity ConfigSpace DispatchContext FallbackContext GLOBAL_SCOPE LocalBuilder
        LocalRunner MeasureErrorNo MeasureInput MeasureResult RPCRunner apply_fixed_config
        apply_graph_best apply_history_best callback create database env feature get_config
        graph_tuner measure measure_option record register_topi_compute register_topi_schedule
        task template testing tophub tuner utils
    """.split()),
    "tvmlite.contrib": frozenset("""
        cblas cc clang coreml_runtime cublas cublaslt cuda_graph cudnn cutlass debugger dlpack
        dnnl download emcc ethosu graph_executor graph_runtime hexagon micro miopen mkl mps
        mxnet ndk nnpack nvcc peak pickle_memoize pipeline_executor pipeline_executor_build
        popen_pool random relay_viz rocblas rocm rpc sdaccel sparse spirv stackvm tar target
        tedd tf_op tflite_runtime thrust torch utils xcode
    """.split()),
    "tvmlite.testing": frozenset("""
        ErrorTest FrontendTestModule after_initializer aot auto_scheduler autotvm call_cpp_ffi
        call_cpp_py_ffi call_py_ffi device_test echo fast_summation identity_cpp initializer nop
        object_use_count plugin popen_pool register_ffi run_check_signal slow_summation
        test_check_eq_callback test_raise_error_callback test_wrap_callback timeout_job tir usmp
        utils
    """.split()),
    "tvmlite.tir.transform": frozenset("""
        PrimFuncPass function_pass prim_func_pass transform
    """.split()),
    "tvmlite.te.schedule": frozenset("""
        AXIS_SEPARATOR Buffer Callable Fuse IndexMap IterVar List Object Schedule Singleton
        SpecializedCondition Split Stage Var convert create_schedule string_types
    """.split()),
    "tvmlite.autotvm.task": frozenset("""
        ApplyConfig ApplyFixedConfig ApplyGraphBest ApplyHistoryBest ConfigEntity ConfigSpace
        DispatchContext FallbackContext Task TaskExtractEnv args_to_workload attach_code_hash
        attach_code_hash_to_arg clear_fallback_cache code_hash create deserialize_args
        dispatcher extract_from_multiple_program extract_from_program get_config get_workload
        register_topi_compute register_topi_schedule relay_integration serialize_args space task
        template topi_integration
    """.split()),
    "tvmlite.autotvm.measure": frozenset("""
        Executor LocalBuilder LocalRunner MeasureErrorNo MeasureInput MeasureResult RPCRunner
        create_measure_batch default_module_loader executor measure measure_methods
        measure_option request_remote
    """.split()),
    "tvmlite.topi": frozenset("""
        InvalidShapeError adreno argwhere arm_cpu bifrost broadcast cpp cuda einsum generic
        generic_op_impl gpu hexagon hls image intel_graphics mali math nn random reduction rocm
        scan scatter scatter_elements searchsorted signal sparse sparse_fill_empty_rows
        sparse_reshape tag tensor testing transform unique utils vision x86
    """.split()),
    "tvmlite.topi.vision": frozenset("""
        ssd rcnn nms nms_util get_valid_counts non_max_suppression
        all_class_non_max_suppression calculate_overlap collect_selected_indices
        collect_selected_indices_and_scores run_all_class_nms hybrid_get_valid_counts
        hybrid_nms hybrid_rearrange_box_out hybrid_rearrange_indices_out roi_align_nchw
        roi_align_nhwc roi_pool_nchw proposal generate_anchor reg_bbox reg_iou
    """.split()),
    "tvmlite.topi.arm_cpu": frozenset("""
        arm_utils bitserial_conv2d bitserial_conv2d_nhwc bitserial_dense
        compute_conv2d_NHWC_quantized_interleaved
        compute_conv2d_NHWC_quantized_interleaved_without_transform
        compute_conv2d_NHWC_quantized_native compute_conv2d_NHWC_quantized_native_without_transform
        compute_depthwise_conv2d_nhwc conv1d conv1d_nwc_dsp conv2d conv2d_NCHWc_int8
        conv2d_alter_op conv2d_gemm conv2d_int8 conv2d_nchw_int8 conv2d_nchw_spatial_pack
        conv2d_nchw_winograd conv2d_nchw_winograd_nnpack
        conv2d_nchw_winograd_nnpack_without_weight_transform conv2d_nhwc_dsp
        conv2d_nhwc_spatial_pack conv2d_spatial_pack conv2d_transpose conv2d_transpose_nchw
        dense dense_dsp depthwise_conv2d depthwise_conv2d_nchw
        depthwise_conv2d_nchw_spatial_pack depthwise_conv2d_nhwc_dsp group_conv2d
        group_conv2d_nchw group_conv2d_nchw_spatial_pack injective is_int8_hw_support mprofile
        pooling qnn qnn_alter_op qnn_conv2d qnn_depthwise_conv2d qnn_legalize
        qnn_unrolled_depthwise_conv2d schedule_bitserial_conv2d_nhwc schedule_bitserial_dense
        schedule_conv1d_nwc_dsp schedule_conv2d_NCHWc_int8
        schedule_conv2d_NHWC_quantized_interleaved
        schedule_conv2d_NHWC_quantized_interleaved_without_transform
        schedule_conv2d_NHWC_quantized_native
        schedule_conv2d_NHWC_quantized_native_without_transform schedule_conv2d_nchw_int8
        schedule_conv2d_nchw_spatial_pack schedule_conv2d_nchw_winograd
        schedule_conv2d_nchw_winograd_nnpack
        schedule_conv2d_nchw_winograd_nnpack_without_weight_transform schedule_conv2d_nhwc_dsp
        schedule_conv2d_nhwc_spatial_pack schedule_conv2d_transpose_nchw schedule_dense_dsp
        schedule_depthwise_conv2d_nchw schedule_depthwise_conv2d_nchw_spatial_pack
        schedule_depthwise_conv2d_nhwc schedule_depthwise_conv2d_nhwc_dsp
        schedule_group_conv2d_nchw schedule_group_conv2d_nchwc schedule_pool
        schedule_qnn_conv2d schedule_qnn_depthwise_conv2d
        schedule_qnn_unrolled_depthwise_conv2d tensor_intrin
    """.split()),
    "tvmlite.script": frozenset("""
        from_source highlight ir ir_builder ir_module parser printer tir
    """.split()),
    "tvmlite.tir.analysis": frozenset("""
        analysis
    """.split()),
    # classic relay: the frontends of other formats, passes and operators tvmlite lacks
    "tvmlite.relay.frontend": frozenset("""
        from_caffe from_caffe2 from_coreml from_darknet from_keras from_mxnet from_oneflow
        from_paddle from_tensorflow from_tflite quantize_conv_bias_mkldnn_from_var
        ChangeDatatype common
    """.split()),
    "tvmlite.relay.transform": frozenset("""
        InferTypeLocal RemoveUnusedFunctions FastMath CanonicalizeOps LazyGradientInit
        FoldConstantExpr DefuseOps CombineParallelConv2D CombineParallelDense
        CombineParallelBatchMatmul BatchingOps LayoutConfig Legalize MergeComposite
        MergeCompilerRegions ToANormalForm ToANormalFormExpr ToBasicBlockNormalForm ToCPS
        EtaExpand ToGraphNormalForm PartialEvaluate CanonicalizeCast LambdaLift PartitionGraph
        AnnotateTarget DynamicToStatic Inline gradient FirstOrderGradient Defunctionalization
        to_cps un_cps ChangeBatch DenseToSparse Conv2dToSparse Conv2dToSparse2
        SimplifyFCTranspose SimplifyExpr PlanDevices ManifestLifetimes FoldExplicitPadding
        AnnotateSpans FakeQuantizationToInteger FlattenAtrousConv ToMixedPrecision SplitArgs
        DivToMul
    """.split()),
    "tvmlite.relay.op.nn": frozenset("""
        conv3d_transpose conv1d_transpose fast_softmax max_pool2d_grad avg_pool2d_grad
        upsampling3d contrib_dense_pack fifo_buffer dilate sparse_dense
        sparse_transpose sparse_add contrib_conv2d_winograd_without_weight_transform
        contrib_conv2d_gemm_without_weight_transform contrib_conv2d_nchwc
        contrib_depthwise_conv2d_nchwc contrib_conv2d_winograd_weight_transform
        deformable_conv2d bitpack bitserial_conv2d bitserial_dense cross_entropy
        cross_entropy_with_logits nll_loss adaptive_max_pool3d adaptive_avg_pool3d
        global_max_pool1d global_avg_pool1d global_max_pool3d global_avg_pool3d correlation
        space_to_batch_nd batch_to_space_nd conv2d_backward_weight
    """.split()),
    "tvmlite.relay": frozenset("""
        sliding_window cast_like reinterpret argwhere scatter_elements scatter_nd
        broadcast_to_like collapse_sum_like collapse_sum_to strided_set slice_like
        reverse_reshape sparse_to_dense matrix_set_diag adv_index sparse_fill_empty_rows
        sparse_reshape segment_sum cumprod unique invert_permutation stft dft bitwise_not
        trunc_divide mod trunc_mod logical_xor bitwise_and bitwise_or bitwise_xor right_shift
        left_shift fixed_point_multiply einsum copy device_copy shape_of ndarray_size
        mean_variance mean_std logsumexp searchsorted vm
        qnn quantize dataflow_pattern Prelude ScopeBuilder Any IncompleteType RefCreate RefRead
        RefWrite Match Clause Constructor TypeVar GlobalTypeVar TypeData fromtext parse_expr
        SpanCheck annotation prelude parse Span
    """.split()),
}
# Functions classic TVM registered into tvm.te.schedule from C++.
CLASSIC_NAMES["tvmlite.te.schedule"] = CLASSIC_NAMES["tvmlite.te.schedule"] | frozenset(
    "ScheduleOps PostDFSOrder CreateReadGraph CreateAttachPath ScanGetBody ScanFixPointAnalysis "
    "VerifyCompactBuffer SchedulePostProcRewriteForTensorCore SchedulePostProcToPrimFunc "
    "AutoInlineBroadcast".split())
# Test helpers of classic tvm.testing.utils.
CLASSIC_NAMES["tvmlite.testing"] = CLASSIC_NAMES["tvmlite.testing"] | frozenset(
    "check_numerical_grads check_bool_expr_is_true CompareBeforeAfter enable_span_filling "
    "disable_span_filling install_request_hook fetch_model_from_url xfail_parameterizations "
    "skip_parameterizations identity_after terminate_self is_ampere_or_newer".split())

# Functions of classic TOPI packages: missing ones resolve to a stub that raises when called.
for _module, _names in TOPI_FUNCTIONS.items():
    CLASSIC_NAMES[_module] = CLASSIC_NAMES.get(_module, frozenset()) | _names


# what to do instead, for classic features whose replacement is plain
_INSTEAD = {f"tvm.relay.frontend.from_{fmt}": "export the model to ONNX (every framework "
            "writes it) and use relay.frontend.from_onnx"
            for fmt in ("caffe", "caffe2", "coreml", "darknet", "keras", "mxnet", "oneflow",
                        "paddle", "tensorflow", "tflite")}


def unsupported(feature: str) -> UnsupportedError:
    """The error for a classic feature tvmlite lacks (``feature`` as a user writes it)."""
    instead = _INSTEAD.get(feature)
    return UnsupportedError(f"tvmlite does not implement {feature}"
                            + (f": {instead}" if instead else ""))


def classic_name(module: str) -> str:
    """``tvmlite.te`` → ``tvm.te`` (how classic code spells the module)."""
    return "tvm" + module[len("tvmlite"):] if module.startswith("tvmlite") else module


def is_classic(module: str, name: str) -> bool:
    """Whether ``module.name`` is a public name of classic TVM."""
    return name in CLASSIC_NAMES.get(module, ())


def missing(module: str, name: str, depth: int = 2):
    """Resolve ``module.name`` that is not (yet) an attribute: load the submodule if there is
    one; else raise :class:`UnsupportedError` for a classic name accessed from user code, or
    ``AttributeError``. ``depth`` is the caller's frame depth from here."""
    if not name.startswith("__"):
        full = f"{module}.{name}"
        try:
            spec = importlib.util.find_spec(full)
        except ImportError:
            spec = None
        if spec is not None:
            mod = importlib.import_module(full)
            return mod
        caller = sys._getframe(depth).f_globals.get("__name__", "")
        if is_classic(module, name) and not (caller == "tvmlite" or caller.startswith("tvmlite.")):
            if name in TOPI_FUNCTIONS.get(module, ()):
                return unsupported_function(module, name)
            raise unsupported(f"{classic_name(module)}.{name}")
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def unsupported_function(module: str, name: str, why: Optional[str] = None) -> Callable:
    """A stand-in for the classic function ``module.name`` that tvmlite lacks: it can be
    referred to (classic tests list each target's functions in tables) but raises
    :class:`UnsupportedError` when called, saying ``why`` (by default, for a TOPI package of
    a target without a backend here, that)."""
    key = (module, name)
    if key in _UNSUPPORTED_FUNCTIONS:  # one object per name: code compares them (f is g)
        return _UNSUPPORTED_FUNCTIONS[key]
    package = module.rsplit(".", 1)[1]
    why = why or BACKENDLESS.get(package)
    feature = f"{classic_name(module)}.{name}" + (f" ({why})" if why else "")

    def function(*args, **kwargs):
        raise unsupported(feature)

    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    function.__doc__ = f"Classic ``{classic_name(module)}.{name}``; tvmlite does not implement it."
    function.tvmlite_unsupported = True
    _UNSUPPORTED_FUNCTIONS[key] = function
    return function


_UNSUPPORTED_FUNCTIONS: dict = {}


def backendless_package(name: str):
    """The TOPI package ``tvmlite.topi.<name>`` of a target tvmlite has no backend for (one of
    :data:`~tvmlite._classic_topi.BACKENDLESS`): each classic function of it is an
    :func:`unsupported_function`."""
    full = f"tvmlite.topi.{name}"
    module = sys.modules.get(full)
    if module is None:
        module = types.ModuleType(full, f"Classic ``tvm.topi.{name}``: {BACKENDLESS[name]}; "
                                  "its functions raise UnsupportedError when called.")
        module.__spec__ = importlib.machinery.ModuleSpec(full, None)
        module.__getattr__ = fallback(full)
    return module


def expose_submodules(module, **children) -> None:
    """Make ``module.child`` importable as a submodule (``import tvm.autotvm.task.space``) where
    tvmlite keeps that code in a plain module (``tvmlite.autotvm.space``)."""
    if not hasattr(module, "__path__"):
        module.__path__ = []  # a package without files of its own: children come from here
    for name, child in children.items():
        sys.modules[f"{module.__name__}.{name}"] = child
        setattr(module, name, child)


# Public methods of classic classes; those a tvmlite class lacks raise UnsupportedError.
CLASSIC_METHODS = {
    "tir.Schedule": """add_unit_loop annotate bind blockize cache_index cache_inplace cache_read
        cache_write can_decompose_padding compute_at compute_inline copy decompose_padding
        decompose_reduction enter_postproc fork_seed fuse get get_block get_child_blocks
        get_consumers get_loops get_output_blocks get_producers get_sref merge pad_einsum
        parallel read_at reindex reindex_cache_read reindex_cache_write remove_rv reorder
        reorder_block_iter_var reverse_compute_at reverse_compute_inline rfactor rolling_buffer
        sample_categorical sample_compute_location sample_perfect_tile seed set_axis_separator
        set_scope show split storage_align tensorize transform_block_layout transform_layout
        unannotate unroll unsafe_set_dtype vectorize work_on write_at""".split(),
    "te.Stage": """bind compute_at compute_inline compute_root double_buffer env_threads fuse
        parallel pragma prefetch reorder rolling_buffer set_scope set_store_predicate split
        storage_align tensorize tile transform_layout unroll vectorize""".split(),
    "tir.Buffer": "access_ptr get_flattened_buffer offset_of scope vload vstore".split(),
}


def stub_missing_methods(cls: type, classic: str) -> None:
    """Give ``cls`` a method raising :class:`UnsupportedError` for each public method of the
    classic class ``classic`` (a key of :data:`CLASSIC_METHODS`) that it does not define."""
    for name in CLASSIC_METHODS[classic]:
        if not hasattr(cls, name):
            setattr(cls, name, _unsupported_method(f"{classic}.{name}"))


def _unsupported_method(feature: str):
    def method(self, *args, **kwargs):
        raise unsupported(feature)

    method.__name__ = feature.rsplit(".", 1)[1]
    method.__doc__ = f"Classic ``{feature}``; tvmlite does not implement it (raises TVMError)."
    method.tvmlite_unsupported = True
    return method


def fallback(module: str) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``module``: ``__getattr__ = fallback(__name__)``."""
    def __getattr__(name: str):
        return missing(module, name, depth=2)

    return __getattr__
