#include "emul/undecodable.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "probes/x86_decode.hpp"

namespace roofprof::emul {
namespace {

std::vector<uint8_t> parse_bytes(const std::string& list) {
  std::vector<uint8_t> out;
  std::istringstream in(list);
  std::string tok;
  while (in >> tok) {
    if (tok.rfind("0x", 0) != 0 && tok.rfind("0X", 0) != 0) break;
    out.push_back(uint8_t(std::stoul(tok.substr(2), nullptr, 16)));
  }
  return out;
}

// Instructions valgrind is known to stop on that Capstone 4 (Debian 12's) misnames or lacks:
// RDPID (f3 0f c7 /7, register form) it reads as RDSEED without the prefix.
struct Known {
  std::vector<uint8_t> prefix;
  const char* name;
};
const Known kKnown[] = {{{0x0f, 0x01, 0xf9}, "rdtscp"},   {{0xf3, 0x0f, 0xc7}, "rdpid"},
                        {{0x0f, 0x01, 0xe8}, "serialize"}, {{0x0f, 0x01, 0xee}, "rdpkru"},
                        {{0x0f, 0x01, 0xef}, "wrpkru"}};

std::string known_name(const std::vector<uint8_t>& bytes) {
  for (const auto& k : kKnown) {
    if (bytes.size() < k.prefix.size() || !std::equal(k.prefix.begin(), k.prefix.end(), bytes.begin())) continue;
    // RDPID: the ModRM byte names a register (mod 11) and /7.
    if (std::string(k.name) == "rdpid" && (bytes.size() < 4 || (bytes[3] & 0xf8) != 0xf8)) continue;
    return k.name;
  }
  return "";
}

std::string name_of(const std::vector<uint8_t>& bytes) {
  if (std::string known = known_name(bytes); !known.empty()) return known;
  const cs_insn* insn = probes::decode_x86(bytes.data(), bytes.size(), 0);
  if (!insn) return "";
  std::string s = insn->mnemonic;
  if (insn->op_str[0]) s += std::string(" ") + insn->op_str;
  return s;
}

// "   at 0x10913D: probe_cpu (u.c:4)" -> "probe_cpu (u.c:4)".
std::string frame_of(const std::string& line) {
  auto at = line.find(" at 0x");
  if (at == std::string::npos) return "";
  auto colon = line.find(": ", at);
  return colon == std::string::npos ? "" : line.substr(colon + 2);
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return s;
}

}  // namespace

std::optional<Undecodable> parse_undecodable(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  std::optional<Undecodable> out;
  bool after_unrecognised = false;
  while (std::getline(in, line)) {
    if (!out) {
      auto at = line.find("unhandled instruction bytes:");
      if (at == std::string::npos) continue;
      out = Undecodable{parse_bytes(line.substr(at + 28)), "", ""};
      out->mnemonic = name_of(out->bytes);
      continue;
    }
    if (line.find("Unrecognised instruction at address") != std::string::npos) {
      after_unrecognised = true;
    } else if (after_unrecognised) {
      out->where = frame_of(line);
      break;
    }
  }
  return out;
}

std::string undecodable_message(const std::string& program, const Undecodable& u) {
  std::string hex;
  // The instruction's own bytes when Capstone sized it (vex prints a few more).
  size_t n = u.bytes.size();
  if (!known_name(u.bytes).empty()) n = u.bytes[0] == 0x0f ? 3 : 4;
  else if (!u.mnemonic.empty())
    if (const cs_insn* insn = probes::decode_x86(u.bytes.data(), u.bytes.size(), 0)) n = insn->size;
  for (size_t i = 0; i < n && i < u.bytes.size(); ++i) hex += fmt::format("{}{:02x}", i ? " " : "", u.bytes[i]);
  const bool evex = !u.bytes.empty() && u.bytes[0] == 0x62;
  std::string what = u.mnemonic.empty() ? "an instruction" : upper(u.mnemonic.substr(0, u.mnemonic.find(' ')));
  if (evex) what = "an AVX-512 instruction" + (u.mnemonic.empty() ? "" : " (" + what + ")");
  std::string out = fmt::format("{} executed {} ({}){}, which valgrind cannot emulate: the emulated run stops there", program,
                                what, hex, u.where.empty() ? "" : " in " + u.where);
  if (evex)
    return out + "; rebuild it without AVX-512 (e.g. -march=x86-64-v3), or measure it natively "
                 "(--backend native counts W without a PMU; --backend perf where the CPU has one)";
  return out + "; measure it natively instead (--backend native counts W without a PMU; --backend perf where the "
               "CPU has one; --backend time for times only), or keep the program off that instruction (a library "
               "that picks its code by CPU usually has a setting for it)";
}

}  // namespace roofprof::emul
