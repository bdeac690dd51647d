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

// The ResNet-50 trace's elementwise kernels: one short name for five different kernels, which the
// Kernels-by-name table and the top-kernels chart listed as five identical rows.
TEST(KernelName, DistinctShortNamesTellTemplateInstancesApart) {
  const std::vector<std::string_view> names = {
      "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, "
      "3>)",
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::BUnaryFunctor<at::native::AddFunctor<long> >, at::detail::Array<char*, 2> "
      ">(int, at::native::BUnaryFunctor<at::native::AddFunctor<long> >, at::detail::Array<char*, "
      "2>)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, "
      "1>)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
      "namespace)::clamp_min_scalar_kernel_impl(at::TensorIterator&, "
      "c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() "
      "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::detail::Array<char*, 2>)",
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
      "float)::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, "
      "at::detail::Array<char*, 3>)",
      "volta_sgemm_64x64_nt",
      // Listed again (per GPU): the same name, the same label.
      "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, "
      "3>)",
  };
  const std::vector<std::string> shown = distinctShortNames(names);
  ASSERT_EQ(shown.size(), names.size());
  EXPECT_EQ(shown[0], "vectorized_elementwise_kernel<\u2026, AddFunctor<float>, \u2026>");
  EXPECT_EQ(shown[1],
            "vectorized_elementwise_kernel<\u2026, BUnaryFunctor<AddFunctor<long> >, \u2026>");
  EXPECT_EQ(shown[2], "vectorized_elementwise_kernel<\u2026, FillFunctor<float>, \u2026>");
  EXPECT_EQ(shown[3],
            "vectorized_elementwise_kernel<\u2026, clamp_min_scalar_kernel_impl::lambda, \u2026>");
  EXPECT_EQ(shown[4],
            "vectorized_elementwise_kernel<\u2026, threshold_kernel_impl<float>::lambda, \u2026>");
  EXPECT_EQ(shown[5], "volta_sgemm_64x64_nt");  // alone in its name: short as before
  EXPECT_EQ(shown[6], shown[0]);
}

// Names alike in their template arguments (overloads by parameters) are numbered in list order.
TEST(KernelName, DistinctShortNamesNumberWhatArgumentsCannotTellApart) {
  const std::vector<std::string_view> names = {"void ns::k<float>(int)", "void ns::k<float>(long)",
                                               "void ns::k<half>(int)"};
  const std::vector<std::string> shown = distinctShortNames(names);
  EXPECT_EQ(shown[0], "k<float> #1");
  EXPECT_EQ(shown[1], "k<float> #2");
  EXPECT_EQ(shown[2], "k<half>");
}

}  // namespace
}  // namespace ts
