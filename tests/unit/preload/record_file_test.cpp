// The reader against files laid out the way the agent writes them (record_format.h).
#include "preload/record_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <vector>

#include "common/error.hpp"

namespace roofprof::preload {
namespace {

namespace fs = std::filesystem;

// A record file written in place, as the agent would: header, table, region states, ring.
class FakeAgentFile {
 public:
  FakeAgentFile(uint64_t capacity, uint32_t n_events, uint32_t callers = 0) {
    path_ = (fs::temp_directory_path() / ("roofprof-rf-" + std::to_string(::getpid()) + "-" +
                                          std::to_string(counter()++) + RP_FILE_SUFFIX)).string();
    bytes_ = RP_HEADER_BYTES + RP_TABLE_BYTES + RP_STATES_BYTES +
             capacity * RP_RECORD_BYTES(n_events, RP_SCOPE_THREAD, callers);
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::ftruncate(fd, off_t(bytes_)), 0);
    map_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    h_ = static_cast<rp_file_header*>(map_);
    std::memcpy(h_->magic, RP_FILE_MAGIC, 8);
    h_->version = RP_FILE_VERSION;
    h_->record_bytes = uint32_t(RP_RECORD_BYTES(n_events, RP_SCOPE_THREAD, callers));
    h_->callers = callers;
    h_->table_offset = RP_HEADER_BYTES;
    h_->table_bytes = RP_TABLE_BYTES;
    h_->states_offset = RP_HEADER_BYTES + RP_TABLE_BYTES;
    h_->ring_offset = h_->states_offset + RP_STATES_BYTES;
    h_->capacity = capacity;
    h_->pid = 4242;
    h_->ppid = 1;
    h_->scope = RP_SCOPE_THREAD;
    h_->n_events = n_events;
    h_->start_ns = 1000;
  }
  ~FakeAgentFile() {
    ::munmap(map_, bytes_);
    ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  rp_file_header& header() { return *h_; }
  rp_record& slot(uint64_t pos) {
    char* ring = static_cast<char*>(map_) + h_->ring_offset;
    return *reinterpret_cast<rp_record*>(ring + (pos % h_->capacity) * h_->record_bytes);
  }
  // Reserves the next position; publishes it unless `publish` is false (a torn record).
  uint64_t put(uint8_t kind, uint32_t region, int tid, uint64_t sp, int64_t t, std::vector<uint64_t> counts,
               bool publish = true) {
    uint64_t pos = h_->head++;
    rp_record& s = slot(pos);
    EXPECT_LT(pos - h_->tail, h_->capacity) << "slot not free for position " << pos;
    s.kind = kind;
    s.reason = RP_REASON_RETURN;
    s.flags = counts.empty() ? 0 : RP_REC_COUNTS;
    s.region = region;
    s.pid = h_->pid;
    s.tid = tid;
    s.sp = sp;
    s.time_ns = t;
    for (size_t i = 0; i < counts.size(); ++i) s.counts[i] = counts[i];
    if (publish) this->publish(pos);
    return pos;
  }
  void publish(uint64_t pos) { slot(pos).seq = pos + 1; }
  void append_table(const std::string& text) {
    std::memcpy(static_cast<char*>(map_) + h_->table_offset + h_->table_len, text.data(), text.size());
    h_->table_len += text.size();
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string path_;
  size_t bytes_ = 0;
  void* map_ = nullptr;
  rp_file_header* h_ = nullptr;
};

std::vector<Record> drain_all(RecordFile& f, bool final = false) {
  std::vector<Record> out;
  f.drain([&](const Record& r) { out.push_back(r); }, final);
  return out;
}

// --group-by caller: the return address rides in the slot after the file's events, which
// makes each slot 8 bytes longer; a file without it has none.
TEST(RecordFile, EntryRecordsCarryTheReturnAddressWhenAsked) {
  FakeAgentFile with(16, 2, 1), without(16, 2);
  EXPECT_EQ(with.header().record_bytes, without.header().record_bytes + 8);
  uint64_t pos = with.put(RP_ENTER, 0, 7, 0x7ffc0000, 10, {1, 2}, false);
  with.slot(pos).counts[2] = 0x401234;  // after the 2 events
  with.publish(pos);
  without.put(RP_ENTER, 0, 7, 0x7ffc0000, 10, {1, 2});
  std::vector<uint64_t> rets;
  for (FakeAgentFile* f : {&with, &without}) {
    auto file = RecordFile::open(f->path());
    file->drain([&](const Record& r) { rets.push_back(r.ret); });
  }
  EXPECT_EQ(rets, (std::vector<uint64_t>{0x401234, 0}));
}

TEST(RecordFile, HeaderAndTable) {
  FakeAgentFile fake(16, 2);
  fake.append_table("M 1 /bin/app\n");
  auto f = RecordFile::open(fake.path());
  EXPECT_EQ(f->pid(), 4242);
  EXPECT_EQ(f->ppid(), 1);
  EXPECT_EQ(f->n_events(), 2u);
  EXPECT_EQ(f->scope(), regions::Scope::Thread);
  EXPECT_EQ(f->start_ns(), 1000);
  EXPECT_EQ(f->table(), "M 1 /bin/app\n");
  EXPECT_FALSE(f->exited());
}

TEST(RecordFile, DrainDeliversPublishedRecordsInOrderAndFreesSlots) {
  FakeAgentFile fake(4, 2);
  auto f = RecordFile::open(fake.path());
  fake.put(RP_ENTER, 3, 11, 0x7000, 100, {5, 6});
  fake.put(RP_STACK_AT, 0, 11, 0x7008, 250, {9, 6});
  auto rs = drain_all(*f);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].kind, RecordKind::Enter);
  EXPECT_EQ(rs[0].region, 3u);
  EXPECT_EQ(rs[0].pid, 4242);
  EXPECT_EQ(rs[0].tid, 11);
  EXPECT_EQ(rs[0].sp, 0x7000u);
  EXPECT_EQ(rs[0].time_ns, 100);
  EXPECT_TRUE(rs[0].has_counts);
  EXPECT_EQ(rs[0].counts[0], 5u);
  EXPECT_EQ(rs[0].counts[1], 6u);
  EXPECT_EQ(rs[1].kind, RecordKind::StackAt);
  EXPECT_EQ(rs[1].reason, regions::CloseReason::Return);
  // Consumed slots are free for the next lap: the reader says how far it has read, and
  // writes nothing into the slots.
  EXPECT_EQ(fake.header().tail, 2u);
  EXPECT_EQ(fake.slot(0).seq, 1u);
  EXPECT_EQ(fake.slot(1).seq, 2u);
  EXPECT_TRUE(drain_all(*f).empty());
}

TEST(RecordFile, WrapsAroundTheRing) {
  FakeAgentFile fake(4, 0);
  auto f = RecordFile::open(fake.path());
  int64_t t = 0;
  for (int lap = 0; lap < 5; ++lap) {
    for (int i = 0; i < 3; ++i) fake.put(RP_ENTER, uint32_t(i), 1, 0, ++t, {});
    auto rs = drain_all(*f);
    ASSERT_EQ(rs.size(), 3u) << "lap " << lap;
    EXPECT_EQ(rs[2].time_ns, t);
    EXPECT_FALSE(rs[2].has_counts);
  }
  EXPECT_EQ(fake.header().tail, 15u);
}

// A long drain gives slots back while it replays (every 256 records), not only at its end: the
// agent waiting for a slot of a full ring goes on while roofprof is still busy.
TEST(RecordFile, ALongDrainGivesSlotsBackAsItGoes) {
  FakeAgentFile fake(1024, 0);
  auto f = RecordFile::open(fake.path());
  for (int i = 0; i < 1000; ++i) fake.put(RP_ENTER, 1, 1, 0, i, {});
  uint64_t tail_at_900 = 0;
  size_t seen = 0;
  f->drain([&](const Record&) {
    if (++seen == 900) tail_at_900 = fake.header().tail;
  }, false);
  EXPECT_EQ(seen, 1000u);
  EXPECT_EQ(tail_at_900, 768u);
  EXPECT_EQ(fake.header().tail, 1000u);
}

TEST(RecordFile, StopsAtAnUnpublishedRecordUntilFinal) {
  FakeAgentFile fake(8, 0);
  auto f = RecordFile::open(fake.path());
  fake.put(RP_ENTER, 1, 1, 0x100, 1, {});
  fake.put(RP_ENTER, 2, 2, 0x200, 2, {}, /*publish=*/false);  // a thread killed mid-write
  fake.put(RP_STACK_AT, 0, 1, 0x108, 3, {});
  EXPECT_EQ(drain_all(*f).size(), 1u);  // waits for record 1
  EXPECT_EQ(f->torn(), 0u);
  auto rest = drain_all(*f, /*final=*/true);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].kind, RecordKind::StackAt);
  EXPECT_EQ(f->torn(), 1u);
}

// Every close reason, written as the agent writes its code, reads back as itself.
TEST(RecordFile, EveryCloseReasonRoundTripsThroughARecord) {
  FakeAgentFile fake(16, 0);
  auto f = RecordFile::open(fake.path());
  for (int code = 0; code < RP_REASONS; ++code) {
    uint64_t pos = fake.put(RP_STACK_AT, 0, 11, 0x7000, 100, {}, /*publish=*/false);
    fake.slot(pos).reason = uint8_t(code);
    fake.publish(pos);  // with its reason
  }
  auto rs = drain_all(*f);
  ASSERT_EQ(rs.size(), size_t(RP_REASONS));
  for (int code = 0; code < RP_REASONS; ++code) {
    EXPECT_EQ(regions::code_of(rs[code].reason), code);
    EXPECT_EQ(rs[code].reason, regions::close_reason(uint64_t(code)));
  }
  EXPECT_EQ(rs[RP_REASON_LONGJMP].reason, regions::CloseReason::Longjmp);
  EXPECT_EQ(rs[RP_REASON_CRASH].reason, regions::CloseReason::Crash);
}

TEST(RecordFile, AnUnknownReasonCodeReadsAsUnwound) {
  FakeAgentFile fake(4, 0);
  auto f = RecordFile::open(fake.path());
  uint64_t pos = fake.put(RP_STACK_AT, 0, 11, 0x7000, 100, {}, /*publish=*/false);
  fake.slot(pos).reason = 200;
  fake.publish(pos);
  auto rs = drain_all(*f);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].reason, regions::CloseReason::Unwound);
}

TEST(RecordFile, RejectsOtherFiles) {
  FakeAgentFile fake(16, 0);
  fake.header().version = 99;
  EXPECT_THROW(RecordFile::open(fake.path()), UserError);
  FakeAgentFile wide(16, 2);
  wide.header().record_bytes = sizeof(rp_record);  // slots of every event, for a file of two
  EXPECT_THROW(RecordFile::open(wide.path()), UserError);
  EXPECT_THROW(RecordFile::open("/nonexistent/x.rfa"), UserError);
  EXPECT_THROW(RecordFile::open("/etc/hostname"), UserError);
}

}  // namespace
}  // namespace roofprof::preload
