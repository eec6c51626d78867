// Where a server's CPU goes, in a fixed set of categories (issue 30, point
// 2; docs/profiles.md lists every rule).  A sample is put in a category by
// its stack, walked from the leaf towards main(): the first frame that a
// rule names decides.  So a memcpy called by CopyXLogRecordToWAL is WAL, a
// page fault taken in AllocSetAlloc is memory allocation, and a spin in
// s_lock called by LWLockAcquire called by XLogInsert is locks: the
// innermost named function wins, whatever called it.  A stack no rule
// names is "network/kernel" when any of its frames is in the kernel, and
// "other" when none is.
//
// The rules are names and prefixes of PostgreSQL 15's functions (and
// glibc's, libgcc's, LLVM's and Linux's); a static function perf could not
// resolve (Debian strips them) matches nothing and is skipped over, so its
// caller decides.
#ifndef PGRIG_PROFILE_CATEGORIES_H_
#define PGRIG_PROFILE_CATEGORIES_H_

#include <array>
#include <span>
#include <string_view>

#include "profile/perf_script.h"

namespace pgrig::profile {

enum class Category {
  kLocks,          // spinlocks, LWLocks, heavyweight locks
  kAtomics,        // out-of-line atomics (arm64 LSE/LL-SC helpers, pg_atomic_*)
  kWal,            // WAL insertion, writing and flushing
  kBuffers,        // shared buffer lookup, pinning, reading, eviction
  kExecutor,       // executor nodes, expression evaluation, access methods
  kPlanner,        // parser, analyzer, rewriter, planner, plan cache
  kJit,            // LLVM compilation and JIT-compiled code
  kMemory,         // palloc/pfree, memory contexts, malloc
  kNetworkKernel,  // client protocol, sockets, and any other kernel work
  kIdleWait,       // on CPU while going to sleep or waking (latches, epoll)
  kOther,
};
inline constexpr int kCategoryCount = 11;

inline constexpr std::array<Category, kCategoryCount> kAllCategories = {
    Category::kLocks,         Category::kAtomics,  Category::kWal,  Category::kBuffers,
    Category::kExecutor,      Category::kPlanner,  Category::kJit,  Category::kMemory,
    Category::kNetworkKernel, Category::kIdleWait, Category::kOther};

// The category's key in results and tables: "locks", "atomics", "wal",
// "buffers", "executor", "planner", "jit", "memory", "network_kernel",
// "idle_wait", "other".
std::string_view CategoryKey(Category c);

// The category a single frame's function names, if a rule names it.
// `dso` matters for JIT code (LLVM's libraries, perf's JIT maps).
bool CategoryOfFrame(const Frame& frame, Category& out);

// The sample's category (the header's rule); `frames` leaf first.
Category Classify(std::span<const Frame> frames);

}  // namespace pgrig::profile

#endif  // PGRIG_PROFILE_CATEGORIES_H_
