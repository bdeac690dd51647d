// Short kernel names, as Nsight Systems shows them: the function's own name without its return
// type, namespaces, template arguments and parameters —
// "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, …>(int, …)"
// is "vectorized_elementwise_kernel". Names without a parameter list or template arguments
// ("volta_sgemm_64x64_nt", an NVTX range, "aten::conv2d") are kept as they are.
#pragma once

#include <string_view>

namespace ts {

// A view into `name`.
std::string_view shortKernelName(std::string_view name);

}  // namespace ts
