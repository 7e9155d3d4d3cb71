#pragma once
// CPU-dispatch variants. Libraries choose a kernel by CPUID at run time: OpenBLAS's
// DYNAMIC_ARCH dgemm_kernel_HASWELL / _SKYLAKEX / _ZEN, glibc's __memmove_avx_unaligned_erms /
// __memmove_sse2_unaligned_erms, FFTW's codelets for sse2, avx, avx2, avx512. Under emulation the
// CPU valgrind shows the program differs from the host's (no AVX-512, other model), so the
// program may run another variant than the one sampled natively. The emulated survey makes the
// variants of each sampled function regions too, so its work is measured whichever one runs
// (docs/survey.md).
#include <string>

#include "result/result.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::survey {

// The name with each run of instruction-set or CPU words ("avx2", "sse4_1", "HASWELL", "ZEN";
// whole words between underscores, any case) replaced by one "*": dgemm_kernel_ZEN ->
// dgemm_kernel_*. "" when the name has none: it is no variant of anything.
std::string dispatch_family(const std::string& symbol);

// Adds to `s` the not yet listed functions of the same module and family as each of its
// functions that can be a region (survey/select.hpp probeable): no samples, `variant_of` the
// sampled one. Returns how many it added.
size_t add_dispatch_variants(result::Survey& s, symbolizer::ElfCache& cache);

// Removes the added variants that the emulated run did not reach (no region).
void drop_unreached_variants(result::Survey& s);

}  // namespace roofprof::survey
