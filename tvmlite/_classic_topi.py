"""The functions of classic TVM v0.12.0's TOPI packages (facts about its API), for the
packages whose missing functions resolve to a stub that raises
:class:`~tvmlite._classic.UnsupportedError` when called (see :mod:`tvmlite._classic`): classic
code refers to them in tables at import time (``{"arm_cpu": (topi.arm_cpu.conv2d_nchw, ...)}``)
and calls only those of the target it runs on."""

#: the TOPI packages of targets tvmlite has no backend for, and why their functions fail
BACKENDLESS = {
    "arm_cpu": "tvmlite has no Arm CPU backend",
    "bifrost": "tvmlite has no Arm Bifrost GPU backend",
    "gpu": "tvmlite's GPU operators are those of topi.cuda",
    "hls": "tvmlite has no HLS (FPGA) backend",
    "intel_graphics": "tvmlite has no Intel Graphics backend",
    "mali": "tvmlite has no Arm Mali GPU backend",
}

TOPI_FUNCTIONS = {
    "tvmlite.topi.hls": frozenset("""
        schedule_adaptive_pool schedule_bitserial_conv2d_nchw schedule_bitserial_conv2d_nhwc
        schedule_broadcast schedule_conv2d_NCHWc schedule_conv2d_nchw schedule_conv2d_nhwc
        schedule_conv2d_transpose_nchw schedule_dense schedule_depthwise_conv2d_nchw
        schedule_depthwise_conv2d_nhwc schedule_elemwise schedule_injective schedule_pool
        schedule_reduce schedule_softmax
    """.split()),
    "tvmlite.topi.gpu": frozenset("""
        conv2d_nhwc dense_large_batch dense_small_batch matmul_default schedule_conv2d_nhwc
        schedule_conv2d_nhwc_direct schedule_dense_large_batch schedule_dense_small_batch
        schedule_matmul_default
    """.split()),
    "tvmlite.topi.intel_graphics": frozenset("""
        conv2d_NCHWc conv2d_alter_op conv2d_nchw depthwise_conv2d_nchw schedule_conv2d_NCHWc
        schedule_conv2d_nchw schedule_depthwise_conv2d_nchw tile_and_bind3d
    """.split()),
    "tvmlite.topi.mali": frozenset("""
        conv2d_nchw_spatial_pack conv2d_nchw_winograd conv2d_nhwc_spatial_pack
        conv2d_winograd_nhwc_mali dense depthwise_conv2d_nchw depthwise_conv2d_nhwc
        fuse_and_bind schedule_conv2d_nchw_spatial_pack schedule_conv2d_nchw_winograd
        schedule_conv2d_nhwc_spatial_pack schedule_dense schedule_depthwise_conv2d_nchw
        schedule_depthwise_conv2d_nhwc tile_and_bind tile_and_bind3d
    """.split()),
    "tvmlite.topi.bifrost": frozenset("""
        conv2d_nchw_spatial_pack conv2d_nchw_winograd decl_batched_gemm decl_gemm
        decl_winograd_gemm dense fuse_and_bind get_unrollable_gemm_ops interleave_transpose
        schedule_conv2d_nchw_spatial_pack schedule_conv2d_nchw_winograd schedule_dense
        schedule_depthwise_conv2d_nchw schedule_gemm schedule_unrollable_gemm tile_and_bind
        tile_and_bind3d transpose_interleave
    """.split()),
    "tvmlite.topi.arm_cpu": frozenset("""
        bitserial_conv2d_nhwc bitserial_dense compute_conv2d_NHWC_quantized_interleaved
        compute_conv2d_NHWC_quantized_interleaved_without_transform
        compute_conv2d_NHWC_quantized_native
        compute_conv2d_NHWC_quantized_native_without_transform
        compute_conv2d_gemm_without_weight_transform compute_depthwise_conv2d_nhwc
        conv1d_nwc_dsp conv1d_nwc_dsp_compute conv1d_nwc_dsp_schedule conv2d_NCHWc_int8
        conv2d_alter_op conv2d_nchw_int8 conv2d_nchw_spatial_pack conv2d_nchw_winograd
        conv2d_nchw_winograd_nnpack conv2d_nchw_winograd_nnpack_without_weight_transform
        conv2d_nhwc_dsp conv2d_nhwc_dsp_compute conv2d_nhwc_dsp_schedule
        conv2d_nhwc_spatial_pack conv2d_spatial_pack_nchw conv2d_spatial_pack_nhwc
        conv2d_transpose_nchw dense_dsp dense_dsp_compute dense_dsp_schedule
        depthwise_conv2d_nchw depthwise_conv2d_nchw_spatial_pack depthwise_conv2d_nhwc_dsp
        depthwise_conv2d_nhwc_dsp_compute depthwise_conv2d_nhwc_dsp_schedule
        dot_int8_int8_int32_neon dot_int8_int8_int32_neon_82 get_tiling_B_interleaved_t
        group_conv2d_nchw group_conv2d_nchw_spatial_pack is_int8_hw_support
        pool_dsp_schedule qnn_alter_op qnn_conv2d qnn_depthwise_conv2d qnn_legalize
        qnn_unrolled_depthwise_conv2d schedule_bitserial_conv2d_nhwc
        schedule_bitserial_dense schedule_concatenate schedule_conv1d_nwc_dsp
        schedule_conv2d_NCHWc_int8 schedule_conv2d_NHWC_quantized_interleaved
        schedule_conv2d_NHWC_quantized_interleaved_without_transform
        schedule_conv2d_NHWC_quantized_native
        schedule_conv2d_NHWC_quantized_native_without_transform
        schedule_conv2d_gemm_interleaved schedule_conv2d_gemm_native
        schedule_conv2d_nchw_int8 schedule_conv2d_nchw_spatial_pack
        schedule_conv2d_nchw_winograd schedule_conv2d_nchw_winograd_nnpack
        schedule_conv2d_nchw_winograd_nnpack_without_weight_transform
        schedule_conv2d_nhwc_dsp schedule_conv2d_nhwc_spatial_pack
        schedule_conv2d_spatial_pack_nchw schedule_conv2d_spatial_pack_nhwc
        schedule_conv2d_transpose_nchw schedule_dense_dsp schedule_depthwise_conv2d_nchw
        schedule_depthwise_conv2d_nchw_spatial_pack schedule_depthwise_conv2d_nhwc
        schedule_depthwise_conv2d_nhwc_dsp schedule_group_conv2d_nchw
        schedule_group_conv2d_nchwc schedule_injective schedule_injective_from_existing
        schedule_pool schedule_qnn_conv2d schedule_qnn_depthwise_conv2d
        schedule_qnn_unrolled_depthwise_conv2d smlal_int16_int32 tensordot
    """.split()),
    "tvmlite.topi.cuda": frozenset("""
        all_class_non_max_suppression argsort argsort_thrust argwhere argwhere_1d
        argwhere_2d argwhere_3d argwhere_4d argwhere_5d argwhere_common atomic_add
        batch_matmul batch_matmul_cublas batch_matmul_int8 batch_matmul_tensorcore
        batch_matmul_tensorcore_cuda compact_nonzero_indices_ir conv1d_ncw conv1d_nwc
        conv1d_transpose_ncw conv2d_NCHWc_int8 conv2d_alter_op conv2d_backward_weight_cudnn
        conv2d_cudnn conv2d_hwcn conv2d_hwnc_tensorcore conv2d_nchw conv2d_nchw_int8
        conv2d_nchw_winograd conv2d_nchw_winograd_without_weight_transform
        conv2d_nhwc_tensorcore conv2d_nhwc_winograd_direct
        conv2d_nhwc_winograd_direct_without_weight_transform conv2d_nhwc_winograd_tensorcore
        conv2d_nhwc_winograd_tensorcore_without_weight_transform conv2d_transpose_cudnn
        conv2d_transpose_nchw conv2d_winograd_nchw_cuda conv2d_winograd_nhwc_cuda
        conv3d_alter_op conv3d_cudnn conv3d_ncdhw conv3d_ncdhw_winograd
        conv3d_ncdhw_winograd_without_weight_transform conv3d_ndhwc conv3d_ndhwc_tensorcore
        conv3d_transpose_ncdhw correlation_nchw cumprod cumsum data_weight_transform
        deformable_conv2d_nchw dense_cublas dense_int8 dense_tensorcore
        dense_tensorcore_cuda depthwise_conv2d_nchw dft dp4a exclusive_scan
        exclusive_scan_ir fdiv fmod gen_ir gen_scatter_1d_thrust gen_scatter_add_1d_atomic
        get_reduction_from_exclusive_scan get_valid_counts group_conv1d_ncw group_conv1d_nwc
        group_conv2d_NCHWc_int8 group_conv2d_nchw group_conv2d_nchw_int8
        hwnc_tensorcore_cuda inclusive_scan intrin_wmma_gemm intrin_wmma_load_matrix_A
        intrin_wmma_load_matrix_W intrin_wmma_store_matrix invert_permutation
        is_valid_for_sparse_dense_padded log_softmax_cudnn matmul_cublas multibox_detection
        multibox_prior multibox_prior_ir multibox_transform_loc ndhwc_tensorcore_cuda
        nhwc_tensorcore_cuda nhwc_winograd_cuda non_max_suppression pad_sparse_matrix
        proposal scan_thrust scanop scatter_elements scatter_nd scatter_via_sort
        schedule_adaptive_pool schedule_argsort schedule_argwhere schedule_batch_matmul
        schedule_batch_matmul_cublas schedule_batch_matmul_int8
        schedule_batch_matmul_tensorcore schedule_bgemm_direct schedule_bgemm_tensorcore
        schedule_broadcast schedule_conv1d_ncw schedule_conv1d_nwc
        schedule_conv1d_transpose_ncw schedule_conv2d_NCHWc_int8 schedule_conv2d_cudnn
        schedule_conv2d_hwcn schedule_conv2d_hwnc_tensorcore schedule_conv2d_nchw
        schedule_conv2d_nchw_int8 schedule_conv2d_nchw_winograd
        schedule_conv2d_nchw_winograd_without_weight_transform
        schedule_conv2d_nhwc_tensorcore schedule_conv2d_nhwc_winograd_direct
        schedule_conv2d_nhwc_winograd_direct_without_weight_transform
        schedule_conv2d_nhwc_winograd_tensorcore
        schedule_conv2d_nhwc_winograd_tensorcore_without_weight_transform
        schedule_conv2d_transpose_nchw schedule_conv3d_cudnn schedule_conv3d_ncdhw
        schedule_conv3d_ncdhw_winograd
        schedule_conv3d_ncdhw_winograd_without_weight_transform schedule_conv3d_ndhwc
        schedule_conv3d_ndhwc_tensorcore schedule_conv3d_transpose_ncdhw
        schedule_correlation_nchw schedule_deformable_conv2d_nchw schedule_dense_cublas
        schedule_dense_int8 schedule_dense_tensorcore
        schedule_depthwise_conv2d_backward_input_nhwc
        schedule_depthwise_conv2d_backward_weight_nhwc schedule_depthwise_conv2d_nchw
        schedule_depthwise_conv2d_nhwc schedule_direct_conv3d_cuda schedule_direct_cuda
        schedule_elemwise schedule_get_valid_counts schedule_group_conv1d_ncw
        schedule_group_conv1d_nwc schedule_group_conv2d_NCHWc_int8
        schedule_group_conv2d_nchw schedule_group_conv2d_nchw_int8
        schedule_hwnc_tensorcore_cuda schedule_injective schedule_injective_from_existing
        schedule_log_softmax_cudnn schedule_lrn schedule_matmul_cublas
        schedule_multibox_detection schedule_multibox_prior schedule_multibox_transform_loc
        schedule_ndhwc_tensorcore_cuda schedule_nhwc_tensorcore_cuda
        schedule_nhwc_winograd_cuda schedule_nms schedule_pool schedule_pool_grad
        schedule_proposal schedule_reduce schedule_reorg schedule_roi_align
        schedule_roi_pool schedule_scan schedule_scatter_via_sort schedule_softmax
        schedule_softmax_cudnn schedule_sort schedule_sparse_dense
        schedule_sparse_dense_padded schedule_topk schedule_transpose
        schedule_transpose_from_existing schedule_winograd_cuda
        schedule_winograd_no_depth_cuda searchsorted softmax_cudnn sort sort_by_key
        sort_by_key_ir sort_ir sort_thrust sparse_dense sparse_dense_padded sparse_dense_tir
        sparse_reshape stable_sort_by_key_thrust stft tensorcore_alter_op topk topk_thrust
        transform_loc_ir transform_loc_pre unique unpack_HWNCnc_to_hwnc winograd_cuda
        winograd_without_depth_cuda
    """.split()),
    "tvmlite.topi.generic": frozenset("""
        schedule_adaptive_pool schedule_argsort schedule_argwhere schedule_batch_matmul
        schedule_batch_norm schedule_binarize_pack schedule_binary_dense schedule_bitpack
        schedule_bitserial_conv2d_nchw schedule_bitserial_conv2d_nhwc
        schedule_bitserial_dense schedule_broadcast schedule_conv1d_ncw schedule_conv1d_nwc
        schedule_conv1d_transpose_ncw schedule_conv2d_NCHWc schedule_conv2d_NCHWc_int8
        schedule_conv2d_gemm_weight_transform schedule_conv2d_hwcn schedule_conv2d_nchw
        schedule_conv2d_nhwc schedule_conv2d_nhwc_pack schedule_conv2d_transpose_nchw
        schedule_conv2d_winograd_nnpack_weight_transform
        schedule_conv2d_winograd_weight_transform
        schedule_conv2d_winograd_without_weight_transform schedule_conv3d_ncdhw
        schedule_conv3d_ndhwc schedule_conv3d_transpose_ncdhw
        schedule_conv3d_winograd_weight_transform schedule_correlation_nchw
        schedule_deformable_conv2d_nchw schedule_deformable_conv2d_nhwc schedule_dense
        schedule_depthwise_conv2d_NCHWc schedule_depthwise_conv2d_nchw
        schedule_depthwise_conv2d_nhwc schedule_dilation2d_nchw schedule_dilation2d_nhwc
        schedule_einsum schedule_elemwise schedule_extern schedule_fast_softmax
        schedule_get_valid_counts schedule_group_conv1d_ncw schedule_group_conv1d_nwc
        schedule_group_conv2d_nchw schedule_group_conv2d_nhwc
        schedule_group_conv2d_transpose_nchw schedule_injective
        schedule_injective_from_existing schedule_lrn schedule_lstm schedule_matmul
        schedule_multibox_detection schedule_multibox_prior schedule_multibox_transform_loc
        schedule_nms schedule_pool schedule_pool_grad schedule_proposal schedule_reduce
        schedule_reorg schedule_roi_align schedule_roi_pool schedule_softmax schedule_sort
        schedule_sparse_conv2d schedule_sparse_dense schedule_sparse_fill_empty_rows
        schedule_sparse_transpose schedule_topk schedule_unique
    """.split()),
    "tvmlite.topi.x86": frozenset("""
        acc_32x32_int32_sapphirerapids batch_matmul batch_matmul_amx_schedule
        batch_matmul_blas_common batch_matmul_cblas batch_matmul_int8_compute
        batch_matmul_int8_schedule batch_matmul_mkl bitserial_conv2d_nchw
        bitserial_conv2d_nhwc bitserial_dense check_int8_applicable concatenate conv2d_NCHWc
        conv2d_NCHWc_int8 conv2d_avx_1x1 conv2d_avx_common conv2d_nchw conv2d_nchw_dnnl
        conv2d_nchw_int8 conv2d_nhwc_dnnl conv2d_transpose_nchw conv3d_ncdhw conv3d_ndhwc
        conv3d_transpose_ncdhw dense_amx_int8_schedule dense_cblas dense_dnnl dense_dynamic
        dense_int8 dense_int8_compute dense_int8_schedule dense_mkl dense_nopack dense_pack
        depthwise_conv2d_NCHWc depthwise_conv2d_nchw dot_16x1x16_uint8_int8_int32
        dot_32x128x32_u8s8s32_sapphirerapids group_conv2d_nchw
        group_conv2d_nchw_spatial_pack int8_int8_legalize is_int8_hw_support
        matmul_blas_common matmul_cblas matmul_dnnl matmul_mkl roi_align_nchw
        schedule_adaptive_pool schedule_batch_matmul schedule_batch_matmul_cblas
        schedule_batch_matmul_int8 schedule_batch_matmul_mkl schedule_batch_norm
        schedule_binarize_pack schedule_binary_dense schedule_bitserial_conv2d_nchw
        schedule_bitserial_conv2d_nhwc schedule_bitserial_dense schedule_broadcast
        schedule_concatenate schedule_concatenate_cpu schedule_conv1d_ncw
        schedule_conv1d_nwc schedule_conv2d_NCHWc schedule_conv2d_NCHWc_int8
        schedule_conv2d_nchw schedule_conv2d_nchw_dnnl schedule_conv2d_nchw_int8
        schedule_conv2d_nhwc schedule_conv2d_nhwc_dnnl schedule_conv2d_nhwc_pack_int8
        schedule_conv2d_transpose_nchw schedule_conv3d_ncdhw schedule_conv3d_ndhwc
        schedule_conv3d_transpose_ncdhw schedule_dense_cblas schedule_dense_dnnl
        schedule_dense_dynamic schedule_dense_int8 schedule_dense_mkl schedule_dense_nopack
        schedule_dense_pack schedule_depthwise_conv2d_NCHWc schedule_depthwise_conv2d_nchw
        schedule_elemwise schedule_group_conv1d_ncw schedule_group_conv1d_nwc
        schedule_group_conv2d_nchw schedule_group_conv2d_nchwc schedule_injective
        schedule_injective_from_existing schedule_matmul_cblas schedule_matmul_dnnl
        schedule_matmul_mkl schedule_pool schedule_reduce schedule_softmax
        schedule_sparse_dense schedule_spconv2d_3x3_nchw schedule_spconv2d_3x3_nhwc
        spconv2d_3x3_nchw spconv2d_3x3_nhwc
    """.split()),
    "tvmlite.topi.nn": frozenset("""
        adaptive_pool adaptive_pool3d add_alter_layout batch_matmul batch_matmul_legalize
        batch_norm batch_to_space_nd bias_add_legalize binarize_pack binary_dense bitpack
        bitserial_conv2d_legalize bitserial_conv2d_nchw bitserial_conv2d_nhwc
        bitserial_dense conv conv1d conv1d_ncw conv1d_nwc conv1d_transpose_ncw conv2d
        conv2d_NCHWc conv2d_NCHWc_int8 conv2d_alter_layout conv2d_gemm_weight_transform
        conv2d_hwcn conv2d_infer_layout conv2d_legalize conv2d_nchw conv2d_nhwc
        conv2d_transpose_legalize conv2d_transpose_nchw conv2d_transpose_nchw_preprocess
        conv2d_winograd_nchw conv2d_winograd_nchw_without_weight_transform
        conv2d_winograd_nhwc conv2d_winograd_nhwc_without_weight_transform
        conv2d_winograd_nnpack_weight_transform conv2d_winograd_weight_transform
        conv3d_alter_layout conv3d_ncdhw conv3d_ndhwc conv3d_transpose_legalize
        conv3d_transpose_ncdhw conv3d_transpose_ncdhw_preprocess
        conv3d_winograd_weight_transform correlation_nchw declaration_conv2d_transpose_impl
        declaration_conv3d_transpose_impl deformable_conv2d_nchw deformable_conv2d_nhwc
        dense dense_alter_layout dense_legalize dense_pack depth_to_space
        depthwise_conv2d_NCHWc depthwise_conv2d_backward_input_nhwc
        depthwise_conv2d_backward_weight_nhwc depthwise_conv2d_infer_layout
        depthwise_conv2d_nchw depthwise_conv2d_nhwc dilate fast_softmax fifo_buffer flatten
        get_pad_tuple get_pad_tuple1d get_pad_tuple3d get_pad_tuple_generic global_pool
        group_conv1d_ncw group_conv1d_nwc group_conv2d_nchw group_conv2d_nhwc
        group_conv2d_transpose_nchw group_norm instance_norm layer_norm layout_transform
        leaky_relu log_softmax lrn lstm matmul matmul_legalize mirror_pad nll_loss pad
        pool1d pool2d pool3d pool_grad prelu qnn_conv2d_alter_layout qnn_dense_alter_layout
        qnn_requantize_alter_layout relu scale_shift_nchw scale_shift_nchwc scale_shift_nhwc
        simulated_dequantize simulated_quantize softmax softmax_common space_to_batch_nd
        space_to_depth sparse_add sparse_conv2d sparse_dense sparse_dense_alter_layout
        sparse_dense_sp_lhs sparse_dense_sp_rhs sparse_transpose try_get_conv2d_sparse_input
        try_get_sparse_input unpack_NCHWc_to_nchw upsampling upsampling3d
        winograd_transform_matrices
    """.split()),
    "tvmlite.topi.image": frozenset("""
        affine_grid can_convert_multiply_to_intdiv crop_and_resize dilation2d_nchw
        dilation2d_nhwc get_1d_indices get_1d_pixel get_2d_indices get_2d_pixel
        get_3d_indices get_3d_pixel get_closest_index get_inx grid_sample resize1d resize2d
        resize3d
    """.split()),
    "tvmlite.topi.testing": frozenset("""
        adaptive_pool affine_grid_python batch_matmul batch_norm batch_to_space_nd_python
        compare_numpy_tvm conv1d_ncw_python conv1d_transpose_ncw_python
        conv2d_backward_weight_python conv2d_hwcn_python conv2d_nchw_python
        conv2d_nhwc_python conv2d_transpose_nchw_python conv2d_transpose_nhwc_python
        conv3d_ncdhw_python conv3d_ndhwc_python conv3d_transpose_ncdhw_python
        correlation_nchw_python crop_and_resize_python deformable_conv2d_nchw_python
        deformable_conv2d_nhwc_python dense depth_to_space_python
        depthwise_conv2d_python_nchw depthwise_conv2d_python_nchwc
        depthwise_conv2d_python_nhwc dilate_python dispatch gather_nd_python gather_python
        get_broadcast_schedule get_conv2d_nchw_implement get_elemwise_schedule
        get_injective_schedule get_reduce_schedule grid_sample_python
        group_conv1d_ncw_python group_norm_python instance_norm_python l2_normalize_python
        layer_norm_python log_softmax_python lrn_python lstm_python matrix_set_diag nll_loss
        one_hot pool_grad_nchw poolnd_python reorg_python resize1d_python resize2d_python
        resize3d_python roi_align_nchw_python roi_align_nhwc_python roi_pool_nchw_python
        searchsorted_ref sequence_mask slice_axis_python softmax_python
        space_to_batch_nd_python space_to_depth_python strided_set_python
        strided_slice_python
    """.split()),
}
