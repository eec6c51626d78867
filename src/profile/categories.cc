// The category rules (profile/categories.h); docs/profiles.md lists them.
#include "profile/categories.h"

namespace pgrig::profile {
namespace {

struct Rule {
  std::string_view name;
  bool prefix;  // name is a prefix of the function's name, else the whole name
  Category category;
};

constexpr Category L = Category::kLocks;
constexpr Category A = Category::kAtomics;
constexpr Category W = Category::kWal;
constexpr Category B = Category::kBuffers;
constexpr Category E = Category::kExecutor;
constexpr Category P = Category::kPlanner;
constexpr Category J = Category::kJit;
constexpr Category M = Category::kMemory;
constexpr Category N = Category::kNetworkKernel;
constexpr Category I = Category::kIdleWait;

// A frame's function is matched against these in order; the first match
// decides (so "LockBuffer" is buffers before "Lock..." could be locks).
constexpr Rule kRules[] = {
    // Buffer manager, before the locks (LockBuffer takes a content lock).
    {"LockBuffer", false, B},
    {"ConditionalLockBuffer", false, B},
    {"UnlockBuffers", false, B},
    {"ReadBuffer", true, B},
    {"ReadRecentBuffer", false, B},
    {"ReleaseBuffer", false, B},
    {"ReleaseAndReadBuffer", false, B},
    {"PinBuffer", true, B},
    {"UnpinBuffer", true, B},
    {"BufTable", true, B},
    {"BufferAlloc", false, B},
    {"BufferGet", true, B},
    {"BufferIsPermanent", false, B},
    {"IncrBufferRefCount", false, B},
    {"MarkBuffer", true, B},
    {"StrategyGetBuffer", false, B},
    {"StrategyFreeBuffer", false, B},
    {"FlushBuffer", false, B},
    {"FlushOneBuffer", false, B},
    {"SyncOneBuffer", false, B},
    {"BgBufferSync", false, B},
    {"BufferSync", false, B},
    {"PrefetchBuffer", false, B},
    {"GetPrivateRefCount", true, B},
    {"ResourceOwnerRememberBuffer", false, B},
    {"ResourceOwnerForgetBuffer", false, B},
    {"ResourceOwnerEnlargeBuffers", false, B},
    {"LocalBuffer", true, B},
    {"smgr", true, B},
    {"mdread", false, B},
    {"mdwrite", false, B},
    {"mdextend", false, B},
    {"mdnblocks", false, B},
    {"mdopenfork", false, B},
    {"mdprefetch", false, B},
    // Locks and spinning; sleeping on a semaphore is waiting for a lock.
    {"s_lock", false, L},
    {"s_unlock", false, L},
    {"perform_spin_delay", false, L},
    {"finish_spin_delay", false, L},
    {"LWLock", true, L},
    {"LockAcquire", true, L},
    {"LockRelease", true, L},
    {"LockRelationOid", false, L},
    {"UnlockRelationOid", false, L},
    {"LockCheckConflicts", false, L},
    {"GrantLock", false, L},
    {"UnGrantLock", false, L},
    {"FastPathGrantRelationLock", false, L},
    {"FastPathUnGrantRelationLock", false, L},
    {"XactLockTable", true, L},
    {"VirtualXactLock", true, L},
    {"ProcSleep", false, L},
    {"ProcWakeup", false, L},
    {"WALInsertLock", true, L},
    {"PGSemaphore", true, L},
    {"sem_wait", false, L},
    {"sem_post", false, L},
    {"__new_sem_wait_slow", true, L},
    {"futex_", true, L},
    {"do_futex", false, L},
    {"__futex", true, L},
    // Out-of-line atomics: libgcc's arm64 helpers (-moutline-atomics), and
    // PostgreSQL's when the compiler did not inline them.
    {"__aarch64_", true, A},
    {"pg_atomic_", true, A},
    // WAL.
    {"XLog", true, W},
    {"xlog", true, W},
    {"CopyXLogRecordToWAL", false, W},
    {"ReserveXLog", true, W},
    {"AdvanceXLInsertBuffer", false, W},
    {"GetXLogBuffer", false, W},
    {"issue_xlog_fsync", false, W},
    {"RecordTransactionCommit", false, W},
    {"log_heap_", true, W},
    {"log_newpage", true, W},
    {"pg_comp_crc32c", true, W},
    {"WalSnd", true, W},
    // Memory allocation.
    {"palloc", true, M},
    {"pfree", false, M},
    {"repalloc", true, M},
    {"pstrdup", false, M},
    {"pnstrdup", false, M},
    {"AllocSet", true, M},
    {"Generation", true, M},
    {"Slab", true, M},
    {"MemoryContext", true, M},
    {"malloc", false, M},
    {"free", false, M},
    {"calloc", false, M},
    {"realloc", false, M},
    {"cfree", false, M},
    {"__libc_malloc", false, M},
    {"__libc_free", false, M},
    {"__libc_calloc", false, M},
    {"__libc_realloc", false, M},
    {"_int_malloc", false, M},
    {"_int_free", false, M},
    {"_int_realloc", false, M},
    {"malloc_consolidate", false, M},
    {"sysmalloc", false, M},
    {"unlink_chunk", true, M},
    // JIT (by name; by object in CategoryOfFrame).
    {"llvm_", true, J},
    {"LLVM", true, J},
    {"evalexpr_", true, J},
    {"deform_", true, J},
    // Idle: on CPU on the way into or out of a wait for work.
    {"WaitEventSetWait", true, I},
    {"WaitLatch", true, I},
    {"ServerLoop", false, I},
    {"epoll_wait", false, I},
    {"epoll_pwait", false, I},
    {"do_epoll_wait", false, I},
    {"ep_poll", false, I},
    // The client protocol and sockets (user space and kernel).
    {"secure_read", false, N},
    {"secure_write", false, N},
    {"secure_raw_read", false, N},
    {"secure_raw_write", false, N},
    {"pq_", true, N},
    {"socket_", true, N},
    {"internal_flush", false, N},
    {"internal_putbytes", false, N},
    {"ReadCommand", false, N},
    {"printtup", true, N},
    {"SendRowDescriptionMessage", false, N},
    {"EndCommand", false, N},
    {"ReadyForQuery", false, N},
    {"recv", false, N},
    {"send", false, N},
    {"__libc_recv", false, N},
    {"__libc_send", false, N},
    {"__recv", false, N},
    {"__send", false, N},
    {"tcp_", true, N},
    {"unix_stream_", true, N},
    {"sock_", true, N},
    {"__sys_sendto", false, N},
    {"__sys_recvfrom", false, N},
    {"inet_", true, N},
    {"ip_", true, N},
    {"skb_", true, N},
    // Planner, parser, analyzer, rewriter, plan cache.
    {"planner", false, P},
    {"standard_planner", false, P},
    {"subquery_planner", false, P},
    {"grouping_planner", false, P},
    {"query_planner", false, P},
    {"create_plan", true, P},
    {"make_one_rel", false, P},
    {"set_base_rel", true, P},
    {"build_simple_rel", false, P},
    {"get_relation_info", false, P},
    {"add_path", false, P},
    {"add_base_rels_to_query", false, P},
    {"cost_", true, P},
    {"clauselist_selectivity", true, P},
    {"preprocess_", true, P},
    {"pull_up_", true, P},
    {"expression_planner", false, P},
    {"eval_const_expressions", false, P},
    {"raw_parser", false, P},
    {"base_yyparse", false, P},
    {"core_yylex", false, P},
    {"parse_analyze", true, P},
    {"transform", true, P},
    {"pg_parse_query", false, P},
    {"pg_analyze_and_rewrite", true, P},
    {"pg_rewrite_query", false, P},
    {"QueryRewrite", false, P},
    {"pg_plan_quer", true, P},
    {"GetCachedPlan", false, P},
    {"BuildCachedPlan", false, P},
    {"RevalidateCachedQuery", false, P},
    {"CompleteCachedPlan", false, P},
    {"CreateCachedPlan", false, P},
    // The executor, expression evaluation and the access methods it drives.
    {"Exec", true, E},
    {"standard_Executor", true, E},
    {"Executor", true, E},
    {"heap_", true, E},
    {"heapam_", true, E},
    {"heapgettup", true, E},
    {"HeapTupleSatisfies", true, E},
    {"_bt_", true, E},
    {"bt", true, E},
    {"index_", true, E},
    {"table_", true, E},
    {"slot_", true, E},
    {"tts_", true, E},
    {"tuplesort_", true, E},
    {"tuplestore_", true, E},
    {"MakeTupleTableSlot", false, E},
    {"CreateExecutorState", false, E},
    {"FreeExecutorState", false, E},
};

bool Matches(const Rule& r, std::string_view fn) {
  return r.prefix ? fn.starts_with(r.name) : fn == r.name;
}

}  // namespace

std::string_view CategoryKey(Category c) {
  switch (c) {
    case Category::kLocks:
      return "locks";
    case Category::kAtomics:
      return "atomics";
    case Category::kWal:
      return "wal";
    case Category::kBuffers:
      return "buffers";
    case Category::kExecutor:
      return "executor";
    case Category::kPlanner:
      return "planner";
    case Category::kJit:
      return "jit";
    case Category::kMemory:
      return "memory";
    case Category::kNetworkKernel:
      return "network_kernel";
    case Category::kIdleWait:
      return "idle_wait";
    case Category::kOther:
      return "other";
  }
  return "other";
}

bool CategoryOfFrame(const Frame& frame, Category& out) {
  // JIT-compiled code and LLVM itself, by the object they are in.
  if (frame.dso.find("llvmjit") != std::string_view::npos ||
      frame.dso.find("libLLVM") != std::string_view::npos ||
      frame.dso.find("/tmp/perf-") != std::string_view::npos || frame.dso.starts_with("[JIT]")) {
    out = Category::kJit;
    return true;
  }
  if (!frame.resolved()) return false;
  // Linux and glibc name variants with suffixes ("recv.part.0",
  // "__memcpy_avx_unaligned"): the part before a '.' is the function.
  std::string_view fn = frame.symbol;
  if (const size_t dot = fn.find_first_of(".@"); dot != std::string_view::npos && dot > 0) {
    fn = fn.substr(0, dot);  // "recv.part.0", "llseek@GLIBC_2.2.5"
  }
  for (const Rule& r : kRules) {
    if (Matches(r, fn)) {
      out = r.category;
      return true;
    }
  }
  return false;
}

Category Classify(std::span<const Frame> frames) {
  bool any_kernel = false;
  for (const Frame& f : frames) {
    Category c;
    if (CategoryOfFrame(f, c)) return c;
    any_kernel = any_kernel || f.kernel();
  }
  return any_kernel ? Category::kNetworkKernel : Category::kOther;
}

}  // namespace pgrig::profile
