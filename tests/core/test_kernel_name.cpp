// Short kernel names as Nsight Systems lists them, on names from the traces in ../shared/data.
#include <gtest/gtest.h>

#include "session/kernel_name.h"

namespace ts {
namespace {

TEST(KernelName, FunctionNameAlone) {
  const std::pair<const char*, const char*> cases[] = {
      {"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
       "at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, "
       "3>)",
       "vectorized_elementwise_kernel"},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct, "
       "float const*)",
       "bn_fw_tr_1C11_kernel_NCHW"},
      {"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)",
       "computeOffsetsKernel"},
      {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, "
       "float const*, int, int, int)",
       "softmax_warp_forward"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
       "namespace)::clamp_min_scalar_kernel_impl(at::TensorIterator&, "
       "c10::Scalar)::{lambda()#1}::operator()() const::{lambda(float)#1}, "
       "at::detail::Array<char*, "
       "2> >(int, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::"
       "TensorIterator&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda(float)#1}, "
       "at::detail::Array<char*, 2>)",
       "vectorized_elementwise_kernel"},
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
       "ncclKernel_AllReduce_RING_LL_Sum_float"},
      {"void fft2d_r2c_32x32<float, false, 1u, false>(float2*, float const*)", "fft2d_r2c_32x32"},
      // Kept as they are: no parameters or template arguments to drop.
      {"volta_sgemm_64x64_nt", "volta_sgemm_64x64_nt"},
      {"aten::conv2d", "aten::conv2d"},
      {"forward/conv1", "forward/conv1"},
      {"Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)"},
      {"", ""},
      {"broken<unbalanced(", "broken<unbalanced("},
  };
  for (auto [full, expected] : cases) EXPECT_EQ(shortKernelName(full), expected) << full;
}

}  // namespace
}  // namespace ts
