// Tuner inputs from the facts `pgrig facts` collects (src/host), so the
// rules see the same machine the facts report: container-aware memory and
// CPUs, SMT, storage class, page and huge page sizes, the server's version
// and, on Arm, whether its binary uses LSE atomics.
//
// A fact that is unknown leaves the TuneInputs default and adds a note that
// says which default was assumed and which option overrides it; a virtual
// disk (virtio-blk, Xen) is taken as ssd with a note.  Pure functions of
// their arguments; thread-safe.
#ifndef PGRIG_TUNE_FROM_FACTS_H_
#define PGRIG_TUNE_FROM_FACTS_H_

#include <optional>
#include <string>
#include <vector>

#include "host/host_facts.h"
#include "host/server_facts.h"
#include "tune/rules.h"

namespace pgrig::tune {

TuneInputs InputsFromFacts(const host::HostFacts& host, const host::ServerFacts* server,
                           std::vector<std::string>* notes);

// What the user said about the server's machine on the command line.
struct InputOverrides {
  std::optional<uint64_t> memory;
  std::optional<int> cpus;
  std::optional<StorageClass> storage;
  std::optional<int> threads_per_core;  // --smt
  std::optional<std::string> arch;      // --arch, already through ParseArch
  std::optional<uint64_t> page_size;    // --page-size (base page)
  std::optional<int> connections;
  std::optional<uint64_t> data_size;
};

// "x86_64", "aarch64" (also "arm64"), "ppc64le", "s390x", "riscv64".
Result<std::string> ParseArch(std::string_view text);

// Checks each option's range (--memory 256MB to 64TB, --cpus 1 to 4096,
// --connections, --smt 1 to 8, --page-size 4kB/16kB/64kB) and the options
// against each other (page sizes the architecture has, --cpus a whole number
// of cores with --smt).  Reads nothing; `pgrig tune` calls it before it
// connects to anything.
Status ValidateOverrides(const InputOverrides& o);

// Lays the options over `in` and drops the notes they answer (a "give
// --storage" note once --storage was given).
void ApplyOverrides(const InputOverrides& o, TuneInputs* in, std::vector<std::string>* notes);

// Inputs for a machine known only from the options (offline tuning of
// another machine, or a remote server): nothing is read from this machine.
// Unsaid SMT counts every vCPU as a core, unsaid architecture is unknown,
// unsaid page size is 4kB, unsaid storage is ssd, each with a note.
TuneInputs InputsAsGiven(const InputOverrides& o, std::vector<std::string>* notes);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_FROM_FACTS_H_
