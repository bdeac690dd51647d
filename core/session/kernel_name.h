// Short kernel names, as Nsight Systems shows them: the function's own name without its return
// type, namespaces, template arguments and parameters —
// "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, …>(int, …)"
// is "vectorized_elementwise_kernel". Names without a parameter list or template arguments
// ("volta_sgemm_64x64_nt", an NVTX range, "aten::conv2d") are kept as they are.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ts {

// A view into `name`.
std::string_view shortKernelName(std::string_view name);

// The short names of a list that still tell its names apart. Where different names shorten
// alike (three template instances listed as "vectorized_elementwise_kernel"), each gets the
// template arguments in which they differ, without namespaces —
// "vectorized_elementwise_kernel<…, AddFunctor<float>, …>" and "…<…, FillFunctor<float>, …>" —
// or, when those do not differ, its place among them ("… #2"). A name listed twice is one name.
std::vector<std::string> distinctShortNames(const std::vector<std::string_view>& names);

}  // namespace ts
