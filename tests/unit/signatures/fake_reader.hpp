#pragma once
// An ArgReader over a simulated stopped thread: six argument registers, a stack whose [rsp] is
// the return address, and memory made of registered blocks (anything else is unreadable).
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "signatures/arg_reader.hpp"

namespace roofprof::signatures::testing {

class FakeThread : public ArgReader {
 public:
  uint64_t regs[6] = {};
  static constexpr uint64_t kStackTop = 0x7ffd'0000'1000;
  uint64_t rsp = kStackTop;

  // Makes `size` bytes at `addr` readable with this content.
  void map(uint64_t addr, const void* data, size_t size) {
    blocks_[addr] = std::vector<uint8_t>(static_cast<const uint8_t*>(data),
                                         static_cast<const uint8_t*>(data) + size);
  }
  // Pushes the stack of a call: the stack arguments (7th, 8th, ...) then the return address.
  void push_call_frame(const std::vector<uint64_t>& stack_args, uint64_t return_address) {
    std::vector<uint64_t> frame{return_address};
    frame.insert(frame.end(), stack_args.begin(), stack_args.end());
    rsp = kStackTop - 8 * frame.size();
    map(rsp, frame.data(), 8 * frame.size());
  }

  uint64_t reg(int i) override { return regs[i]; }
  uint64_t stack_pointer() override { return rsp; }
  std::optional<uint64_t> read_u64(uint64_t addr) override { return read<uint64_t>(addr); }
  std::optional<int32_t> read_i32(uint64_t addr) override { return read<int32_t>(addr); }
  int reads = 0;

 private:
  template <class T>
  std::optional<T> read(uint64_t addr) {
    ++reads;
    auto it = blocks_.upper_bound(addr);
    if (it == blocks_.begin()) return std::nullopt;
    --it;
    uint64_t off = addr - it->first;
    if (off + sizeof(T) > it->second.size()) return std::nullopt;
    T v;
    std::memcpy(&v, it->second.data() + off, sizeof v);
    return v;
  }
  std::map<uint64_t, std::vector<uint8_t>> blocks_;
};

}  // namespace roofprof::signatures::testing
