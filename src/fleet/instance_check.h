// Does a host look like the instance type its fleet entry declares?
//
// A host's `instance` prices its results (from the price catalog).  Before
// anything runs, `pgrig fleet run` asks each such host for its facts
// (`PGRIG facts --json --no-server` over ssh, with the host's env) and
// compares the architecture, the vCPU count and the memory with the
// catalog's entry: a host that claims r8g.large but has 2 x86 vCPUs gets a
// warning that says what disagrees (the run still goes on: the declaration
// may be a deliberate what-if price, but then the figures are not that
// instance's).  Memory agrees when the host's total is 85-110% of the
// catalog's (kernels keep some memory for themselves).
//
// ParseHostShape and Disagreements are pure; CheckInstances runs one ssh
// command per host, all at once.  Nothing here prints.  Thread-safe as its
// transport is.
#ifndef PGRIG_FLEET_INSTANCE_CHECK_H_
#define PGRIG_FLEET_INSTANCE_CHECK_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "cost/catalog.h"
#include "fleet/check.h"
#include "fleet/fleet_file.h"
#include "fleet/ssh.h"

namespace pgrig::fleet {

// What a host's facts say about its size (each part may be unknown).
struct HostShape {
  std::optional<cost::Arch> arch;
  std::optional<int> vcpus;
  std::optional<double> memory_gib;
  std::string cpu_model;  // "" when unknown
};

// From `pgrig facts --json` output (pgrig.facts: host.cpu.architecture,
// host.cpu.vcpus, host.memory.total_bytes, host.cpu.model_name).
Result<HostShape> ParseHostShape(std::string_view facts_json);

// What disagrees, one phrase each ("architecture x86_64, not arm64"); empty
// when the host matches the entry as far as its facts tell.
std::vector<std::string> Disagreements(const cost::InstancePrice& entry, const HostShape& shape);

// InvalidArgument naming the fleet file's line when a host declares an
// `instance` that `catalog` does not have (`file` is the fleet file, for the
// message).  Checked before any host is contacted, by `fleet check` and
// `fleet run`.
Status CheckDeclaredInstances(const Fleet& fleet, const cost::Catalog& catalog,
                              const std::string& file);

struct InstanceFinding {
  const FleetHost* host = nullptr;
  std::string warning;  // empty: agrees (or nothing to check)
};

// For each ready host in `checks` with an `instance` (found in `catalog`),
// fetches its facts and compares.  Hosts that cannot be asked get a warning
// saying so.
std::vector<InstanceFinding> CheckInstances(const std::vector<HostCheck>& checks,
                                            const cost::Catalog& catalog, const SshTransport& ssh);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_INSTANCE_CHECK_H_
