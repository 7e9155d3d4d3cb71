/* GOT redirection. For every loaded module (dl_iterate_phdr), every R_X86_64_JUMP_SLOT
 * (calls through the PLT, lazy or immediate binding) and R_X86_64_GLOB_DAT (calls through the
 * GOT: -fno-plt code, and -z now PLTs that go through .plt.got) relocation whose symbol
 * matches a region pattern gets its GOT slot pointed at the trampoline stub of that region
 * and of the function the dynamic linker binds (the real target). RELRO pages are made
 * writable for the write and read-only again. Runs at start and after every dlopen, under
 * rp.lock; modules whose matching slots are all hooked are not looked at again. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/agent/agent.h"
#include "preload/probe_rules.h"
#include "preload/sites_format.h"

struct module {
  uintptr_t base;
  const char *name;
  const ElfW(Phdr) * phdr;
  int phnum;
};

struct dyn_info {
  const ElfW(Sym) * symtab;
  const char *strtab;
  const ElfW(Rela) * jmprel;
  size_t jmprel_bytes;
  const ElfW(Rela) * rela;
  size_t rela_bytes;
  const ElfW(Half) * versym;
  const ElfW(Verneed) * verneed;
  size_t verneed_count;
};

#define MAX_SCAN 1024
static int collect(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct module *mods = data;
  int *n = (int *)(mods + MAX_SCAN);
  if (*n >= MAX_SCAN) return 0;
  mods[*n] = (struct module){info->dlpi_addr, info->dlpi_name, info->dlpi_phdr, info->dlpi_phnum};
  (*n)++;
  return 0;
}

static uintptr_t fix(uintptr_t base, uintptr_t p) { return p < base ? p + base : p; }

static int read_dynamic(const struct module *m, struct dyn_info *d) {
  memset(d, 0, sizeof *d);
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < m->phnum; ++i)
    if (m->phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(m->base + m->phdr[i].p_vaddr);
  if (!dyn) return 0; /* a static executable has none */
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    uintptr_t v = dyn->d_un.d_ptr;
    switch (dyn->d_tag) {
      case DT_SYMTAB: d->symtab = (const ElfW(Sym) *)fix(m->base, v); break;
      case DT_STRTAB: d->strtab = (const char *)fix(m->base, v); break;
      case DT_JMPREL: d->jmprel = (const ElfW(Rela) *)fix(m->base, v); break;
      case DT_PLTRELSZ: d->jmprel_bytes = dyn->d_un.d_val; break;
      case DT_RELA: d->rela = (const ElfW(Rela) *)fix(m->base, v); break;
      case DT_RELASZ: d->rela_bytes = dyn->d_un.d_val; break;
      case DT_VERSYM: d->versym = (const ElfW(Half) *)fix(m->base, v); break;
      case DT_VERNEED: d->verneed = (const ElfW(Verneed) *)fix(m->base, v); break;
      case DT_VERNEEDNUM: d->verneed_count = dyn->d_un.d_val; break;
      default: break;
    }
  }
  return d->symtab && d->strtab;
}

static int in_module(const struct module *m, uintptr_t a) {
  for (int i = 0; i < m->phnum; ++i) {
    const ElfW(Phdr) *p = &m->phdr[i];
    if (p->p_type == PT_LOAD && a >= m->base + p->p_vaddr && a < m->base + p->p_vaddr + p->p_memsz) return 1;
  }
  return 0;
}

static int is_stub(uintptr_t a) { return a >= (uintptr_t)rp_stubs && a < (uintptr_t)rp_stubs_end; }

/* The version an undefined symbol asks for ("GLIBC_2.2.5"), or NULL. */
static const char *needed_version(const struct dyn_info *d, size_t symidx) {
  if (!d->versym || !d->verneed) return NULL;
  ElfW(Half) want = d->versym[symidx] & 0x7fff;
  if (want < 2) return NULL;
  const ElfW(Verneed) *vn = d->verneed;
  for (size_t i = 0; i < d->verneed_count; ++i) {
    const ElfW(Vernaux) *aux = (const ElfW(Vernaux) *)((const char *)vn + vn->vn_aux);
    for (unsigned j = 0; j < vn->vn_cnt; ++j) {
      if (aux->vna_other == want) return d->strtab + aux->vna_name;
      aux = (const ElfW(Vernaux) *)((const char *)aux + aux->vna_next);
    }
    if (!vn->vn_next) break;
    vn = (const ElfW(Verneed) *)((const char *)vn + vn->vn_next);
  }
  return NULL;
}

/* Whether `t` is a PLT entry (`[endbr64] [bnd] jmp *slot(%rip)`). A non-PIE executable that
 * takes a function's address makes its PLT entry the function's canonical address: the
 * dynamic linker binds other modules' slots to it and dlsym returns it. That entry jumps through
 * the executable's own GOT slot, which a hook may have redirected to a stub: a stub whose target
 * is such an entry calls itself for ever (python3's math.cbrt, math.cos). */
static int is_plt_entry(const void *t) {
  const unsigned char *p = t;
  if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) p += 4; /* endbr64 */
  if (p[0] == 0xf2) p += 1;                                                /* bnd */
  return p[0] == 0xff && p[1] == 0x25;
}

/* The definition behind a canonical PLT entry: the first one after the executable and this
 * agent in the lookup order (the executable only refers to it). */
static void *definition_behind_plt(void *t, const char *name, const char *version) {
  if (!t || !is_plt_entry(t)) return t;
  void *next = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
  if (!next) next = dlsym(RTLD_NEXT, name);
  return next ? next : t;
}

/* What the dynamic linker binds (or bound) this slot to. */
static void *real_target(const struct module *m, const char *path, const struct dyn_info *d, size_t symidx,
                         const char *name, uintptr_t current) {
  const char *version = d->symtab[symidx].st_shndx == SHN_UNDEF ? needed_version(d, symidx) : NULL;
  /* Bound already (immediate binding, GLOB_DAT, or a lazy slot called once): the slot says. A
   * slot still pointing into its own module is an unresolved lazy PLT entry (or a call to the
   * module's own export, which the lookups below find again). */
  if (current && !in_module(m, current)) return definition_behind_plt((void *)current, name, version);
  void *t = version ? dlvsym(RTLD_DEFAULT, name, version) : NULL;
  if (!t) t = dlsym(RTLD_DEFAULT, name);
  if (!t && path && *path) { /* a module loaded RTLD_LOCAL: its own lookup scope */
    void *(*real_dlopen)(const char *, int) = (void *(*)(const char *, int))rp_real("dlopen");
    void *h = real_dlopen ? real_dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (h) {
      t = dlsym(h, name);
      dlclose(h);
    }
  }
  return definition_behind_plt(t, name, version);
}

/* The page protection of `a` after relocation: RELRO pages are read-only (glibc mprotects the
 * whole pages of PT_GNU_RELRO), others as their PT_LOAD says. */
static int protection_of(const struct module *m, uintptr_t a) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < m->phnum; ++i) {
    const ElfW(Phdr) *p = &m->phdr[i];
    if (p->p_type != PT_GNU_RELRO) continue;
    uintptr_t start = (m->base + p->p_vaddr) & ~(page - 1);
    uintptr_t end = (m->base + p->p_vaddr + p->p_memsz) & ~(page - 1);
    if (a >= start && a < end) return PROT_READ;
  }
  for (int i = 0; i < m->phnum; ++i) {
    const ElfW(Phdr) *p = &m->phdr[i];
    if (p->p_type == PT_LOAD && a >= m->base + p->p_vaddr && a < m->base + p->p_vaddr + p->p_memsz)
      return (p->p_flags & PF_R ? PROT_READ : 0) | (p->p_flags & PF_W ? PROT_WRITE : 0) |
             (p->p_flags & PF_X ? PROT_EXEC : 0);
  }
  return PROT_READ | PROT_WRITE;
}

static int write_slot(const struct module *m, uint64_t *slot, uintptr_t value) {
  int prot = protection_of(m, (uintptr_t)slot);
  if (prot & PROT_WRITE) {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return 0;
  }
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  void *p = (void *)((uintptr_t)slot & ~(page - 1));
  if (mprotect(p, page, PROT_READ | PROT_WRITE) != 0) return -1;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  mprotect(p, page, prot);
  return 0;
}

static uint32_t region_id(uint32_t spec, const char *symbol) {
  for (uint32_t i = 0; i < rp.n_regions; ++i)
    if (rp.regions[i].spec == spec && strcmp(rp.regions[i].symbol, symbol) == 0) return i;
  if (rp.n_regions >= RP_MAX_REGIONS) return UINT32_MAX;
  char *copy = strdup(symbol);
  if (!copy) return UINT32_MAX;
  uint32_t id = rp.n_regions;
  rp.regions[id] = (struct rp_region_name){spec, copy};
  rp.n_regions++;
  rp_table_line(RP_TABLE_REGION_FORMAT, id, spec, symbol);
  return id;
}

static int64_t hook_index(uint32_t region, void *target) {
  for (uint32_t i = 0; i < rp.n_hooks; ++i)
    if (rp.hooks[i].region == region && rp.hooks[i].target == target) return i;
  if (rp.n_hooks >= RP_MAX_HOOKS) return -1;
  uint32_t i = rp.n_hooks;
  rp.hooks[i].region = region;
  rp.hooks[i].target = target;
  __atomic_store_n(&rp.n_hooks, i + 1, __ATOMIC_RELEASE);
  return i;
}

/* Combined mode (ROOFPROF_AGENT_SITES=1): the functions roofprof's tracer leaves to the agent,
 * in DIR/PID.sites (preload/sites_format.h). The tracer rewrites
 * the file (atomically, by rename) while the program is stopped at the dynamic linker's
 * notification of new modules, so it is complete whenever a scan reads it. */
static uintptr_t sites[RP_SITES_MAX_ADDRESSES];
static size_t n_sites;
static char ifunc_names[RP_SITES_MAX_IFUNCS][RP_SITES_LINE_MAX];
static size_t n_ifunc_names;

static int compare_addr(const void *a, const void *b) {
  uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

static void read_sites(void) {
  n_sites = 0;
  n_ifunc_names = 0;
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/%d" RP_SITES_SUFFIX, rp.dir, (int)getpid());
  FILE *f = fopen(path, "re");
  if (!f) return;
  char line[RP_SITES_LINE_MAX];
  while (n_sites < RP_SITES_MAX_ADDRESSES && fgets(line, sizeof line, f)) {
    if (line[0] != RP_SITES_IFUNC_MARK) {
      sites[n_sites++] = (uintptr_t)strtoull(line, NULL, 16);
    } else if (n_ifunc_names < RP_SITES_MAX_IFUNCS) {
      line[strcspn(line, "\n")] = 0;
      snprintf(ifunc_names[n_ifunc_names++], sizeof ifunc_names[0], "%s", line + 1);
    }
  }
  fclose(f);
  qsort(sites, n_sites, sizeof sites[0], compare_addr);
}

static int site_allowed(const void *target, const char *name) {
  if (!rp.sites_only) return 1;
  uintptr_t t = (uintptr_t)target;
  if (bsearch(&t, sites, n_sites, sizeof sites[0], compare_addr)) return 1;
  for (size_t i = 0; i < n_ifunc_names; ++i)
    if (strcmp(ifunc_names[i], name) == 0) return 1;
  return 0;
}

/* Said once per name: the agent leaves it alone (preload/probe_rules.h). */
static void refuse_returns_twice(const char *name) {
  static char said[16][64];
  static int n_said;
  for (int i = 0; i < n_said; ++i)
    if (strncmp(said[i], name, sizeof said[i] - 1) == 0) return;
  if (n_said < 16) snprintf(said[n_said++], sizeof said[0], "%s", name);
  rp_table_line(RP_TABLE_WARNING " %s keeps its return address to return through it again (setjmp, vfork, getcontext): the "
                "in-process agent cannot measure it; breakpoints can (run without --no-ptrace)", name);
}

/* Returns 1 when every matching slot of the module is hooked. */
static int hook_relocations(const struct module *m, const char *path, const struct dyn_info *d,
                            const ElfW(Rela) * rel, size_t bytes, unsigned char *announced) {
  int complete = 1;
  size_t n = rel ? bytes / sizeof *rel : 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    size_t symidx = ELF64_R_SYM(rel[i].r_info);
    const ElfW(Sym) *sym = &d->symtab[symidx];
    unsigned st = ELF64_ST_TYPE(sym->st_info);
    if (!sym->st_name || st == STT_OBJECT || st == STT_TLS || st == STT_SECTION) continue;
    const char *name = d->strtab + sym->st_name;
    int spec = rp_match(name);
    if (spec < 0) continue;
    if (rp_keeps_return_address(name)) {
      refuse_returns_twice(name);
      continue;
    }
    uint64_t *slot = (uint64_t *)(m->base + rel[i].r_offset);
    uintptr_t current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (is_stub(current)) continue;
    void *target = real_target(m, path, d, symidx, name, current);
    if (!target) {
      if (type == R_X86_64_GLOB_DAT && current == 0) continue; /* an undefined weak function */
      complete = 0;
      continue;
    }
    if (!site_allowed(target, name)) { /* the tracer's breakpoint measures it */
      RP_TRACE("%s in %s: left to the tracer (not in the sites file)", name, path);
      continue;
    }
    RP_TRACE("%s in %s: matches region spec %d, hooked", name, path, spec);
    uint32_t region = region_id((uint32_t)spec, name);
    int64_t hook = region == UINT32_MAX ? -1 : hook_index(region, target);
    if (hook < 0) {
      rp_table_line(RP_TABLE_WARNING " too many hooked regions: %s in %s not hooked", name, path);
      continue;
    }
    if (write_slot(m, slot, (uintptr_t)rp_stubs + (uintptr_t)hook * RP_STUB_BYTES) != 0) {
      rp_table_line(RP_TABLE_WARNING " cannot write the GOT of %s for %s (errno %d)", path, name, errno);
      continue;
    }
    if (region < RP_MAX_REGIONS && !(announced[region / 8] & (1u << (region % 8)))) {
      announced[region / 8] |= (unsigned char)(1u << (region % 8));
      rp_table_line(RP_TABLE_HOOKED_FORMAT, region, path);
    }
  }
  return complete;
}

void *rp_hooks_stub_for(const char *name, void *target) {
  if (is_stub((uintptr_t)target)) return target;
  int spec = rp_match(name);
  if (spec < 0 || rp_keeps_return_address(name)) return target;
  /* Never wait: the scanning thread may need the loader's lock, which a library constructor
   * calling dlsym holds. The call through this pointer is then not seen (rare: a dlsym
   * racing with a scan). */
  if (pthread_mutex_trylock(&rp.lock) != 0) return target;
  void *out = target;
  if (site_allowed(target, name)) {
    uint32_t region = region_id((uint32_t)spec, name);
    int64_t hook = region == UINT32_MAX ? -1 : hook_index(region, target);
    if (hook >= 0) out = (void *)((uintptr_t)rp_stubs + (uintptr_t)hook * RP_STUB_BYTES);
  }
  pthread_mutex_unlock(&rp.lock);
  return out;
}

static struct rp_module_seen *seen(const struct module *m, const void *dynamic) {
  for (int i = 0; i < rp.n_modules; ++i)
    if (rp.modules[i].base == m->base && rp.modules[i].dynamic == dynamic) return &rp.modules[i];
  if (rp.n_modules >= RP_MAX_MODULES) return NULL;
  struct rp_module_seen *s = &rp.modules[rp.n_modules++];
  *s = (struct rp_module_seen){.base = m->base, .dynamic = dynamic};
  return s;
}

static void scan_module(const struct module *m, int is_main, int hook) {
  if (m->base == rp.self_base && !is_main) return; /* the agent's own calls are never hooked */
  const void *dynamic = NULL;
  for (int i = 0; i < m->phnum; ++i)
    if (m->phdr[i].p_type == PT_DYNAMIC) dynamic = (const void *)(m->base + m->phdr[i].p_vaddr);
  if (!dynamic) return;
  if (!is_main && (!m->name || m->name[0] == '\0' || strstr(m->name, "linux-vdso"))) return;
  struct rp_module_seen *s = seen(m, dynamic);
  if (s) s->present = 1;
  if (s && (hook ? s->done : s->announced)) return;
  char path[PATH_MAX];
  const char *name = is_main ? "/proc/self/exe" : m->name;
  if (!realpath(name, path)) {
    strncpy(path, name, sizeof path - 1);
    path[sizeof path - 1] = '\0';
  }
  if (s && !s->announced) {
    rp_table_line(RP_TABLE_MODULE_FORMAT, is_main, (unsigned long)m->base, path);
    s->announced = 1;
  }
  if (!hook) return;
  struct dyn_info d;
  if (!read_dynamic(m, &d)) return;
  unsigned char announced[RP_MAX_REGIONS / 8];
  memset(announced, 0, sizeof announced);
  int complete = hook_relocations(m, path, &d, d.jmprel, d.jmprel_bytes, announced);
  complete &= hook_relocations(m, path, &d, d.rela, d.rela_bytes, announced);
  if (s) s->done = complete;
}

static void scan_locked(void) {
  static struct module mods[MAX_SCAN + 1]; /* + the count; only used under rp.lock */
  int *n = (int *)(mods + MAX_SCAN);
  *n = 0;
  dl_iterate_phdr(collect, mods); /* no lookups inside the callback: it holds the loader's lock */
  if (rp.sites_only) read_sites();
  for (int i = 0; i < rp.n_modules; ++i) rp.modules[i].present = 0;
  /* Every module is announced before any slot is hooked: a hooked call's region is then
   * always nameable from the modules the table lists. */
  for (int i = 0; i < *n; ++i) scan_module(&mods[i], i == 0, 0);
  for (int i = 0; i < *n; ++i) scan_module(&mods[i], i == 0, 1);
  /* Modules gone (dlclose) are forgotten: another one may load at the same address. */
  int kept = 0;
  for (int i = 0; i < rp.n_modules; ++i)
    if (rp.modules[i].present) rp.modules[kept++] = rp.modules[i];
  rp.n_modules = kept;
}

/* Never waits for another scan: a dlopen from a library constructor holds the loader's lock,
 * which the scanning thread may need. The request is left to the thread that scans, which
 * looks again before it lets go. */
void rp_hooks_scan(void) {
  static int requested;
  int saved_errno = errno;
  __atomic_store_n(&requested, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&requested, __ATOMIC_SEQ_CST) && pthread_mutex_trylock(&rp.lock) == 0) {
    while (__atomic_exchange_n(&requested, 0, __ATOMIC_SEQ_CST)) scan_locked();
    pthread_mutex_unlock(&rp.lock);
  }
  dlerror(); /* lookups that failed here are not the program's errors */
  errno = saved_errno;
}
