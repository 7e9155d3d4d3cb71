#include "signatures/arg_reader.hpp"

namespace roofprof::signatures {

std::optional<uint64_t> integer_arg(ArgReader& reader, int index) {
  if (index < 0) return std::nullopt;
  if (index < 6) return reader.reg(index);
  return reader.read_u64(reader.stack_pointer() + 8 * uint64_t(index - 5));
}

}  // namespace roofprof::signatures
