// The edges of an inlined copy: its entry point, where else control enters its code from outside
// (re-entries) and where it leaves, from hand-assembled x86-64 (bytes and addresses as objdump
// would show them).
#include "symbolizer/inlined.hpp"

#include <gtest/gtest.h>

namespace roofprof::symbolizer {
namespace {

// 0x1000  48 89 f8   mov %rdi,%rax      outside
// 0x1003  48 01 c0   add %rax,%rax      the copy: [0x1003, 0x1009)
// 0x1006  48 ff c0   inc %rax
// 0x1009  75 f8      jne 0x1003         outside, jumps back in
// 0x100b  e8 00 00 00 00  call 0x1010   outside
// 0x1010  c3         ret
const uint8_t kCode[] = {0x48, 0x89, 0xf8, 0x48, 0x01, 0xc0, 0x48, 0xff, 0xc0, 0x75, 0xf8,
                         0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3};

CopyEdges edges(std::vector<AddressRange> ranges, const uint8_t* code = kCode, size_t size = sizeof kCode) {
  return copy_edges(ranges, ranges.front().begin, {CodeBlock{0x1000, code, size}});
}

TEST(InlinedCopy, EnteredByFallThroughAndBackEdgeLeftByFallThrough) {
  const CopyEdges e = edges({{0x1003, 0x1009}});
  EXPECT_EQ(e.why_not, "");
  EXPECT_EQ(e.entry, 0x1003u);
  EXPECT_EQ(e.reentries, std::vector<uint64_t>{});  // the back edge comes to the entry point
  EXPECT_EQ(e.exits, (std::vector<uint64_t>{0x1009}));
}

TEST(InlinedCopy, ABranchOutIsAnExitAndACallIsNot) {
  // The copy is the loop's branch and the call: jne leaves to 0x1003 when taken, falls to the
  // call otherwise; the call's callee runs inside the copy, which ends at the ret (outside).
  const CopyEdges e = edges({{0x1009, 0x1010}});
  EXPECT_EQ(e.why_not, "");
  EXPECT_EQ(e.entry, 0x1009u);
  EXPECT_EQ(e.reentries, std::vector<uint64_t>{});
  EXPECT_EQ(e.exits, (std::vector<uint64_t>{0x1003, 0x1010}));
}

TEST(InlinedCopy, CodeStartingAtTheFunctionIsEnteredThere) {
  const CopyEdges e = edges({{0x1000, 0x1003}});
  EXPECT_EQ(e.entry, 0x1000u);
  EXPECT_EQ(e.reentries, std::vector<uint64_t>{});
  EXPECT_EQ(e.exits, (std::vector<uint64_t>{0x1003}));
}

TEST(InlinedCopy, AReturnFromInsideCannotBeDelimited) {
  const CopyEdges e = edges({{0x100b, 0x1011}});
  EXPECT_EQ(e.why_not, "it returns from inside its code");
}

TEST(InlinedCopy, AnIndirectJumpFromInsideCannotBeDelimited) {
  const uint8_t code[] = {0x48, 0x89, 0xf8, 0xff, 0xe0, 0xc3};  // mov; jmp *%rax; ret
  const CopyEdges e = edges({{0x1003, 0x1005}}, code, sizeof code);
  EXPECT_EQ(e.why_not, "it jumps through a register or memory from inside its code");
}

// Its own loop's back edge comes to its entry point (the jne at 0x1009 is the copy's): entry_looped;
// the caller's back edge (the jne outside) is a way in, not the copy's loop.
TEST(InlinedCopy, ItsOwnLoopBackToTheEntryIsSaid) {
  EXPECT_TRUE(edges({{0x1003, 0x100b}}).entry_looped);
  EXPECT_FALSE(edges({{0x1003, 0x1009}}).entry_looped);
}

// A copy in two pieces with the caller's jne between them: [0x1003, 0x1009) and [0x100b, 0x1010).
// Entered at 0x1003; the loop's back edge comes back to its entry point (a new call), and the
// jne's fall-through comes back into its second piece (a re-entry: the same call).
TEST(InlinedCopy, ControlComingBackElsewhereThanTheEntryIsAReentry) {
  const CopyEdges e = edges({{0x1003, 0x1009}, {0x100b, 0x1010}});
  EXPECT_EQ(e.why_not, "");
  EXPECT_EQ(e.entry, 0x1003u);
  EXPECT_EQ(e.reentries, (std::vector<uint64_t>{0x100b}));
  EXPECT_EQ(e.exits, (std::vector<uint64_t>{0x1009, 0x1010}));
}

// gcc puts DW_AT_entry_pc on an instruction of the caller's just before the copy's code (an empty
// range there): the fall-through from it into the copy is the way in, not a re-entry.
TEST(InlinedCopy, AnEntryPointJustBeforeTheCodeLeadsIntoIt) {
  const uint8_t code[] = {0x48, 0x89, 0xf8, 0x48, 0x01, 0xc0, 0x48, 0xff, 0xc0, 0xc3};  // mov; add; inc; ret
  const CopyEdges e = copy_edges({{0x1003, 0x1009}}, 0x1000, {CodeBlock{0x1000, code, sizeof code}});
  EXPECT_EQ(e.why_not, "");
  EXPECT_EQ(e.entry, 0x1000u);
  EXPECT_EQ(e.reentries, std::vector<uint64_t>{});
  EXPECT_EQ(e.exits, (std::vector<uint64_t>{0x1009}));
}

TEST(InlinedCopy, AnEntryPointInsideAnInstructionIsRefused) {
  const CopyEdges e = copy_edges({{0x1003, 0x1009}}, 0x1004, {CodeBlock{0x1000, kCode, sizeof kCode}});
  EXPECT_EQ(e.why_not, "its entry point 0x1004 is not an instruction of the code holding it");
}

}  // namespace
}  // namespace roofprof::symbolizer
