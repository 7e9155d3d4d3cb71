#include "survey/stack_unwind.hpp"

#include <elf.h>
#include <libunwind.h>
#include <unistd.h>

#include <cstring>

// libunwind's DWARF table search (libunwind-x86_64, the generic remote unwinder): exported, not
// declared in its public headers. _UPT_find_proc_info uses it the same way.
extern "C" int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t, unw_word_t, unw_dyn_info_t*, unw_proc_info_t*,
                                                  int, void*);

namespace roofprof::survey {

std::shared_ptr<const ModuleImage> ModuleImage::open(const std::string& path) {
  std::shared_ptr<ModuleImage> img(new ModuleImage(path));
  const std::span<const uint8_t> bytes = img->file_.bytes();
  if (bytes.size() < sizeof(Elf64_Ehdr)) return nullptr;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff + uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr) > bytes.size())
    return nullptr;
  img->entry_ = eh.e_entry;
  bool first = true;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_GNU_EH_FRAME) img->eh_frame_hdr_ = ph.p_vaddr;
    if (ph.p_type != PT_LOAD) continue;
    img->loads_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz});
    img->low_ = first ? ph.p_vaddr : std::min(img->low_, ph.p_vaddr);
    img->high_ = first ? ph.p_vaddr + ph.p_memsz : std::max(img->high_, ph.p_vaddr + ph.p_memsz);
    first = false;
  }
  return img;
}

std::optional<uint64_t> ModuleImage::read_u64(uint64_t vaddr) const {
  for (const Load& l : loads_) {
    if (vaddr < l.vaddr || vaddr + 8 > l.vaddr + l.filesz) continue;
    const uint64_t off = vaddr - l.vaddr + l.offset;
    if (off + 8 > file_.bytes().size()) return std::nullopt;
    uint64_t v;
    std::memcpy(&v, file_.bytes().data() + off, 8);
    return v;
  }
  return std::nullopt;
}

std::optional<uint64_t> ModuleImage::vaddr_of_offset(uint64_t offset) const {
  for (const Load& l : loads_)
    if (offset >= l.offset && offset < l.offset + l.filesz) return offset - l.offset + l.vaddr;
  return std::nullopt;
}

const PlacedModule* SampleMemory::module_at(uint64_t addr) const {
  for (const PlacedModule& m : modules_)
    if (addr >= m.image->low() + m.bias && addr < m.image->high() + m.bias) return &m;
  return nullptr;
}

std::optional<uint64_t> SampleMemory::read_u64(uint64_t addr) const {
  if (addr >= sp_ && addr - sp_ <= stack_.size() && stack_.size() - (addr - sp_) >= 8) {
    uint64_t v;
    std::memcpy(&v, stack_.data() + (addr - sp_), 8);
    return v;
  }
  const PlacedModule* m = module_at(addr);
  if (!m) return std::nullopt;
  return m->image->read_u64(addr - m->bias);
}

namespace {

struct Context {
  const SampleMemory* mem;
  const UserRegs* regs;
};

// The module's .eh_frame_hdr binary-search table as libunwind's remote table: only the layout
// every GNU linker writes (version 1, fde_count udata4, table datarel sdata4).
int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t* pi, int need_unwind_info, void* arg) {
  const auto* ctx = static_cast<const Context*>(arg);
  const PlacedModule* m = ctx->mem->module_at(ip);
  if (!m || !m->image->eh_frame_hdr() || ip < m->exec_start || ip >= m->exec_end) return -UNW_ENOINFO;
  const uint64_t hdr = m->image->eh_frame_hdr() + m->bias;
  auto head = ctx->mem->read_u64(hdr);
  auto count = ctx->mem->read_u64(hdr + 8);
  if (!head || !count) return -UNW_ENOINFO;
  const uint8_t version = uint8_t(*head), count_enc = uint8_t(*head >> 16), table_enc = uint8_t(*head >> 24);
  if (version != 1 || count_enc != 0x03 || table_enc != 0x3b) return -UNW_ENOINFO;
  unw_dyn_info_t di{};
  di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
  di.start_ip = m->exec_start;
  di.end_ip = m->exec_end;
  di.u.rti.segbase = hdr;
  di.u.rti.table_data = hdr + 12;
  di.u.rti.table_len = (uint32_t(*count) * 8ull) / sizeof(unw_word_t);
  return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

// The table search gives UNW_INFO_FORMAT_TABLE info, which libunwind frees itself.
void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}

int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) { return -UNW_ENOINFO; }

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void* arg) {
  if (write) return -UNW_EINVAL;
  auto v = static_cast<const Context*>(arg)->mem->read_u64(addr);
  if (!v) return -UNW_EINVAL;
  *val = *v;
  return 0;
}

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* val, int write, void* arg) {
  if (write || reg < 0 || reg > UNW_X86_64_RIP) return -UNW_EBADREG;
  *val = (*static_cast<const Context*>(arg)->regs)[size_t(reg)];
  return 0;
}

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) { return -UNW_EBADREG; }
int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }
int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) { return -UNW_ENOINFO; }

}  // namespace

StackUnwinder::StackUnwinder() {
  unw_accessors_t a{};
  a.find_proc_info = find_proc_info;
  a.put_unwind_info = put_unwind_info;
  a.get_dyn_info_list_addr = get_dyn_info_list_addr;
  a.access_mem = access_mem;
  a.access_reg = access_reg;
  a.access_fpreg = access_fpreg;
  a.resume = resume;
  a.get_proc_name = get_proc_name;
  space_ = unw_create_addr_space(&a, 0);
  // No cache: one space serves every process of the run, whose modules lie at different places.
  if (space_) unw_set_caching_policy(static_cast<unw_addr_space_t>(space_), UNW_CACHE_NONE);
}

StackUnwinder::~StackUnwinder() {
  if (space_) unw_destroy_addr_space(static_cast<unw_addr_space_t>(space_));
}

const std::vector<PlacedModule>& StackUnwinder::modules_of(const std::vector<Mapping>& maps, uint32_t pid) {
  PidModules& pm = pids_[pid];
  if (pm.maps_seen == maps.size()) return pm.modules;
  pm.maps_seen = maps.size();
  pm.modules.clear();
  // The process's own latest mappings first, then any other process's (a forked child's parent).
  for (int own = 1; own >= 0; --own)
    for (auto it = maps.rbegin(); it != maps.rend(); ++it) {
      if ((it->pid == pid) != bool(own)) continue;
      auto& img = images_[it->path];
      if (!img) img = ModuleImage::open(it->path);
      if (!img) continue;
      auto vaddr = img->vaddr_of_offset(it->pgoff);
      if (!vaddr) continue;
      pm.modules.push_back({img, it->start - *vaddr, it->start, it->start + it->len});
    }
  return pm.modules;
}

std::optional<std::vector<uint64_t>> StackUnwinder::callers(const std::vector<Mapping>& maps, uint32_t pid,
                                                            const UserRegs& regs, std::span<const uint8_t> stack,
                                                            int depth) {
  if (!space_) return std::nullopt;
  SampleMemory mem(regs[UNW_X86_64_RSP], stack, modules_of(maps, pid));
  Context ctx{&mem, &regs};
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, static_cast<unw_addr_space_t>(space_), &ctx) < 0) return std::nullopt;
  std::vector<uint64_t> out;
  auto as = static_cast<unw_addr_space_t>(space_);
  while (int(out.size()) < depth) {
    // Without an FDE libunwind would guess (from %rbp): the chain stops there, cleanly only in
    // a module's entry code (_start, ld.so's _dl_start_user).
    unw_word_t ip = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0) return std::nullopt;
    const unw_word_t at = out.empty() ? ip : ip - 1;  // a caller: its call instruction
    unw_proc_info_t pi{};
    if (find_proc_info(as, at, &pi, 0, &ctx) < 0) {
      const PlacedModule* m = mem.module_at(at);
      const bool entry = m && at - m->bias >= m->image->entry() && at - m->bias < m->image->entry() + 256;
      if (entry && !out.empty()) return out;
      return std::nullopt;
    }
    const int r = unw_step(&cursor);
    if (r == 0) return out;  // the outermost frame (_start, clone: return address undefined)
    if (r < 0) return std::nullopt;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0) return std::nullopt;
    if (ip == 0) return out;
    out.push_back(ip);
  }
  return out;
}

}  // namespace roofprof::survey
