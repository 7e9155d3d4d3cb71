#include "probes/x86_decode.hpp"

#include <cstring>

#include "common/error.hpp"

namespace roofprof::probes {

namespace {

class Decoder {
 public:
  Decoder() {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h_) != CS_ERR_OK) throw UserError("capstone: cannot open x86-64 disassembler");
    cs_option(h_, CS_OPT_DETAIL, CS_OPT_ON);
    insn_ = cs_malloc(h_);
  }
  ~Decoder() {
    cs_free(insn_, 1);
    cs_close(&h_);
  }
  const cs_insn* decode(const uint8_t* code, size_t avail, uint64_t at) {
    const uint8_t* p = code;
    size_t n = avail;
    uint64_t a = at;
    return cs_disasm_iter(h_, &p, &n, &a, insn_) ? insn_ : nullptr;
  }

 private:
  csh h_ = 0;
  cs_insn* insn_ = nullptr;
};

}  // namespace

const cs_insn* decode_x86(const uint8_t* code, size_t avail, uint64_t at) {
  thread_local Decoder d;
  return d.decode(code, avail, at);
}

bool in_group(const cs_insn* insn, uint8_t group) {
  for (uint8_t i = 0; i < insn->detail->groups_count; ++i)
    if (insn->detail->groups[i] == group) return true;
  return false;
}

bool is_endbr64(const uint8_t* code, size_t avail) {
  static const uint8_t kEndbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  return avail >= 4 && std::memcmp(code, kEndbr64, 4) == 0;
}

}  // namespace roofprof::probes
